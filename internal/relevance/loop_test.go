package relevance

import (
	"fmt"
	"strings"
	"testing"

	"focuscrawl/internal/decision"
	"focuscrawl/internal/topic"
)

// hashWithDraw finds a URL hash whose tunnel draw under seed is below
// (keep) or at/above (drop) p, so the table below can name both cases.
func hashWithDraw(t *testing.T, seed int64, p float64, keep bool) string {
	t.Helper()
	for i := range 10000 {
		h := fmt.Sprintf("h%d", i)
		if (TunnelDraw(seed, h) < p) == keep {
			return h
		}
	}
	t.Fatal("no hash found")
	return ""
}

func TestLoopPolicy(t *testing.T) {
	detail := PageShape{PlainWords: 400, TotalWords: 420, Links: 3}
	hub := PageShape{PlainWords: 20, TotalWords: 300, Links: 60}
	topical := PageShape{PlainWords: 20, TotalWords: 300, Links: 60, BestLink: 0.25}
	kept := hashWithDraw(t, 7, 0.2, true)
	dropped := hashWithDraw(t, 7, 0.2, false)
	yes := Verdict{Relevant: true, Score: 0.5, Reason: "cosine 0.50"}
	no := Verdict{Relevant: false, Score: 0.01, Reason: "cosine 0.01"}
	cases := []struct {
		name     string
		lp       LoopPolicy
		v        Verdict
		hash     string
		depth    int
		shape    PageShape
		decision string
		expand   bool
	}{
		{"prune: rejected page not expanded", LoopPolicy{Prune: true, Tunnel: 0.2, Seed: 7}, no, dropped, 2, hub, decision.Rejected, false},
		{"prune: tunnel draw keeps a rejected page", LoopPolicy{Prune: true, Tunnel: 0.2, Seed: 7}, no, kept, 2, hub, decision.Tunnel, true},
		{"prune: accepted page expanded", LoopPolicy{Prune: true, Tunnel: 0.2, Seed: 7}, yes, dropped, 2, detail, decision.Accepted, true},
		{"prune: rejected seed page still expanded", LoopPolicy{Prune: true, Tunnel: 0.2, Seed: 7}, no, dropped, 0, hub, decision.Rejected, true},
		{"prune, no tunnel: nothing kept", LoopPolicy{Prune: true, Seed: 7}, no, kept, 3, hub, decision.Rejected, false},
		{"no prune (ablation): rejected page expanded", LoopPolicy{Tunnel: 0.2, Seed: 7}, no, dropped, 2, hub, decision.Rejected, true},
		{"no prune: tunnel still recorded", LoopPolicy{Tunnel: 0.2, Seed: 7}, no, kept, 2, hub, decision.Tunnel, true},
		{"detail_page: target page stored, not expanded", LoopPolicy{DetailPage: true}, yes, dropped, 2, detail, decision.Accepted, false},
		{"detail_page: relevant hub expanded", LoopPolicy{DetailPage: true}, yes, dropped, 2, hub, decision.Accepted, true},
		{"detail_page: irrelevant page pruned even without prune", LoopPolicy{DetailPage: true}, no, dropped, 2, hub, decision.Rejected, false},
		// Topical hubs: a rejected page whose best out-link text reaches
		// Hub is expanded whatever the draw; below Hub the draw decides.
		{"hub: topical hub expanded", LoopPolicy{Prune: true, Tunnel: 0.2, Seed: 7, Hub: 0.2}, no, dropped, 2, topical, decision.Tunnel, true},
		{"hub: weak links, draw drops it", LoopPolicy{Prune: true, Tunnel: 0.2, Seed: 7, Hub: 0.3}, no, dropped, 2, topical, decision.Rejected, false},
		{"hub: off (0) ignores the links", LoopPolicy{Prune: true, Tunnel: 0.2, Seed: 7}, no, dropped, 2, topical, decision.Rejected, false},
		{"hub: a relevant page stays accepted", LoopPolicy{Prune: true, Seed: 7, Hub: 0.2}, yes, dropped, 2, topical, decision.Accepted, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, reason := tc.lp.Decide(tc.v, tc.hash, tc.shape)
			if d != tc.decision {
				t.Fatalf("decision %q (%s), want %q", d, reason, tc.decision)
			}
			if strings.HasPrefix(tc.name, "hub: topical") && !strings.Contains(reason, "topical hub") {
				t.Errorf("reason %q does not name the topical hub", reason)
			}
			if !strings.HasPrefix(reason, tc.v.Reason) {
				t.Errorf("reason %q lost the filter's reason %q", reason, tc.v.Reason)
			}
			if got := tc.lp.Expand(d, tc.depth, tc.shape); got != tc.expand {
				t.Errorf("Expand(%s, depth %d) = %v, want %v", d, tc.depth, got, tc.expand)
			}
		})
	}
	for _, d := range []string{decision.Duplicate, decision.Error, ""} {
		if (LoopPolicy{}).Expand(d, 0, hub) {
			t.Errorf("decision %q expanded", d)
		}
	}
}

func TestLoopPolicyOfTopicDefaults(t *testing.T) {
	cases := []struct {
		strategy string
		want     LoopPolicy
	}{
		{"{seed: 3}", LoopPolicy{Prune: true, Tunnel: topic.DefaultTunnel, Seed: 3, Hub: topic.DefaultHub}},
		{"{prune: false}", LoopPolicy{Prune: false, Tunnel: topic.DefaultTunnel, Hub: topic.DefaultHub}},
		{"{tunnel: 0}", LoopPolicy{Prune: true, Tunnel: 0, Hub: topic.DefaultHub}},
		{"{tunnel: 0.5, detail_page: true}", LoopPolicy{Prune: true, Tunnel: 0.5, DetailPage: true, Hub: topic.DefaultHub}},
		{"{hub: 0.3}", LoopPolicy{Prune: true, Tunnel: topic.DefaultTunnel, Hub: 0.3}},
	}
	for _, tc := range cases {
		tp, err := topic.Parse([]byte("name: t\nkeywords: {a: 1}\nseeds: [http://x/]\nstrategy: " + tc.strategy + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := LoopPolicyOf(tp); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.strategy, got, tc.want)
		}
	}
}
