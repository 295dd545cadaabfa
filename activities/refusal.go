package activities

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"

	"focuscrawl/internal/fetch"
)

// A 401 or 403 a revisit gets means one of two things. Either the page now
// needs a login, or refuses this crawler, while its host serves the rest:
// the page is gone for this crawler and leaves the index (goneStatus). Or
// the host refuses this crawler everything — a web application firewall or
// a bot filter that took a dislike to it, often for a while — and every
// page of the host answers so: taken for gone, a refresh emptied the
// topic's index of the host's pages, each dropped and soon given up.
// servingHosts tells the two apart per refresh batch, from what the host
// answered the batch's other revisits or, failing that, one request for its
// root page: a host that refuses its root page too refuses the crawler, and
// its pages count as unreachable (kept; out of the index only after
// refresh.drop_unreachable_after, back when the host answers again).

// servingHosts records, per host of one refresh batch, whether the host
// serves this crawler (true) or refuses it everything (false).
type servingHosts struct {
	mu sync.Mutex
	m  map[string]bool
}

func newServingHosts() *servingHosts { return &servingHosts{m: map[string]bool{}} }

// served records that host answered a revisit with a page or a 304.
func (s *servingHosts) served(host string) {
	s.mu.Lock()
	s.m[host] = true
	s.mu.Unlock()
}

func (s *servingHosts) known(host string) (serves, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	serves, ok = s.m[host]
	return serves, ok
}

func (s *servingHosts) set(host string, serves bool) {
	s.mu.Lock()
	s.m[host] = serves
	s.mu.Unlock()
}

// refusalStatus reports whether err is an answer that refuses the request
// (401, 403).
func refusalStatus(err error) bool {
	var fe *fetch.Error
	return errors.As(err, &fe) && (fe.Status == http.StatusUnauthorized || fe.Status == http.StatusForbidden)
}

// hostRefuses reports whether host, one of whose pages (pageURL) a revisit
// got a refusal for, refuses this crawler everything: nothing the batch
// asked it answered otherwise, and its root page is refused too (or it
// does not answer: nothing tells the page's refusal from the host's then,
// and the page is kept). The root page is asked for once per host and
// batch, through the host's politeness slot, and only when the batch has
// no better evidence; a host whose root page answers anything but a
// refusal — a page, a redirect, a 404 — serves the crawler.
func (a *Activities) hostRefuses(ctx context.Context, hosts *servingHosts, host, pageURL string) (bool, error) {
	if serves, ok := hosts.known(host); ok {
		return !serves, nil
	}
	u, err := url.Parse(pageURL)
	if err != nil {
		return false, nil // never stored so: the page's own answer decides
	}
	root := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String()
	_, perr := a.politeDoHolding(ctx, host, fetch.Request{URL: root})
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if heldUnsent(perr) {
		return true, nil // not asked: keep the page this time, ask at its next revisit
	}
	refuses := refusalStatus(perr) || hostDown(perr)
	hosts.set(host, !refuses)
	if refuses {
		a.Log.Warn("refresh: host refuses this crawler (its root page too): its refused pages are kept, counted as unreachable",
			"host", host, "page", pageURL, "root", root, "root_error", errString(perr))
	}
	return refuses, nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
