package vsm

import "testing"

// TestCosineAtMostOne: a cosine is at most 1, but dot / (|a|·|b|) of two
// parallel vectors rounds above it for about a fifth of them (this pair:
// 1.0000000000000002), and page filters document their scores in [0,1].
func TestCosineAtMostOne(t *testing.T) {
	v := Vector{"a": 0.6427916177471248, "b": 1.141971567899058}
	if c := Cosine(v, v); c > 1 {
		t.Fatalf("Cosine(v, v) = %v, above 1", c)
	}
}
