package plot

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestNiceCeil(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0, 1}, {-3, 1}, {0.37, 0.5}, {1, 1}, {1.2, 2}, {2.2, 2.5}, {480, 500}, {501, 1000}, {0.05, 0.05},
	}
	for _, tt := range tests {
		if got := niceCeil(tt.in); got != tt.want {
			t.Errorf("niceCeil(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSVGIsWellFormedWithOneLinePerSeries(t *testing.T) {
	c := Chart{Title: "harvest <&>", XLabel: "pages", YLabel: "rate", YMax: 1, Series: []Series{
		{Name: "bfs", X: []float64{1, 2, 3}, Y: []float64{0, 0.5, 0.33}},
		{Name: "best-first", X: []float64{1, 2}, Y: []float64{1, 1}},
	}}
	svg := string(c.SVG())
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed XML: %v\n%s", err, svg)
			}
			break
		}
	}
	if n := strings.Count(svg, "<polyline"); n != 2 {
		t.Errorf("%d polylines, want 2", n)
	}
	if !strings.Contains(svg, "harvest &lt;&amp;&gt;") || !strings.Contains(svg, ">best-first</text>") {
		t.Errorf("title or legend missing:\n%s", svg)
	}
	// x axis 0..5 (niceCeil(3) = 5) over the 500-pixel plot width: x=1 → 60+100.
	if !strings.Contains(svg, `points="160.0,`) {
		t.Errorf("first point not where expected:\n%s", svg)
	}
}

func TestSVGEmptyChart(t *testing.T) {
	svg := string(Chart{Title: "empty"}.SVG())
	if !strings.HasPrefix(svg, "<svg") || strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Errorf("bad empty chart:\n%s", svg)
	}
}
