// Package linkmodel holds the learned link models behind focuscrawl's
// learning link predictors: the JLSE model of seed 002 (naive-Bayes anchor
// evidence, the learned Web link graph with Q-values, BM25 mapping of new
// links onto it), the BFC anchor-path discriminator of seed 004 and the
// predecessor-layer feature sets of seed 001's Algorithm 3.
//
// A Model is rebuilt from the crawl graph by the LearnLinkModel activity and
// stored in the crawl store as a versioned blob (kind ModelKind); every batch
// reads the one version the workflow chose for it. Models are plain data
// (JSON) plus indexes rebuilt by Prepare after decoding.
package linkmodel

import (
	"encoding/json"
	"fmt"
)

// ModelKind is the crawl-store model kind of a Model.
const ModelKind = "link-model"

// RanksKind is the crawl-store model kind of the IPageRank scores written by
// RecomputeHubAuthority (a Ranks value).
const RanksKind = "link-ranks"

// Model is one learned version of a topic's link models.
type Model struct {
	Results int `json:"results"` // result (target) pages it was learned from
	// AcceptedAsResults: no accepted page was a target page, so every
	// accepted page served as a result page (Learn's fallback).
	AcceptedAsResults bool    `json:"accepted_as_results,omitempty"`
	JLSE              *JLSE   `json:"jlse,omitempty"`
	BFC               *BFC    `json:"bfc,omitempty"`
	Layers            *Layers `json:"layers,omitempty"`
}

// Encode serialises m.
func (m *Model) Encode() ([]byte, error) { return json.Marshal(m) }

// Decode parses a stored model and builds its indexes.
func Decode(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("linkmodel: decode: %w", err)
	}
	if m.JLSE != nil {
		m.JLSE.Prepare()
	}
	return &m, nil
}

// Ranks are the link-analysis scores of a topic's fetched pages, by URL
// hash, each scaled to max 1: IPageRank (what the ipagerank predictor
// reads) and plain PageRank (for inspection and comparison). Only a crawl
// whose predictor reads them stores them (activities.RecomputeHubAuthority).
type Ranks struct {
	Scores   map[string]float64 `json:"scores"`
	PageRank map[string]float64 `json:"pagerank"`
}

// DecodeRanks parses stored ranks.
func DecodeRanks(data []byte) (*Ranks, error) {
	var r Ranks
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("linkmodel: decode ranks: %w", err)
	}
	return &r, nil
}
