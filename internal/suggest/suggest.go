// Package suggest finds the name a user most likely meant when they typed
// one that does not exist (a topic-file field, an environment variable), so
// an error or warning can say "did you mean …?".
package suggest

// Closest returns the candidate at most maxEdits edits from s — the
// nearest, the first of equals in candidates' order — or "" when none is
// that close.
func Closest(s string, candidates []string, maxEdits int) string {
	best, bestD := "", maxEdits+1
	for _, c := range candidates {
		if d := Distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes (the
// names it compares are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
