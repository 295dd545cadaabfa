package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"focuscrawl/internal/store"
	"focuscrawl/internal/urlnorm"
)

// domContexts looks up links' DOM contexts (parse.Link.DOMContext, seed
// 002's text within tree distance 5) for link learning. The crawl graph's
// edges carry only the ±30-byte context, so the lookup reads the
// source page's stored parse record, once per source page and only when
// linkmodel.Learn asks (for the in-links of G_W's vertices). A missing
// record or a record written before DOMContext existed gives "", and
// learning falls back to the edge's Context. A store or decode error is
// kept in err and fails the activity after learning.
type domContexts struct {
	ctx   context.Context
	a     *Activities
	topic string
	bySrc map[string]map[string]string // source URL hash → destination URL hash → DOM context
	err   error
}

func (a *Activities) domContexts(ctx context.Context, topicName string) *domContexts {
	return &domContexts{ctx: ctx, a: a, topic: topicName, bySrc: map[string]map[string]string{}}
}

// lookup implements linkmodel.TrainingData.DOMContext.
func (d *domContexts) lookup(src, dst string) string {
	if d.err != nil {
		return ""
	}
	m, ok := d.bySrc[src]
	if !ok {
		m, d.err = d.load(src)
		d.bySrc[src] = m
		if len(d.bySrc)%200 == 0 {
			heartbeat(d.ctx, len(d.bySrc))
		}
	}
	return m[dst]
}

// load reads the DOM contexts of one page's links from its parse record,
// decoding only the fields it needs.
func (d *domContexts) load(src string) (map[string]string, error) {
	data, err := d.a.Store.Blob(d.ctx, d.topic, src, store.BlobParse)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("load parse of %s for DOM contexts: %w", src, err)
	}
	var rec struct {
		Doc struct {
			Links []struct{ URL, DOMContext string }
		} `json:"doc"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("decode parse of %s for DOM contexts: %w", src, err)
	}
	m := make(map[string]string, len(rec.Doc.Links))
	for _, l := range rec.Doc.Links {
		if l.DOMContext != "" {
			m[urlnorm.Hash(l.URL)] = l.DOMContext
		}
	}
	return m, nil
}
