package postgres

import "testing"

func TestRebind(t *testing.T) {
	for q, want := range map[string]string{
		`SELECT 1`:                    `SELECT 1`,
		`WHERE a = ? AND b IN (?, ?)`: `WHERE a = $1 AND b IN ($2, $3)`,
		`WHERE a = '?' AND b = ? AND c = 'it''s ?' OR ?`: `WHERE a = '?' AND b = $1 AND c = 'it''s ?' OR $2`,
	} {
		if got := rebind(q); got != want {
			t.Errorf("rebind(%q) = %q, want %q", q, got, want)
		}
		if got := rebind(q); got != want { // from the cache
			t.Errorf("rebind(%q) again = %q, want %q", q, got, want)
		}
	}
}
