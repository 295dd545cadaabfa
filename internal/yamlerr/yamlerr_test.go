package yamlerr

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestExplainNamesTheTab: yaml.v3's errors for a tab in the indentation
// say neither "tab" nor, in one form, the right line.
func TestExplainNamesTheTab(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"name: t\nkeywords:\n\troses: 1\n", "line 3 is indented with a tab"},
		{"name: t\nkeywords:\n  roses: 1\n\tgarden: 2\n", "line 4 is indented with a tab"},
		{"crawl:\n  \thost_delay: 1s\n", "line 2 is indented with a tab"},
		{"a: [\n\tb\n", ""}, // another syntax error: as it was
	} {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(tt.in), &n)
		if err == nil {
			if tt.want != "" {
				t.Fatalf("%q: yaml accepted it", tt.in)
			}
			continue
		}
		got := Explain([]byte(tt.in), err)
		if !errors.Is(got, err) {
			t.Errorf("%q: %v does not wrap the decoder's error", tt.in, got)
		}
		if tt.want == "" {
			if got != err {
				t.Errorf("%q: %v; want the decoder's error as it was", tt.in, got)
			}
			continue
		}
		if !strings.Contains(got.Error(), tt.want) {
			t.Errorf("%q: %v; want it to say %q", tt.in, got, tt.want)
		}
	}
}
