// Package plot draws the evaluation's line charts as standalone SVG, by
// hand, so reports need no plotting library or external tool: x and y axes
// with ticks, one polyline per series and a legend.
package plot

import (
	"bytes"
	"fmt"
	"html"
	"math"
)

// Series is one line of a chart. X and Y have equal length.
type Series struct {
	Name string
	X, Y []float64
}

// Chart is a line chart.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	// YMax fixes the top of the y axis; 0 means the data's maximum, rounded up.
	YMax float64
	// Width and Height in pixels; 0 means 760×420.
	Width, Height int
}

// palette is Okabe–Ito plus greys, distinguishable by most colour-blind
// readers; series beyond it cycle with a dash pattern.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000", "#999999"}

// SVG renders the chart. A chart without data still renders its axes.
func (c Chart) SVG() []byte {
	w, h := c.Width, c.Height
	if w <= 0 {
		w = 760
	}
	if h <= 0 {
		h = 420
	}
	const left, top, bottom = 60.0, 36.0, 48.0
	right := 200.0 // legend column
	pw, ph := float64(w)-left-right, float64(h)-top-bottom

	xmax, ymax := 0.0, c.YMax
	for _, s := range c.Series {
		for i := range s.X {
			xmax = math.Max(xmax, s.X[i])
			if c.YMax == 0 {
				ymax = math.Max(ymax, s.Y[i])
			}
		}
	}
	xmax = niceCeil(xmax)
	if c.YMax == 0 {
		ymax = niceCeil(ymax)
	}
	px := func(x float64) float64 { return left + x/xmax*pw }
	py := func(y float64) float64 { return top + ph - math.Min(y, ymax)/ymax*ph }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%g" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", left, esc(c.Title))
	// Grid, ticks and tick labels.
	for i := 0; i <= 5; i++ {
		xv, yv := xmax*float64(i)/5, ymax*float64(i)/5
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, py(yv), left+pw, py(yv))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", px(xv), top, px(xv), top+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, py(yv)+4, num(yv))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(xv), top+ph+16, num(xv))
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", left+pw/2, h-8, esc(c.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(14 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+ph/2, esc(c.YLabel))
	// Lines and legend.
	for i, s := range c.Series {
		col := palette[i%len(palette)]
		dash := ""
		if i >= len(palette) {
			dash = ` stroke-dasharray="6 3"`
		}
		var pts bytes.Buffer
		for j := range s.X {
			fmt.Fprintf(&pts, "%.1f,%.1f ", px(s.X[j]), py(s.Y[j]))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6"%s points="%s"/>`+"\n", col, dash, bytes.TrimSpace(pts.Bytes()))
		ly := top + 8 + float64(i)*16
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", left+pw+12, ly, left+pw+32, ly, col, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", left+pw+38, ly+4, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten (1 for v ≤ 0).
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

func esc(s string) string { return html.EscapeString(s) }
