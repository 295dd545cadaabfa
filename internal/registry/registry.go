// Package registry is the one mechanism behind focuscrawl's named
// strategies (page filters, link predictors): a concurrency-safe map from
// name to factory, and the checks every strategy family shares (unknown
// names and unknown parameters are errors that list what exists).
package registry

import (
	"fmt"
	"sort"
	"sync"

	"focuscrawl/internal/topic"
)

// Registry maps strategy names to factories producing T from a spec and an
// environment E.
type Registry[T, E any] struct {
	kind      string // e.g. "strategy.page_filter", used in error messages
	mu        sync.RWMutex
	factories map[string]func(topic.Spec, E) (T, error)
}

// New returns an empty registry; kind names the topic-file field it serves.
func New[T, E any](kind string) *Registry[T, E] {
	return &Registry[T, E]{kind: kind, factories: map[string]func(topic.Spec, E) (T, error){}}
}

// Register adds a factory. A duplicate name is a programming error and panics.
func (r *Registry[T, E]) Register(name string, f func(topic.Spec, E) (T, error)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.factories[name]; dup {
		panic(fmt.Sprintf("%s: %q registered twice", r.kind, name))
	}
	r.factories[name] = f
}

// Build creates the strategy a spec names.
func (r *Registry[T, E]) Build(spec topic.Spec, env E) (T, error) {
	r.mu.RLock()
	f, ok := r.factories[spec.Name]
	r.mu.RUnlock()
	if !ok {
		var zero T
		return zero, fmt.Errorf("%s: unknown strategy %q (known: %v)", r.kind, spec.Name, r.Names())
	}
	return f(spec, env)
}

// Names lists the registered names, sorted.
func (r *Registry[T, E]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.factories))
	for n := range r.factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CheckParams rejects parameters of spec that are not in known, naming them.
func (r *Registry[T, E]) CheckParams(spec topic.Spec, known ...string) error {
	for k := range spec.Params {
		ok := false
		for _, n := range known {
			ok = ok || k == n
		}
		if !ok {
			return fmt.Errorf("%s %s: unknown parameter %q (known: %v)", r.kind, spec.Name, k, known)
		}
	}
	return nil
}
