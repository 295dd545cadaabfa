package config

import (
	"os"
	"path/filepath"
	"testing"
)

// A boolean for a float key is no number, as it is not for an int key
// (wholeNumberHook refuses "retries: true").
func TestBoolIsNotAFloat(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	for _, y := range []string{"crawl:\n  claim_ratio: true\n", "refresh:\n  hub_min_score: true\n"} {
		if err := os.WriteFile(file, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(file, nil)
		if err == nil {
			t.Errorf("%q loaded without error: claim_ratio %v, hub_min_score %v", y, c.Crawl.ClaimRatio, c.Refresh.HubMinScore)
		}
	}
}

// An environment value with a leading zero is what it looks like, or an
// error, as in the file (checkFileShape refuses "batch_size: 010").
func TestEnvLeadingZero(t *testing.T) {
	t.Run("env", func(t *testing.T) {
		t.Setenv("FOCUSCRAWL_CRAWL_BATCH_SIZE", "010")
		c, err := Load("", nil)
		if err == nil && c.Crawl.BatchSize != 10 {
			t.Errorf("FOCUSCRAWL_CRAWL_BATCH_SIZE=010 loaded as %d without error", c.Crawl.BatchSize)
		}
	})
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte("crawl:\n  batch_size: \"010\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil)
	if err == nil && c.Crawl.BatchSize != 10 {
		t.Errorf("batch_size: \"010\" loaded as %d without error", c.Crawl.BatchSize)
	}
}
