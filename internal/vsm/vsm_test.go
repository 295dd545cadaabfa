package vsm

import (
	"math"
	"testing"
)

func TestCosineHandComputed(t *testing.T) {
	a := Vector{"x": 1, "y": 2}
	b := Vector{"x": 2, "z": 1}
	// dot = 2, |a| = sqrt5, |b| = sqrt5 → 0.4
	if got := Cosine(a, b); math.Abs(got-0.4) > 1e-12 {
		t.Fatalf("Cosine = %v, want 0.4", got)
	}
	if got := Cosine(a, a); math.Abs(got-1) > 1e-12 {
		t.Fatalf("self cosine = %v, want 1", got)
	}
	if got := Cosine(a, Vector{}); got != 0 {
		t.Fatalf("cosine with empty = %v", got)
	}
	if got := Cosine(a, Vector{"q": 3}); got != 0 {
		t.Fatalf("disjoint cosine = %v", got)
	}
}

func TestSmoothIDF(t *testing.T) {
	idf := SmoothIDF(9, map[string]int{"common": 9, "rare": 1})
	if got, want := idf("common"), math.Log(10.0/10)+1; math.Abs(got-want) > 1e-12 {
		t.Fatalf("idf(common) = %v, want %v", got, want)
	}
	if got, want := idf("rare"), math.Log(10.0/2)+1; math.Abs(got-want) > 1e-12 {
		t.Fatalf("idf(rare) = %v, want %v", got, want)
	}
	if idf("unseen") <= idf("rare") {
		t.Fatalf("unseen terms must weigh more than rare ones")
	}
}

func TestFromTFSublinear(t *testing.T) {
	v := FromTF(map[string]int{"a": 1, "b": 10, "c": 0}, Flat)
	if v["a"] != 1 {
		t.Fatalf("tf 1 → %v, want 1", v["a"])
	}
	if want := 1 + math.Log(10); math.Abs(v["b"]-want) > 1e-12 {
		t.Fatalf("tf 10 → %v, want %v", v["b"], want)
	}
	if _, ok := v["c"]; ok {
		t.Fatalf("zero counts must be dropped")
	}
}

// TestUnitAndAddScaled: Unit scales to length 1 without touching its
// receiver; AddScaled adds in place and ignores a zero or infinite factor
// (the 1/norm of an empty vector).
func TestUnitAndAddScaled(t *testing.T) {
	v := Vector{"a": 3, "b": 4}
	u := v.Unit()
	if math.Abs(u["a"]-0.6) > 1e-12 || math.Abs(u["b"]-0.8) > 1e-12 || v["a"] != 3 {
		t.Errorf("Unit(%v) = %v; want a 0.6, b 0.8, the receiver unchanged", v, u)
	}
	if e := (Vector{}).Unit(); len(e) != 0 {
		t.Errorf("Unit of the empty vector = %v", e)
	}
	v.AddScaled(Vector{"b": 1, "c": 2}, 0.5)
	if v["a"] != 3 || v["b"] != 4.5 || v["c"] != 1 {
		t.Errorf("AddScaled: %v; want a 3, b 4.5, c 1", v)
	}
	v.AddScaled(Vector{"a": 1}, math.Inf(1))
	v.AddScaled(Vector{"a": 1}, 0)
	if v["a"] != 3 {
		t.Errorf("AddScaled with an infinite or zero factor changed a to %v", v["a"])
	}
}
