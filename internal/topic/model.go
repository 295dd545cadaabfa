package topic

import (
	"encoding/json"
	"fmt"
	"math"
)

// TermCounter turns text into term frequencies. textproc.Tokenizer is the
// one implementation used in production.
type TermCounter interface {
	TermFreq(text string) map[string]int
}

// Model is a topic compiled for scoring: a weighted term vector built from
// the topic's keywords, description and sample pages. It is stored in the
// crawl store (kind ModelKind) so every batch of a crawl scores against the
// same version.
type Model struct {
	Name    string             `json:"name"`
	Version int                `json:"version"` // topic version it was built from
	Terms   map[string]float64 `json:"terms"`   // term → raw weight (IDF is applied at scoring time)
	// LexiconVersion is the store version (kind lexicon.ModelKind) of the
	// lexicon the topic names; 0 when it names none. Batches read the
	// lexicon through the model, so one model version means one lexicon.
	LexiconVersion int `json:"lexicon_version,omitempty"`
	// SamplesVersion is the store version (kind SamplesKind) of the sample
	// pages' term frequencies; 0 when there are none.
	SamplesVersion int `json:"samples_version,omitempty"`
}

// SamplesKind is the store model kind of a topic's sample pages (Samples,
// JSON), which the bayes and sample-rank filters learn from.
const SamplesKind = "topic-samples"

// Samples holds the term frequencies of a topic's sample pages.
type Samples struct {
	Positive []SampleDoc `json:"positive"`
	Negative []SampleDoc `json:"negative,omitempty"`
}

// SampleDoc is one sample page.
type SampleDoc struct {
	URL string         `json:"url"`
	TF  map[string]int `json:"tf"`
}

// DecodeSamples parses stored Samples (JSON).
func DecodeSamples(data []byte) (*Samples, error) {
	var s Samples
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("topic samples: %w", err)
	}
	return &s, nil
}

// ModelKind is the store model kind of a compiled topic.
const ModelKind = "topic-model"

// Weights of the three sources of topic terms. Keywords are the user's
// explicit statement of the topic and dominate; description and samples
// contribute max-normalised term frequencies (seed 003's F_i = count_i /
// count_max), scaled down so that they refine rather than replace keywords.
const (
	descriptionWeight = 0.5
	samplesWeight     = 0.5
	// maxModelTerms bounds the vector: long sample pages would otherwise add
	// hundreds of incidental terms.
	maxModelTerms = 300
)

// BuildModel compiles t into a term vector. sampleTexts are the visible
// texts of the topic's sample pages (fetched by the caller).
func BuildModel(t *Topic, version int, tc TermCounter, sampleTexts []string) *Model {
	terms := map[string]float64{}
	for kw, w := range t.Keywords {
		for term := range tc.TermFreq(kw) {
			if w > terms[term] {
				terms[term] = w
			}
		}
	}
	addNormalized(terms, tc.TermFreq(t.Description), descriptionWeight)
	if len(sampleTexts) > 0 {
		// Seed 003's keyword library over the samples, max-normalised and
		// scaled like the description (for one sample this equals the
		// max-normalised term frequency).
		tfs := make([]map[string]int, len(sampleTexts))
		for i, s := range sampleTexts {
			tfs[i] = tc.TermFreq(s)
		}
		for term, w := range KeywordLibrary(tfs, SampleIDF(tfs), maxModelTerms) {
			terms[term] += samplesWeight * w
		}
	}
	return &Model{Name: t.Name, Version: version, Terms: prune(terms, maxModelTerms)}
}

func addNormalized(dst map[string]float64, tf map[string]int, scale float64) {
	maxN := 0
	for _, n := range tf {
		maxN = max(maxN, n)
	}
	if maxN == 0 {
		return
	}
	for term, n := range tf {
		dst[term] += scale * float64(n) / float64(maxN)
	}
}

func prune(terms map[string]float64, n int) map[string]float64 {
	if len(terms) <= n {
		return terms
	}
	return topN(terms, n)
}

// Encode serialises the model for the store.
func (m *Model) Encode() ([]byte, error) { return json.Marshal(m) }

// DecodeModel reads a model written by Encode.
func DecodeModel(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("topic model: %w", err)
	}
	if len(m.Terms) == 0 {
		return nil, fmt.Errorf("topic model %s v%d has no terms", m.Name, m.Version)
	}
	for k, w := range m.Terms {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("topic model %s: term %q has weight %v", m.Name, k, w)
		}
	}
	return &m, nil
}
