package pagemodel

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/textproc"
)

func TestDump(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	specs, _ := focus.Select("tune", nil)
	tok := textproc.Shared()
	for _, s := range specs {
		c, err := focus.Load("../../../var/corpus", "../../..", s)
		if err != nil {
			t.Fatal(err)
		}
		for _, tp := range c.Topics {
			cr, err := Load(c, tp, "../../../var/eval-hub/focus/logs/"+tp.Name+"-default-1.jsonl", tok)
			if err != nil {
				t.Fatal(err)
			}
			sc := Replay(cr, Scorers()[0], tok)
			idx := []int{}
			for i := range sc {
				if sc[i] > 0.005 {
					idx = append(idx, i)
				}
			}
			sort.Slice(idx, func(a, b int) bool { return sc[idx[a]] > sc[idx[b]] })
			fmt.Printf("%s targets=%d fetched=%d\n", tp.Name, cr.Targets, len(cr.Docs))
			for _, i := range idx {
				m := "."
				if cr.Docs[i].Target {
					m = "T"
				}
				fmt.Printf("%s%.3f ", m, sc[i])
			}
			fmt.Println()
		}
	}
}
