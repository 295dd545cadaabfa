package registry

import (
	"strings"
	"testing"

	"focuscrawl/internal/topic"
)

func TestRegistry(t *testing.T) {
	r := New[string, int]("strategy.test", func(env int) int { return env * 10 })
	Register(r, "b", func(s topic.Spec) (float64, error) {
		if err := r.CheckParams(s, "x"); err != nil {
			return 0, err
		}
		return s.Float("x", 1)
	}, func(x float64, env int) (string, error) { return strings.Repeat("b", int(x)+env), nil })
	Register(r, "a", func(topic.Spec) (struct{}, error) { return struct{}{}, nil },
		func(struct{}, int) (string, error) { return "a", nil })
	if got := r.Names(); strings.Join(got, ",") != "a,b" {
		t.Fatalf("Names = %v", got)
	}
	d, err := r.Decode(topic.Spec{Name: "b", Params: map[string]any{"x": 2}})
	if err != nil {
		t.Fatal(err)
	}
	// The decoded parameters build any number of times, each with its environment.
	for env, want := range map[int]string{0: "bb", 1: strings.Repeat("b", 12)} { // prepare: env × 10
		if v, err := r.Build(d, env); err != nil || v != want {
			t.Fatalf("Build b with env %d = %q, %v; want %q", env, v, err, want)
		}
	}
	_, err = r.Decode(topic.Spec{Name: "b", Params: map[string]any{"y": 1}})
	if err == nil || !strings.Contains(err.Error(), `"y"`) || !strings.Contains(err.Error(), "strategy.test b") {
		t.Fatalf("unknown parameter error = %v", err)
	}
	_, err = r.Decode(topic.Spec{Name: "zzz"})
	if err == nil || !strings.Contains(err.Error(), "[a b]") {
		t.Fatalf("unknown name error should list the known ones: %v", err)
	}
	if _, err := r.Build(Strategy[string]{name: "a", params: 1.0}, 0); err == nil {
		t.Fatal("parameters of another strategy must not build")
	}
	if err := r.Check(topic.Spec{Name: "b", Params: map[string]any{"x": "no"}}); err == nil {
		t.Fatal("Check accepted a bad parameter")
	}
	if v, err := r.New(topic.Spec{Name: "a"}, 0); err != nil || v != "a" {
		t.Fatalf("New a = %q, %v", v, err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate registration did not panic")
		}
	}()
	Register(r, "a", func(topic.Spec) (int, error) { return 0, nil }, func(int, int) (string, error) { return "", nil })
}

// TestUnknownNamesSuggest: a mistyped strategy or parameter name ("vsn" in
// a trial's topic file) was answered with the list of known names only;
// like a mistyped field, it names the one meant.
func TestUnknownNamesSuggest(t *testing.T) {
	r := New[string, int]("strategy.test", nil)
	Register(r, "vsm", func(s topic.Spec) (float64, error) {
		return 0, r.CheckParams(s, "threshold", "weighting")
	}, func(float64, int) (string, error) { return "", nil })
	_, err := r.Decode(topic.Spec{Name: "vsn"})
	if err == nil || !strings.Contains(err.Error(), `unknown strategy "vsn" (did you mean "vsm"?)`) {
		t.Errorf("unknown name: %v", err)
	}
	_, err = r.Decode(topic.Spec{Name: "vsm", Params: map[string]any{"treshold": 0.1}})
	if err == nil || !strings.Contains(err.Error(), `unknown parameter "treshold" (did you mean "threshold"?)`) {
		t.Errorf("unknown parameter: %v", err)
	}
	_, err = r.Decode(topic.Spec{Name: "zzz"})
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a name close to none suggests one: %v", err)
	}
}
