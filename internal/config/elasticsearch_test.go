package config

import (
	"strings"
	"testing"
)

func TestElasticsearchSettingsAreCheckedOnlyWhenSelected(t *testing.T) {
	t.Setenv("FOCUSCRAWL_INDEX_ELASTICSEARCH_ADDRESSES", "localhost:9200")
	if _, err := Load("", nil); err != nil {
		t.Fatalf("sqlite driver with a bad ES address should load: %v", err)
	}
	t.Setenv("FOCUSCRAWL_INDEX_DRIVER", "elasticsearch")
	tests := []struct{ env, val, want string }{
		{"FOCUSCRAWL_INDEX_ELASTICSEARCH_ADDRESSES", "localhost:9200", "index.elasticsearch.addresses"},
		{"FOCUSCRAWL_INDEX_ELASTICSEARCH_INDEX_PREFIX", "Focus Crawl", "index.elasticsearch.index_prefix"},
		{"FOCUSCRAWL_INDEX_ELASTICSEARCH_REQUEST_TIMEOUT", "0s", "index.elasticsearch.request_timeout"},
		{"FOCUSCRAWL_INDEX_ELASTICSEARCH_USERNAME", "elastic", "index.elasticsearch.username"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Setenv("FOCUSCRAWL_INDEX_ELASTICSEARCH_ADDRESSES", "http://a:9200,https://b:9200")
			t.Setenv(tt.env, tt.val)
			_, err := Load("", nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s=%q: error %v, want it to name %s", tt.env, tt.val, err, tt.want)
			}
		})
	}
	t.Setenv("FOCUSCRAWL_INDEX_ELASTICSEARCH_ADDRESSES", "http://a:9200,https://b:9200")
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Index.Elasticsearch.Addresses; len(got) != 2 || got[1] != "https://b:9200" {
		t.Errorf("addresses from env = %q", got)
	}
}
