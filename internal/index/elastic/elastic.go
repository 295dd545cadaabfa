// Package elastic is focuscrawl's production search index: an index.Index
// stored in Elasticsearch 8 through the official client
// (github.com/elastic/go-elasticsearch/v8). It behaves like the embedded
// sqlitefts backend — same documents, same query language (index.ParseQuery),
// same result shape and snippets (index.Snippet) — so the search service and
// the crawl activities work identically on both.
//
// # Indices and aliases
//
// Each topic has its own concrete index, PREFIX-idx-TOPIC-NNNNNN, reached
// only through two aliases: PREFIX-topic-TOPIC (the topic's write and search
// alias) and PREFIX-all (every topic, searched when no topic filter is
// given). The mapping comes from the index template the project owns
// (deploy/elasticsearch/index-template.json), installed by Open for the
// pattern PREFIX-idx-*. Rebuild copies a topic into the next NNNNNN index and
// moves both aliases in one atomic _aliases call, so searches never see a
// missing or half-filled topic. Writes go to the alias with require_alias,
// so a missing alias fails loudly instead of auto-creating an unmapped index.
//
// # Documents
//
// The document _id is the index.Document ID (urlnorm.Hash of the normalised
// URL), inside the topic's index: re-sending a document after a retry
// replaces it and never duplicates it. Title, text and anchor texts are
// stored twice: as given (title, content, anchor_texts — snippets are cut
// from content) and cut into terms by the index's Segmenter
// (textproc.Shared() in production), in title_terms, content_terms and
// anchor_terms, which the template analyses as sqlitefts's unicode61 does
// (split at non-word characters but for textproc.ProtectedSymbols, so that
// "c++" and "c#" stay whole; case and diacritics folded: the two
// backends match alike, but for the few more characters asciifolding folds). Elasticsearch therefore needs no Chinese analysis plugin, and
// documents and queries are segmented by exactly the same code. Scores are
// checked and clamped as sqlitefts does: NaN or infinite scores are refused,
// relevance is clamped into [0,1], negative link scores become 0.
//
// Upsert and Delete use esutil.BulkIndexer. A bulk request is not a
// transaction: when some items fail, the others are written and the error
// lists the failures. That is safe for focuscrawl's callers, which retry the
// whole call and rely on idempotence by (topic, ID), but it is weaker than
// sqlitefts' all-or-none.
//
// # Search
//
// Every term from index.ParseQuery must match (a multi_match of type
// most_fields over title_terms^4, content_terms and anchor_terms^2: the same
// column weights as sqlitefts; of type phrase for a term the analyzer cuts
// in two, "e-mail"), every phrase must match as a phrase (a Han phrase
// with a slop, index.HanPhrases), and a Han word a page may hold inside a
// longer word as itself or as a phrase of its parts with a slop
// (index.HanWords); topic
// and host are keyword filters. Queries are built only from ParseQuery's
// output and sent as match queries, which have no syntax of their own: no
// user-supplied query DSL or query_string ever reaches Elasticsearch. The
// ranking is a script_score with a fixed script:
//
//	score = _score × (0.5 + relevance) × (1 + authority)
//
// where _score is Elasticsearch's BM25 (k1 1.2, b 0.75) — the formula of
// sqlitefts, so both backends rank alike (the BM25 statistics differ: per
// topic index and shard here, whole index there). Ties break by topic and ID
// for stable paging. Snippets are cut by index.Snippet from the stored
// original text rather than by Elasticsearch's highlighter, because the
// highlighter can only mark the segmented *_terms fields, whose text has
// spaces inserted between Chinese words; index.Snippet gives byte-identical
// snippets on both backends.
package elastic

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"

	estemplate "focuscrawl/deploy/elasticsearch"
	"focuscrawl/internal/index"
)

// Config says how to reach the cluster and how to name indices.
type Config struct {
	// Addresses are the cluster's node URLs (http:// or https://).
	Addresses []string
	// APIKey is a base64-encoded API key ("id:key" encoded, as
	// Elasticsearch returns it in "encoded"). It wins over Username/Password.
	APIKey string
	// Username and Password are for HTTP basic authentication.
	Username, Password string
	// CACert is the path of a PEM file with the certificate authorities to
	// trust for https addresses; "" trusts the system roots.
	CACert string
	// InsecureSkipVerify disables TLS certificate verification. For tests
	// and throw-away clusters only.
	InsecureSkipVerify bool
	// RequestTimeout bounds each call to the cluster (a bulk request, a
	// search, ...); 0 means 30 s.
	RequestTimeout time.Duration
	// IndexPrefix starts every index, alias and template name; "" means
	// "focuscrawl".
	IndexPrefix string
	// MaxRetries is how often the client retries a request on 502, 503,
	// 504 or a network error; 0 means the client's default (3).
	MaxRetries int
	// Refresh is the bulk API's refresh parameter: "" (default: documents
	// become searchable within the index's refresh interval, 1 s),
	// "wait_for" or "true". Tests use "wait_for".
	Refresh string
	// Transport replaces the HTTP transport (tests); when set, CACert and
	// InsecureSkipVerify are not used.
	Transport http.RoundTripper
	// ReadOnly opens the index for searching only (`search serve`, `search
	// query`): Open installs no template and updates no mapping, and every
	// write (Upsert, Delete, UpdateScores, Reindex) fails with
	// ErrReadOnly. A public search service then needs only the read
	// privilege on PREFIX-* (and its older binary, restarted during a
	// rolling upgrade, cannot put an older template back). Before, it
	// wrote the template at every start, so it needed the cluster's
	// manage privileges.
	ReadOnly bool
}

// ErrReadOnly is what a write to an index opened with Config.ReadOnly
// returns.
var ErrReadOnly = errors.New("elastic: the index was opened read-only (searching only)")

// DefaultPrefix is the index prefix used when Config.IndexPrefix is "".
const DefaultPrefix = "focuscrawl"

// defaultTimeout is the per-request timeout used when Config.RequestTimeout is 0.
const defaultTimeout = 30 * time.Second

// prefixRE is what Elasticsearch accepts at the start of an index name,
// restricted further to keep names readable.
var prefixRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// topicRE mirrors topic names (internal/topic): lower-case, no separators
// Elasticsearch rejects. "." and ".." cannot occur after the prefix.
var topicRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// Index is an index.Index stored in Elasticsearch. It is safe for concurrent
// use.
type Index struct {
	es      *elasticsearch.Client
	seg     index.Segmenter
	prefix  string
	timeout time.Duration
	refresh string
	// pollEvery is how often Reindex asks whether its copy task is done
	// (tests set it to 0).
	pollEvery time.Duration

	ready sync.Map // topic → struct{}: its alias is known to exist
	// spansErr is why the link_spans field could not be added to the
	// existing indices (addFields); documents are then written without
	// it, since a strict mapping without the field refuses them.
	spansErr error
	// readOnly: opened for searching only (Config.ReadOnly).
	readOnly bool
}

var _ index.Index = (*Index)(nil)

// Open connects to the cluster cfg describes and installs (or updates) the
// project's index template. seg segments documents and queries; give it the
// project's one tokenizer (textproc.Shared()).
func Open(ctx context.Context, cfg Config, seg index.Segmenter) (*Index, error) {
	if seg == nil {
		return nil, errors.New("elastic: Open needs a Segmenter, got nil")
	}
	if len(cfg.Addresses) == 0 {
		return nil, errors.New("elastic: Open needs at least one address")
	}
	for _, a := range cfg.Addresses {
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("elastic: address %q is not an http(s) URL", a)
		}
	}
	prefix := cfg.IndexPrefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if !prefixRE.MatchString(prefix) {
		return nil, fmt.Errorf("elastic: index prefix %q must match %s", prefix, prefixRE)
	}
	switch cfg.Refresh {
	case "", "true", "false", "wait_for":
	default:
		return nil, fmt.Errorf("elastic: refresh %q is not one of \"\", true, false, wait_for", cfg.Refresh)
	}
	timeout := cfg.RequestTimeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	tr := cfg.Transport
	if tr == nil {
		t, err := newTransport(cfg, timeout)
		if err != nil {
			return nil, err
		}
		tr = t
	}
	esCfg := elasticsearch.Config{
		Addresses: cfg.Addresses,
		APIKey:    cfg.APIKey,
		Transport: tr,
		MaxRetries: func() int {
			if cfg.MaxRetries > 0 {
				return cfg.MaxRetries
			}
			return 3
		}(),
	}
	if cfg.APIKey == "" {
		esCfg.Username, esCfg.Password = cfg.Username, cfg.Password
	}
	es, err := elasticsearch.NewClient(esCfg)
	if err != nil {
		return nil, fmt.Errorf("elastic: client: %w", err)
	}
	x := &Index{es: es, seg: seg, prefix: prefix, timeout: timeout, refresh: cfg.Refresh, pollEvery: time.Second,
		readOnly: cfg.ReadOnly}
	if x.readOnly {
		// A count of the prefix's documents, so an unreachable cluster, bad
		// credentials or a key without read access fail at start-up.
		// Without ignore_unavailable (which Count and Search send): with
		// it a key lacking the read privilege gets 0 instead of a 403, and
		// every search would then come back empty (a review). A cluster
		// with no index yet answers 404, which is fine.
		_, err := x.do(ctx, "check read access", esapi.CountRequest{Index: []string{x.allAlias()}, AllowNoIndices: truthy()})
		if err != nil && !isStatus(err, 404, "index_not_found_exception") {
			return nil, err
		}
		return x, nil
	}
	if err := x.installTemplate(ctx); err != nil {
		return nil, err
	}
	// A cluster that refuses the mapping update (a role without the
	// manage privilege, a read-only index) still serves searches and
	// takes documents, only without link spans.
	x.spansErr = x.addFields(ctx)
	return x, nil
}

// SpansUnavailable is why documents are written without link spans (their
// snippets then chosen among all matches), or nil when they carry them.
func (x *Index) SpansUnavailable() error { return x.spansErr }

// newTransport builds the HTTP transport: TLS roots and verification from
// cfg, and dial/TLS/response-header timeouts bounded by the request timeout.
func newTransport(cfg Config, timeout time.Duration) (*http.Transport, error) {
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify} //nolint:gosec // opt-in, documented
	if cfg.CACert != "" {
		pem, err := os.ReadFile(cfg.CACert)
		if err != nil {
			return nil, fmt.Errorf("elastic: CA certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("elastic: CA certificate %s holds no PEM certificate", cfg.CACert)
		}
		tlsCfg.RootCAs = pool
	}
	dialTimeout := min(timeout, 10*time.Second)
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
	}, nil
}

// Names of the template, indices and aliases.

func (x *Index) templateName() string       { return x.prefix }
func (x *Index) indexPattern() string       { return x.prefix + "-idx-*" }
func (x *Index) allAlias() string           { return x.prefix + "-all" }
func (x *Index) topicAlias(t string) string { return x.prefix + "-topic-" + t }

// topicIndex is the name of version v of a topic's concrete index.
func (x *Index) topicIndex(t string, v int) string {
	return fmt.Sprintf("%s-idx-%s-%06d", x.prefix, t, v)
}

// TopicAlias returns the alias through which topic is written and searched.
func (x *Index) TopicAlias(topic string) string { return x.topicAlias(topic) }

func checkTopic(t string) error {
	if !topicRE.MatchString(t) {
		return fmt.Errorf("topic %q is not a valid topic name", t)
	}
	return nil
}

// installTemplate puts the project's index template for the prefix's pattern.
func (x *Index) installTemplate(ctx context.Context) error {
	var tmpl map[string]any
	if err := json.Unmarshal(estemplate.IndexTemplate, &tmpl); err != nil {
		return fmt.Errorf("elastic: embedded index template: %w", err)
	}
	tmpl["index_patterns"] = []string{x.indexPattern()}
	body, err := json.Marshal(tmpl)
	if err != nil {
		return err
	}
	_, err = x.do(ctx, "install index template "+x.templateName(), esapi.IndicesPutIndexTemplateRequest{
		Name: x.templateName(), Body: bytes.NewReader(body),
	})
	return err
}

// addedFields are the template's fields added after its first version, in
// order: an index's mapping is fixed when the index is created, and its
// "dynamic": "strict" refuses a document with a field the mapping lacks.
var addedFields = []string{"link_spans"}

// addFields adds addedFields, as the template defines them, to the mappings
// of the prefix's indices, closed ones included (adding a field to a live
// index is allowed; one that has it already is left as it is). No index yet
// is no error (allow_no_indices). It needs the manage index privilege, and
// an index blocked for metadata writes (read-only) fails the whole request.
func (x *Index) addFields(ctx context.Context) error {
	props, err := addedMappings()
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"properties": props})
	if err != nil {
		return err
	}
	_, err = x.do(ctx, "add fields "+strings.Join(addedFields, ", ")+" to the indices "+x.indexPattern(), esapi.IndicesPutMappingRequest{
		Index: []string{x.indexPattern()}, Body: bytes.NewReader(body), AllowNoIndices: truthy(),
	})
	return err
}

// addedMappings are addedFields' definitions in the embedded template.
// New topic indices are created with them too: during a rolling upgrade an
// older binary's Open may have put back a template without them.
func addedMappings() (map[string]json.RawMessage, error) {
	var tmpl struct {
		Template struct {
			Mappings struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"mappings"`
		} `json:"template"`
	}
	if err := json.Unmarshal(estemplate.IndexTemplate, &tmpl); err != nil {
		return nil, fmt.Errorf("elastic: embedded index template: %w", err)
	}
	props := map[string]json.RawMessage{}
	for _, f := range addedFields {
		def, ok := tmpl.Template.Mappings.Properties[f]
		if !ok {
			return nil, fmt.Errorf("elastic: embedded index template has no field %q", f)
		}
		props[f] = def
	}
	return props, nil
}

// Close releases idle connections. The cluster keeps the data.
func (x *Index) Close() error {
	if t, ok := x.es.Transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	return nil
}

// esError is the error body of an Elasticsearch response.
type esError struct {
	Error struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
	Status int `json:"status"`
}

// statusError is a non-2xx answer from the cluster.
type statusError struct {
	op, typ, reason string
	status          int
}

func (e *statusError) Error() string {
	if e.typ == "" {
		return fmt.Sprintf("elastic: %s: HTTP %d", e.op, e.status)
	}
	return fmt.Sprintf("elastic: %s: HTTP %d: %s: %s", e.op, e.status, e.typ, e.reason)
}

func isStatus(err error, status int, typ string) bool {
	var se *statusError
	return errors.As(err, &se) && se.status == status && (typ == "" || se.typ == typ)
}

// do performs req within the request timeout and returns the response body.
// A non-2xx status becomes a *statusError carrying Elasticsearch's error
// type and reason.
func (x *Index) do(ctx context.Context, op string, req esapi.Request) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	res, err := req.Do(ctx, x.es)
	if err != nil {
		return nil, fmt.Errorf("elastic: %s: %w", op, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("elastic: %s: read response: %w", op, err)
	}
	if res.IsError() {
		se := &statusError{op: op, status: res.StatusCode}
		var e esError
		if json.Unmarshal(body, &e) == nil {
			se.typ, se.reason = e.Error.Type, e.Error.Reason
		}
		return body, se
	}
	return body, nil
}

// truthy is a *bool for esapi's optional parameters.
func truthy() *bool { t := true; return &t }

// falsy is truthy's false.
func falsy() *bool { f := false; return &f }
