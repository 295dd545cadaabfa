// Package registry is the one mechanism behind focuscrawl's named
// strategies (page filters, link predictors): a concurrency-safe map from
// name to a strategy's decoder and factory, and the checks every strategy
// family shares (unknown names and unknown parameters are errors that list
// what exists).
//
// A strategy's parameters are decoded once, when its topic file is
// validated (Decode), into the strategy's own typed parameter struct; a
// crawl then builds the strategy for every batch (Build) from that struct,
// with no map of untyped values read again.
package registry

import (
	"fmt"
	"sort"
	"sync"

	"focuscrawl/internal/topic"
)

// Registry maps strategy names to decoders and factories producing T from
// decoded parameters and an environment E.
type Registry[T, E any] struct {
	kind    string // e.g. "strategy.page_filter", used in error messages
	mu      sync.RWMutex
	entries map[string]entry[T, E]
}

type entry[T, E any] struct {
	decode func(topic.Spec) (any, error)
	build  func(any, E) (T, error)
}

// Decoded is a strategy spec whose parameters were decoded and checked
// (Decode): the strategy's name and its typed parameters.
type Decoded struct {
	Name   string
	Params any
}

// New returns an empty registry; kind names the topic-file field it serves.
func New[T, E any](kind string) *Registry[T, E] {
	return &Registry[T, E]{kind: kind, entries: map[string]entry[T, E]{}}
}

// Register adds a strategy: decode turns a spec into the strategy's
// parameters P (rejecting bad ones with an error that names them), build
// makes the strategy from P and an environment. A duplicate name is a
// programming error and panics.
func Register[P, T, E any](r *Registry[T, E], name string, decode func(topic.Spec) (P, error), build func(P, E) (T, error)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.entries[name]; dup {
		panic(fmt.Sprintf("%s: %q registered twice", r.kind, name))
	}
	r.entries[name] = entry[T, E]{
		decode: func(s topic.Spec) (any, error) { return decode(s) },
		build: func(p any, env E) (T, error) {
			pp, ok := p.(P)
			if !ok {
				var zero T
				return zero, fmt.Errorf("%s %s: parameters of type %T, want %T", r.kind, name, p, pp)
			}
			return build(pp, env)
		},
	}
}

func (r *Registry[T, E]) lookup(name string) (entry[T, E], error) {
	r.mu.RLock()
	e, ok := r.entries[name]
	r.mu.RUnlock()
	if !ok {
		return e, fmt.Errorf("%s: unknown strategy %q (known: %v)", r.kind, name, r.Names())
	}
	return e, nil
}

// Decode checks a spec's name and decodes its parameters.
func (r *Registry[T, E]) Decode(spec topic.Spec) (Decoded, error) {
	e, err := r.lookup(spec.Name)
	if err != nil {
		return Decoded{}, err
	}
	p, err := e.decode(spec)
	if err != nil {
		return Decoded{}, err
	}
	return Decoded{Name: spec.Name, Params: p}, nil
}

// Build creates the strategy d names from its decoded parameters.
func (r *Registry[T, E]) Build(d Decoded, env E) (T, error) {
	e, err := r.lookup(d.Name)
	if err != nil {
		var zero T
		return zero, err
	}
	return e.build(d.Params, env)
}

// Names lists the registered names, sorted.
func (r *Registry[T, E]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.entries))
	for n := range r.entries {
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
