package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad loads arbitrary config files: Load must never panic, and a file
// it accepts must give a configuration that validates, with no negative
// durations.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"fetch:\n  host_delay: 2s\n",
		"fetch:\n  host_delay: 2\n",
		"fetch:\n  robots_ttl: 86400\n  max_body_bytes: 9223372036854775807\n",
		"refresh:\n  hub_min_score: .nan\n",
		"crawl:\n  batch_size: 7\n  calendar_past_years: 3\n",
		"fetch:\n  resolve: {\"*.test\": 127.0.0.1:8089}\n",
		"{",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(file, nil)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Load accepted a config that does not validate: %v", err)
		}
		if c.Fetch.HostDelay < 0 || c.Fetch.RobotsTTL <= 0 || c.Fetch.MaxFetchTime <= 0 {
			t.Fatalf("bad durations accepted: %+v", c.Fetch)
		}
	})
}
