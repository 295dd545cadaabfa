// Package baseline holds the two reference crawlers of the focus
// evaluation: breadth-first search and a plain best-first crawler. They are
// deliberately small (the crawl loop is one function) so that the bar the
// focused crawler must clear is easy to check: no learning, no pruning, no
// page filter, one thread, and a deterministic order (ties broken by
// discovery order), so one run is every run.
//
// Both fetch over HTTP from the same loopback servers as focuscrawl (the
// client dials through a resolve map like fetch.resolve) and return their
// fetches as crawl log entries, scored by package metrics like any crawl.
// Text goes through the project's one parser (internal/parse), tokenizer
// (internal/textproc) and topic model (internal/topic).
package baseline

import (
	"container/heap"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// Options configure a baseline crawl.
type Options struct {
	Budget  int               // fetches, failed ones included
	Resolve map[string]string // "host:port" or "host" → loopback "ip:port"
	Roots   *x509.CertPool    // trusted roots for HTTPS (the off-site server's); nil: system roots
}

// Scorer turns text into its cosine to the topic.
type Scorer interface {
	Cosine(text string) float64
}

// BFS crawls breadth-first from seeds: first discovered, first fetched.
func BFS(ctx context.Context, seeds []string, opt Options) []crawllog.Entry {
	return crawl(ctx, seeds, opt, nil)
}

// BestFirst crawls best-first from seeds. A link's priority is the mean of
// the cosine of its anchor text plus surrounding text to the topic and the
// cosine of the page it was found on (the parent) to the topic; a link found
// again keeps its best priority.
func BestFirst(ctx context.Context, seeds []string, s Scorer, opt Options) []crawllog.Entry {
	return crawl(ctx, seeds, opt, s)
}

// crawl is the loop both crawlers share; s == nil means FIFO order.
func crawl(ctx context.Context, seeds []string, opt Options, s Scorer) []crawllog.Entry {
	client := newClient(opt)
	q := &queue{index: map[string]*item{}}
	for _, u := range seeds {
		q.offer(u, 1)
	}
	done := map[string]bool{}
	var log []crawllog.Entry
	for len(log) < opt.Budget && q.Len() > 0 && ctx.Err() == nil {
		it := heap.Pop(q).(*item)
		done[it.url] = true
		e := crawllog.Entry{Seq: int64(len(log) + 1), URL: it.url, FetchedAt: time.Now()}
		final, body, err := get(ctx, client, it.url)
		if err != nil {
			e.Error = err.Error()
			log = append(log, e)
			continue
		}
		e.FinalURL, e.Status = final, http.StatusOK
		done[final] = true
		log = append(log, e)
		doc, err := parse.Parse(final, body, parse.Options{})
		if err != nil {
			continue
		}
		parent := 0.0
		if s != nil {
			parent = s.Cosine(doc.Title + " " + doc.Text)
		}
		for _, l := range doc.Links {
			if done[l.URL] {
				continue
			}
			p := 0.0 // BFS: every link equal, discovery order decides
			if s != nil {
				p = (s.Cosine(l.Anchor+" "+l.Title+" "+l.Alt+" "+l.Context) + parent) / 2
			}
			q.offer(l.URL, p)
		}
	}
	return log
}

// TopicScorer scores text against a topic's compiled term vector (keywords
// and description, as topic.BuildModel compiles them; no samples, no IDF).
type TopicScorer struct {
	tc    topic.TermCounter
	model vsm.Vector
}

// NewTopicScorer compiles t with the project tokenizer tc.
func NewTopicScorer(t *topic.Topic, tc topic.TermCounter) *TopicScorer {
	return &TopicScorer{tc: tc, model: vsm.FromWeights(topic.BuildModel(t, 1, tc, nil).Terms, vsm.Flat)}
}

// Cosine is the cosine of text's term frequencies to the topic vector.
func (t *TopicScorer) Cosine(text string) float64 {
	return vsm.Cosine(vsm.FromTF(t.tc.TermFreq(text), vsm.Flat), t.model)
}

func newClient(opt Options) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				host, _, _ := net.SplitHostPort(addr)
				if t, ok := opt.Resolve[strings.ToLower(addr)]; ok {
					addr = t
				} else if t, ok := opt.Resolve[strings.ToLower(host)]; ok {
					addr = t
				} else {
					return nil, &net.AddrError{Err: "not on the loopback web", Addr: addr}
				}
				return d.DialContext(ctx, network, addr)
			},
			TLSClientConfig: &tls.Config{RootCAs: opt.Roots, MinVersion: tls.VersionTLS12},
		},
	}
}

// get fetches an HTML page; anything else (non-2xx, not HTML) is an error.
func get(ctx context.Context, c *http.Client, u string) (final string, body []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", nil, &statusError{resp.Status}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "html") {
		return "", nil, &statusError{"not HTML: " + ct}
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.Request.URL.String(), body, err
}

type statusError struct{ s string }

func (e *statusError) Error() string { return e.s }

// item is a frontier URL.
type item struct {
	url      string
	priority float64
	seq      int // discovery order: the tie-break, and BFS's whole order
	pos      int // heap index
}

// queue is the frontier: a max-heap on priority, then earliest discovery.
type queue struct {
	items []*item
	index map[string]*item
	seq   int
}

// offer adds u, or raises its priority if it is queued with a lower one.
func (q *queue) offer(u string, p float64) {
	if it, ok := q.index[u]; ok {
		if p > it.priority && it.pos >= 0 {
			it.priority = p
			heap.Fix(q, it.pos)
		}
		return
	}
	q.seq++
	it := &item{url: u, priority: p, seq: q.seq}
	q.index[u] = it
	heap.Push(q, it)
}

func (q *queue) Len() int { return len(q.items) }
func (q *queue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	return a.seq < b.seq
}
func (q *queue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].pos, q.items[j].pos = i, j
}
func (q *queue) Push(x any) {
	it := x.(*item)
	it.pos = len(q.items)
	q.items = append(q.items, it)
}
func (q *queue) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	it.pos = -1
	return it
}
