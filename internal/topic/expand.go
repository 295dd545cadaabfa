package topic

import (
	"errors"
	"fmt"
)

// Expand configures seed expansion (growing the seed library while the
// crawl runs; docs/algorithms.md "Seed expansion"), under strategy.expand. It runs every
// crawl.expand_every accepted pages; the zero value expands nothing.
//
//	strategy:
//	  expand: {friend_links: true, top_hosts: 3, template_min: 5, keywords: 20}
type Expand struct {
	// FriendLinks adds the seed pages' out-links to other hosts
	// ("friendly links" of the seed sites).
	FriendLinks bool `yaml:"friend_links"`
	// TopHosts adds the root URL of the N hosts with the most accepted pages.
	TopHosts int `yaml:"top_hosts"`
	// TemplateMin adds the root URL of every host whose URL templates matched
	// more than this many accepted pages; 0 disables it.
	TemplateMin int `yaml:"template_min"`
	// Keywords bounds the no-result search queries recorded as candidate
	// keywords (most frequent first); 0 disables it.
	Keywords int `yaml:"keywords"`
}

// Enabled reports whether any expansion source is on.
func (e Expand) Enabled() bool {
	return e.FriendLinks || e.TopHosts > 0 || e.TemplateMin > 0 || e.Keywords > 0
}

func (e Expand) validate() error {
	var errs []error
	if e.TopHosts < 0 || e.TopHosts > 1000 {
		errs = append(errs, fmt.Errorf("strategy.expand.top_hosts: %d must be between 0 and 1000", e.TopHosts))
	}
	if e.TemplateMin < 0 {
		errs = append(errs, fmt.Errorf("strategy.expand.template_min: %d must not be negative", e.TemplateMin))
	}
	if e.Keywords < 0 || e.Keywords > 1000 {
		errs = append(errs, fmt.Errorf("strategy.expand.keywords: %d must be between 0 and 1000", e.Keywords))
	}
	return errors.Join(errs...)
}

// Defaults of the dynamic threshold controller (focuscrawl's design; seed
// 000 names the idea, not the rule).
const (
	DefaultDynamicEvery  = 10
	DefaultDynamicWindow = 20
	DefaultDynamicHigh   = 0.8
	DefaultDynamicLow    = 0.5
	DefaultDynamicStep   = 0.1
	DefaultDynamicMin    = 0.5
	DefaultDynamicMax    = 2.0
)

// DynamicThreshold configures the optional threshold controller that
// follows the crawl's running precision (seed 000), under
// strategy.dynamic_threshold. The controller keeps a factor on the page
// filter's threshold: lowered by Step while precision ≥ High, raised by Step
// while precision < Low, kept in [Min, Max]. See relevance.Controller.
//
//	strategy:
//	  dynamic_threshold: {enabled: true, every: 10, window: 20, high: 0.8, low: 0.5, step: 0.1, min: 0.5, max: 2}
type DynamicThreshold struct {
	Enabled bool     `yaml:"enabled"`
	Every   int      `yaml:"every"`  // judged pages per controller round
	Window  int      `yaml:"window"` // accepted pages the precision is measured over
	High    float64  `yaml:"high"`
	Low     *float64 `yaml:"low"` // nil: the default (0 is a value: LowT)
	Step    float64  `yaml:"step"`
	Min     float64  `yaml:"min"`
	Max     float64  `yaml:"max"`
}

// LowT is Low, DefaultDynamicLow when absent: a pointer, so that low: 0
// (which the docs allow) is not taken for "absent" and replaced.
func (d DynamicThreshold) LowT() float64 {
	if d.Low == nil {
		return DefaultDynamicLow
	}
	return *d.Low
}

// fill sets defaults and validates.
func (d *DynamicThreshold) fill() error {
	if !d.Enabled {
		return nil // parameters of a disabled controller are kept but unused
	}
	defInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	defF := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	defInt(&d.Every, DefaultDynamicEvery)
	defInt(&d.Window, DefaultDynamicWindow)
	defF(&d.High, DefaultDynamicHigh)
	if d.Low == nil {
		low := DefaultDynamicLow
		d.Low = &low
	}
	defF(&d.Step, DefaultDynamicStep)
	defF(&d.Min, DefaultDynamicMin)
	defF(&d.Max, DefaultDynamicMax)
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("strategy.dynamic_threshold: "+format, args...))
	}
	if d.Every < 1 || d.Every > 1e6 {
		bad("every %d must be between 1 and 1000000", d.Every)
	}
	if d.Window < 2 || d.Window > 10000 {
		bad("window %d must be between 2 and 10000", d.Window)
	}
	if low := d.LowT(); !(low >= 0 && low < d.High && d.High <= 1) {
		bad("need 0 ≤ low (%v) < high (%v) ≤ 1", low, d.High)
	}
	if !(d.Step > 0 && d.Step <= 1) {
		bad("step %v must be in (0, 1]", d.Step)
	}
	if !(d.Min > 0 && d.Min <= 1 && d.Max >= 1 && d.Max <= 10) {
		bad("need 0 < min (%v) ≤ 1 ≤ max (%v) ≤ 10", d.Min, d.Max)
	}
	return errors.Join(errs...)
}
