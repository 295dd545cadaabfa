package focus

import (
	"fmt"
	"math"
)

// Stat summarises one metric over repeated runs.
type Stat struct {
	N                   int
	Mean, Min, Max, Std float64 // Std is the population standard deviation
}

// Summarize computes mean, min, max and standard deviation of xs; NaNs
// (a metric that does not apply, e.g. F1 of a baseline) are left out.
func Summarize(xs []float64) Stat {
	var s Stat
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		if s.N == 0 || x < s.Min {
			s.Min = x
		}
		if s.N == 0 || x > s.Max {
			s.Max = x
		}
		s.N++
		s.Mean += x
	}
	if s.N == 0 {
		return Stat{Mean: math.NaN()}
	}
	s.Mean /= float64(s.N)
	for _, x := range xs {
		if !math.IsNaN(x) {
			s.Std += (x - s.Mean) * (x - s.Mean)
		}
	}
	s.Std = math.Sqrt(s.Std / float64(s.N))
	return s
}

// String is "mean (min–max)" with three decimals, or "—" for no data; a
// spread of zero prints the mean only with "±0".
func (s Stat) String() string { return s.Format("%.3f") }

// Format is String with a custom number format.
func (s Stat) Format(f string) string {
	if s.N == 0 || math.IsNaN(s.Mean) {
		return "—"
	}
	if s.Min == s.Max {
		return fmt.Sprintf(f+" ±0", s.Mean)
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", s.Mean, s.Min, s.Max)
}
