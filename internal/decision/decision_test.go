package decision

import "testing"

func TestJudged(t *testing.T) {
	for d, want := range map[string]bool{
		Accepted: true, Rejected: true, Tunnel: true,
		Pending: false, Duplicate: false, Error: false, "unknown": false,
	} {
		if Judged(d) != want {
			t.Errorf("Judged(%q) = %v, want %v", d, !want, want)
		}
	}
}
