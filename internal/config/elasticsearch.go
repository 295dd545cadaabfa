package config

import (
	"net/url"
	"regexp"
)

// esPrefixRE is what index.elasticsearch.index_prefix may look like: the
// start of an Elasticsearch index name, kept readable.
var esPrefixRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// validateElasticsearch checks the index.elasticsearch section; it is only
// consulted when index.driver is "elasticsearch".
func validateElasticsearch(e Elasticsearch, bad func(key, format string, args ...any)) {
	if len(e.Addresses) == 0 {
		bad("index.elasticsearch.addresses", "must list at least one node URL")
	}
	for _, a := range e.Addresses {
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("index.elasticsearch.addresses", "%q is not an http:// or https:// URL", a)
		}
	}
	if e.RequestTimeout <= 0 {
		bad("index.elasticsearch.request_timeout", "must be a positive duration, got %s", e.RequestTimeout)
	}
	if e.MaxRetries < 0 || e.MaxRetries > 10 {
		bad("index.elasticsearch.max_retries", "must be between 0 and 10, got %d", e.MaxRetries)
	}
	if !esPrefixRE.MatchString(e.IndexPrefix) {
		bad("index.elasticsearch.index_prefix", "%q must be lower-case letters, digits, '-' or '_' (at most 64)", e.IndexPrefix)
	}
	if (e.Username == "") != (e.Password == "") {
		bad("index.elasticsearch.username", "username and password must be set together")
	}
}
