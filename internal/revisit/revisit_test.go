package revisit

import (
	"testing"
	"time"

	"focuscrawl/internal/config"
)

func TestNext(t *testing.T) {
	c := config.Refresh{MinInterval: time.Hour, MaxInterval: 100 * time.Hour, InitialInterval: 10 * time.Hour}
	tests := []struct {
		name            string
		base            time.Duration
		changed         bool
		rel, hub        float64
		wantBase, wantW time.Duration
	}{
		{"new page unchanged, middling", 0, false, 0.5, 0, 15 * time.Hour, 15 * time.Hour},
		{"new page changed, middling", 0, true, 0.5, 0, 5 * time.Hour, 5 * time.Hour},
		{"relevant page comes back sooner", 10 * time.Hour, false, 1, 0, 15 * time.Hour, 11*time.Hour + 15*time.Minute},
		{"irrelevant page later", 10 * time.Hour, false, 0, 0, 15 * time.Hour, 18*time.Hour + 45*time.Minute},
		{"hub score counts like relevance", 10 * time.Hour, false, 0, 1, 15 * time.Hour, 11*time.Hour + 15*time.Minute},
		{"clamped at max", 90 * time.Hour, false, 0, 0, 100 * time.Hour, 100 * time.Hour},
		{"clamped at min", time.Hour, true, 1, 0, time.Hour, time.Hour},
		{"NaN relevance is no importance", 10 * time.Hour, false, nan(), 0, 15 * time.Hour, 18*time.Hour + 45*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, w := Next(c, tt.base, tt.changed, tt.rel, tt.hub)
			if b != tt.wantBase || w != tt.wantW {
				t.Errorf("Next = %s, %s; want %s, %s", b, w, tt.wantBase, tt.wantW)
			}
		})
	}
}

func nan() float64 { z := 0.0; return z / z }
