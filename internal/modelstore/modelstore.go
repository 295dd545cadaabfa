// Package modelstore is the one way focuscrawl reads and writes the crawl
// store's versioned models (store.Models): topic models, lexicons, sample
// pages, link models, ranks and the states of learning filters and the
// dynamic threshold.
//
// A stored version never changes, so a version that a batch names is
// decoded once per worker and kept (Cache, Load); the latest version of a
// state is read fresh every time (Latest); and a new version is written
// only when its bytes differ from the latest (PutIfChanged), so a retried
// activity does not pile up identical versions.
package modelstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"focuscrawl/internal/store"
)

// Cache keeps decoded immutable versions, keyed by what identifies them.
// The zero value is ready to use; it is safe for concurrent use.
//
// Of the versioned models Load reads it keeps the newest keepVersions of
// each (topic, kind): a crawl moves on to each new link model and rank
// version and never returns, so older ones were dead memory that grew with
// every learning and ranking round of a long crawl (for ranks, maps over
// every page the crawl has fetched). Two, not one, so that two crawls of a
// topic on neighbouring versions (a crawl and a refresh after an
// update-topic) do not evict each other's at every group.
type Cache struct {
	m sync.Map

	mu       sync.Mutex
	versions map[string][]int // Load's cached versions by (topic, kind), newest first
}

// keepVersions is how many versions of each (topic, kind) Load keeps.
const keepVersions = 2

// Remember returns the value cached under key, or loads, caches and returns
// it. Two callers racing on a missing key may both load; the values are
// equal because what they load is immutable. A failed load is not cached.
func Remember[T any](c *Cache, key string, load func() (T, error)) (T, error) {
	if v, ok := c.m.Load(key); ok {
		return v.(T), nil
	}
	v, err := load()
	if err != nil {
		return v, err
	}
	c.m.Store(key, v)
	return v, nil
}

// Load returns version (> 0) of the model (topicName, kind), decoded with
// decode and cached in c.
func Load[T any](ctx context.Context, c *Cache, s store.Models, topicName, kind string, version int, decode func([]byte) (T, error)) (T, error) {
	loaded := false
	v, err := Remember(c, loadKey(topicName, kind, version), func() (T, error) {
		var zero T
		data, _, err := s.Model(ctx, topicName, kind, version)
		if err != nil {
			return zero, fmt.Errorf("load %s v%d of %s: %w", kind, version, topicName, err)
		}
		v, err := decode(data)
		if err != nil {
			return zero, fmt.Errorf("stored %s v%d of %s: %w", kind, version, topicName, err)
		}
		loaded = true
		return v, nil
	})
	if loaded {
		c.keepNewest(topicName, kind, version)
	}
	return v, err
}

// loadKey is the cache key of version of (topicName, kind) read by Load.
func loadKey(topicName, kind string, version int) string {
	return fmt.Sprintf("model\x00%s\x00%s\x00%d", topicName, kind, version)
}

// keepNewest records that Load cached version of (topicName, kind) and
// drops what falls out of that model's newest keepVersions (the version
// just loaded included, when it is older than those).
func (c *Cache) keepNewest(topicName, kind string, version int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.versions == nil {
		c.versions = map[string][]int{}
	}
	k := topicName + "\x00" + kind
	vs := c.versions[k]
	if slices.Contains(vs, version) { // two loaders raced on it
		return
	}
	vs = append(vs, version)
	slices.SortFunc(vs, func(a, b int) int { return b - a })
	for _, v := range vs[min(len(vs), keepVersions):] {
		c.m.Delete(loadKey(topicName, kind, v))
	}
	c.versions[k] = vs[:min(len(vs), keepVersions)]
}

// Latest decodes the latest version of the JSON model (topicName, kind)
// into v. It reports false, leaving v alone, when none is stored.
func Latest(ctx context.Context, s store.Models, topicName, kind string, v any) (bool, error) {
	data, _, err := s.Model(ctx, topicName, kind, 0)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("stored %s of %s: %w", kind, topicName, err)
	}
	return true, nil
}

// PutIfChanged stores data as a new version of (topicName, kind) unless the
// latest version holds the same bytes, and returns the version that holds
// them.
func PutIfChanged(ctx context.Context, s store.Models, topicName, kind string, data []byte) (int, error) {
	old, v, err := s.Model(ctx, topicName, kind, 0)
	switch {
	case err == nil && bytes.Equal(old, data):
		return v, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return 0, err
	}
	return s.PutModel(ctx, topicName, kind, data)
}
