package activities

import (
	"testing"
	"time"
)

// TestCalendarTrap: links deep into a calendar's past or future are not
// admitted; undated links and dates near the present are.
func TestCalendarTrap(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		url          string
		past, future int
		want         bool
	}{
		{"http://a.test/cal/2026/07/", 20, 1, false},
		{"http://a.test/cal/2027/12/", 20, 1, false},
		{"http://a.test/cal/2028/01/", 20, 1, true},
		{"http://a.test/cal/2005/01/", 20, 1, true},
		{"http://a.test/cal/2006/01/", 20, 1, false},
		{"http://a.test/events?date=2150-01-01", 20, 1, true},
		{"http://a.test/events?date=2150-01-01", 20, 0, false}, // future unbounded
		{"http://a.test/events?date=1900-01-01", 0, 1, false},  // past unbounded
		{"http://a.test/events?date=2150-01-01", 0, 0, false},  // off
		{"http://a.test/about", 20, 1, false},
	} {
		if got := calendarTrap(tc.url, now, tc.past, tc.future); got != tc.want {
			t.Errorf("calendarTrap(%q, past %d, future %d) = %v, want %v", tc.url, tc.past, tc.future, got, tc.want)
		}
	}
}
