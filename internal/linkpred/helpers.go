package linkpred

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
)

// defaultMinTermWeight is min_term_weight's default: which topic-model
// terms count as feature words (keywords weigh up to 1, description and
// sample terms at most 0.5).
const defaultMinTermWeight = 0.3

// topicTermSet returns the model's terms with weight ≥ minWeight, sorted
// (keywords weigh up to 1, description and sample terms at most 0.5).
func topicTermSet(m *topic.Model, minWeight float64) []string {
	var out []string
	for t, w := range m.Terms {
		if w >= minWeight {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// linkMetadata is seed 000's extended metadata of a link as one text: anchor,
// title, image alt, surrounding text and the URL's words.
func linkMetadata(l Link) string {
	return strings.Join([]string{l.Anchor, l.Title, l.Alt, l.Context, urlnorm.Words(l.URL)}, " ")
}

// uniform draws a reproducible U(0,1) for one random choice about one link:
// hash(seed, parent, link URL, draw). The same crawl of the same site sees
// the same draws whatever the batch boundaries or worker.
func uniform(seed int64, parent, link string, draw int) float64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(parent))
	h.Write([]byte{0})
	h.Write([]byte(link))
	h.Write([]byte{0, byte(draw)})
	return float64(h.Sum64()>>11) / float64(1<<53)
}

func sortedTerms(tf map[string]int) []string {
	out := make([]string, 0, len(tf))
	for t := range tf {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func unit(name, key string, v float64) error {
	if v < 0 || v > 1 || math.IsNaN(v) {
		return errRange(name, key, v)
	}
	return nil
}
