// Package elasticsearch holds the Elasticsearch index template focuscrawl owns
// (index-template.json, embedded here so the binary and the deploy directory
// can never disagree). internal/index/elastic installs it; operators can also
// install it by hand:
//
//	curl -XPUT "$ES/_index_template/focuscrawl" -H 'Content-Type: application/json' \
//	  -d "$(jq '. + {index_patterns: ["focuscrawl-idx-*"]}' index-template.json)"
//
// The template leaves out index_patterns on purpose: the pattern follows the
// configured index prefix (index.elasticsearch.index_prefix), so the code
// adds it when installing the template.
//
// Mapping: url, host, topic, lang and id are keywords; title, content and
// anchor_texts keep the original text (title is searchable with the standard
// analyzer for ad-hoc use in Kibana; content and anchor_texts are stored
// only, for snippets; link_spans, stored only, says where content is link
// text, index.EncodeSpans). The *_terms fields hold the same text cut into terms
// by focuscrawl's own tokenizer (textproc: gojieba for Chinese) and joined by
// spaces; they are analysed by "focuscrawl_terms", which splits them where
// SQLite FTS5's unicode61 tokenizer does (at every character that is no
// letter, digit or private-use character: "e-mail" is the phrase "e mail";
// but for "+" and "#", textproc.ProtectedSymbols, FTS5's token characters
// too, which occur in terms only in "c++", "c#" and "f#")
// and folds case and diacritics ("cafe" finds "café"), so both backends
// match the same documents for a query but for what asciifolding folds
// besides diacritics (ß to ss, æ to ae, ligatures, full-width letters); a vanilla Elasticsearch needs no Chinese analysis
// plugin, and documents and queries are segmented by exactly the same code.
// (Before 2026-11-27 a whitespace tokenizer kept "e-mail" whole and accents
// apart, and before 2026-11-28 the pattern split "c++" to "c": an index
// created then keeps that analyzer until it is rebuilt.)
// relevance, hub, authority and ipagerank are doubles used in ranking;
// fetched_at is a date. "dynamic": "strict" makes a document with an
// unexpected field fail loudly instead of growing the mapping.
package elasticsearch

import _ "embed"

// IndexTemplate is the composable index template body, without
// index_patterns.
//
//go:embed index-template.json
var IndexTemplate []byte
