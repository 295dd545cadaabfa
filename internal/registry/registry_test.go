package registry

import (
	"strings"
	"testing"

	"focuscrawl/internal/topic"
)

func TestRegistry(t *testing.T) {
	r := New[string, int]("strategy.test")
	r.Register("b", func(s topic.Spec, env int) (string, error) { return "b", r.CheckParams(s, "x") })
	r.Register("a", func(topic.Spec, int) (string, error) { return "a", nil })
	if got := r.Names(); strings.Join(got, ",") != "a,b" {
		t.Fatalf("Names = %v", got)
	}
	if v, err := r.Build(topic.Spec{Name: "b", Params: map[string]any{"x": 1}}, 0); err != nil || v != "b" {
		t.Fatalf("Build b = %q, %v", v, err)
	}
	_, err := r.Build(topic.Spec{Name: "b", Params: map[string]any{"y": 1}}, 0)
	if err == nil || !strings.Contains(err.Error(), `"y"`) || !strings.Contains(err.Error(), "strategy.test b") {
		t.Fatalf("unknown parameter error = %v", err)
	}
	_, err = r.Build(topic.Spec{Name: "zzz"}, 0)
	if err == nil || !strings.Contains(err.Error(), "[a b]") {
		t.Fatalf("unknown name error should list the known ones: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("duplicate registration did not panic")
		}
	}()
	r.Register("a", func(topic.Spec, int) (string, error) { return "", nil })
}
