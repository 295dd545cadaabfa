package linkmodel

import (
	"math"
	"strconv"
	"strings"

	"focuscrawl/internal/topic"
)

// BFC is focuscrawl's model for seed 004's path discriminator (the paper
// gives only its input — the anchor texts on the path from the site root to
// the link — and says it learns online from the bootstrapped sample
// library, "similar to reinforcement learning"). It is a logistic
// regression over position-tagged path terms: a term of the link's own
// anchor is feature "0:term", of the parent link's "1:term", of anything
// older "2:term", plus the untagged term. It is retrained (deterministic
// SGD over the samples in fetch order) at every learning round from the
// sample library: accepted pages are positive samples, rejected ones
// negative — so the library grows as the crawl bootstraps itself.
type BFC struct {
	W       map[string]float64 `json:"w"`
	Bias    float64            `json:"bias"`
	Samples int                `json:"samples"`
	Pos     int                `json:"pos"`
}

// BFC training constants (focuscrawl's choices).
const (
	bfcEpochs = 8
	bfcRate   = 0.3
	bfcL2     = 1e-4
)

// PathFeatures turns an anchor path ("a > b > c", the last step being the
// link's own anchor) into binary features, L2-normalised.
func PathFeatures(path string, tc topic.TermCounter) map[string]float64 {
	steps := strings.Split(path, " > ")
	f := map[string]float64{}
	for i := len(steps) - 1; i >= 0; i-- {
		pos := len(steps) - 1 - i
		if pos > 2 {
			pos = 2
		}
		for t := range tc.TermFreq(steps[i]) {
			f[strconv.Itoa(pos)+":"+t] = 1
			f[t] = 1
		}
	}
	if len(f) > 0 {
		n := 1 / math.Sqrt(float64(len(f)))
		for k := range f {
			f[k] = n
		}
	}
	return f
}

// BFCSample is one training path with its label.
type BFCSample struct {
	Features map[string]float64
	Positive bool
}

// TrainBFC fits the discriminator. Samples are visited in the given order
// with sorted feature keys inside each sample, so training is deterministic.
func TrainBFC(samples []BFCSample) *BFC {
	b := &BFC{W: map[string]float64{}, Samples: len(samples)}
	pos := 0
	for _, s := range samples {
		if s.Positive {
			pos++
		}
	}
	b.Pos = pos
	if pos == 0 || pos == len(samples) {
		return b // one class only: nothing to discriminate yet
	}
	// Class weights balance the usually rarer positives.
	wp := float64(len(samples)) / (2 * float64(pos))
	wn := float64(len(samples)) / (2 * float64(len(samples)-pos))
	for e := 0; e < bfcEpochs; e++ {
		for _, s := range samples {
			y, cw := 0.0, wn
			if s.Positive {
				y, cw = 1, wp
			}
			g := cw * (y - b.prob(s.Features)) * bfcRate
			b.Bias += g
			for _, k := range sortedKeys(s.Features) {
				b.W[k] += g*s.Features[k] - bfcRate*bfcL2*b.W[k]
			}
		}
	}
	return b
}

// Trained reports whether the discriminator has seen both classes.
func (b *BFC) Trained() bool { return b != nil && b.Pos > 0 && b.Pos < b.Samples }

// Score is P(the path leads to a sample-like page).
func (b *BFC) Score(f map[string]float64) float64 { return b.prob(f) }

func (b *BFC) prob(f map[string]float64) float64 {
	// Sorted keys: float sums must not depend on map order (reproducible
	// training and fetch order).
	z := b.Bias
	for _, k := range sortedKeys(f) {
		z += b.W[k] * f[k]
	}
	return 1 / (1 + math.Exp(-z))
}
