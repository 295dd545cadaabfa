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

	"focuscrawl/internal/suggest"
	"focuscrawl/internal/topic"
)

// Registry maps strategy names to decoders and factories producing T from
// decoded parameters and an environment E.
type Registry[T, E any] struct {
	kind    string // e.g. "strategy.page_filter", used in error messages
	prepare func(E) E
	mu      sync.RWMutex
	entries map[string]entry[T, E]
}

type entry[T, E any] struct {
	decode func(topic.Spec) (any, error)
	build  func(any, E) (T, error)
}

// Strategy is a spec of a strategy of family T whose parameters were
// decoded and checked once (Decode): the strategy's name and its typed
// parameters, from which Build makes the strategy as often as needed.
type Strategy[T any] struct {
	name   string
	params any
}

// Name is the strategy's registered name.
func (s Strategy[T]) Name() string { return s.name }

// Params are the strategy's decoded parameters (its own struct type).
func (s Strategy[T]) Params() any { return s.params }

// New returns an empty registry; kind names the topic-file field it serves.
// prepare, if not nil, fills in what an environment leaves out before a
// strategy is built from it.
func New[T, E any](kind string, prepare func(E) E) *Registry[T, E] {
	return &Registry[T, E]{kind: kind, prepare: prepare, entries: map[string]entry[T, E]{}}
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
		return e, fmt.Errorf("%s: unknown strategy %q%s (known: %v)", r.kind, name, didYouMean(name, r.Names()), r.Names())
	}
	return e, nil
}

// Decode checks a spec — its name and every parameter — and decodes its
// parameters, so a bad topic file fails before a crawl starts with an error
// that names the bad parameter.
func (r *Registry[T, E]) Decode(spec topic.Spec) (Strategy[T], error) {
	e, err := r.lookup(spec.Name)
	if err != nil {
		return Strategy[T]{}, err
	}
	p, err := e.decode(spec)
	if err != nil {
		return Strategy[T]{}, err
	}
	return Strategy[T]{name: spec.Name, params: p}, nil
}

// Build makes the strategy s names from its decoded parameters, for one
// environment.
func (r *Registry[T, E]) Build(s Strategy[T], env E) (T, error) {
	e, err := r.lookup(s.name)
	if err != nil {
		var zero T
		return zero, err
	}
	if r.prepare != nil {
		env = r.prepare(env)
	}
	return e.build(s.params, env)
}

// New decodes spec and builds its strategy: for tools and tests that build
// a strategy once. A crawl decodes once and builds per batch.
func (r *Registry[T, E]) New(spec topic.Spec, env E) (T, error) {
	s, err := r.Decode(spec)
	if err != nil {
		var zero T
		return zero, err
	}
	return r.Build(s, env)
}

// Check validates a spec (name and parameters).
func (r *Registry[T, E]) Check(spec topic.Spec) error {
	_, err := r.Decode(spec)
	return err
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
			return fmt.Errorf("%s %s: unknown parameter %q%s (known: %v)", r.kind, spec.Name, k, didYouMean(k, known), known)
		}
	}
	return nil
}

// didYouMean is " (did you mean "x"?)" for the known name closest to a
// mistyped one, or "": the topic file's fields say it (a typo like "vsn"
// or "treshold" got only the list to search), within the same distance.
func didYouMean(name string, known []string) string {
	if s := suggest.Closest(name, known, 2); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
