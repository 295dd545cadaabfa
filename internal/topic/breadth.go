package topic

// Broad and specific topics (seed 000): a topic near the root of the
// taxonomy ("计算机") has relevant pages that share few exact terms with it,
// so its thresholds must be lower; a leaf topic ("卷积神经网络") can afford
// higher ones. The seed gives the direction only; the factors are
// focuscrawl's choice.
const (
	BreadthBroad    = "broad"
	BreadthSpecific = "specific"
)

var breadthFactor = map[string]float64{
	"":              1,
	BreadthBroad:    0.6,
	BreadthSpecific: 1.5,
}

// ThresholdFactor is the factor applied to a filter's DEFAULT threshold for
// the topic's breadth: 0.6 for broad topics, 1.5 for specific ones, 1
// otherwise. Thresholds written in the topic file are used as given.
func (t *Topic) ThresholdFactor() float64 {
	if t == nil {
		return 1
	}
	if f, ok := breadthFactor[t.Breadth]; ok {
		return f
	}
	return 1
}
