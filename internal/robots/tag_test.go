package robots

import "testing"

func TestTagDirectives(t *testing.T) {
	for _, tc := range []struct {
		value             string
		noindex, nofollow bool
	}{
		{"noindex", true, false},
		{"NOINDEX, NoFollow", true, true},
		{"none", true, true},
		{"all", false, false},
		{"focuscrawl: noindex", true, false},
		{"FocusCrawl: nofollow, noindex", true, true},
		{"googlebot: noindex, nofollow", false, false}, // another crawler's
		{"unavailable_after: 25 Jun 2010 15:00:00 PST", false, false},
		{"noindex, unavailable_after: 25 Jun 2010", true, false},
		{"max-snippet: 20, nofollow", false, true},
		{"", false, false},
	} {
		ni, nf := TagDirectives(tc.value, ProductToken("FocusCrawl/0.1 (+https://x)"))
		if ni != tc.noindex || nf != tc.nofollow {
			t.Errorf("TagDirectives(%q) = %v, %v; want %v, %v", tc.value, ni, nf, tc.noindex, tc.nofollow)
		}
	}
}
