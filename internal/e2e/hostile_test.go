package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/traditionalchinese"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index/sqlitefts"
	"focuscrawl/internal/textproc"
)

// hostileSlowHop is how long each hop of the slow redirect chain takes; the
// worker's fetch.max_fetch_time (hostileMaxFetch) is shorter than the chain.
const (
	hostileSlowHop  = 300 * time.Millisecond
	hostileSlowHops = 10
	hostileMaxFetch = "1s"
)

var calendarRE = regexp.MustCompile(`^/cal/(\d{4})/(\d{2})/$`)

// newHostileSite is a web built to hurt a crawler (issue 16), on the hosts
// www.trap.test (in scope, the seed), www.rosen.test (in scope) and
// www.elsewhere.test (out of scope):
//
//   - an endless calendar: every month links to the month before and after;
//   - session IDs: the shop pages link to themselves under a fresh
//     ";jsessionid=", ASP.NET "(S(…))" and "utm_*" spelling on every request;
//   - Unicode spellings of the host (fullwidth letters, ideographic full stop);
//   - mislabelled and undeclared charsets: a UTF-8 page whose <meta> claims
//     UTF-16, undeclared Big5 and Shift_JIS pages;
//   - a chain of slow redirects, each hop well inside the read timeout;
//   - a redirect with an unparsable Location, and one that leaves the scope
//     for an on-topic page on another host;
//   - a 500 KiB robots.txt of pathological wildcard rules that also
//     disallows /private/.
func newHostileSite(t *testing.T) *testSite {
	t.Helper()
	s := &testSite{pages: map[string]sitePage{}}
	add := func(hostPath, html, contentType string, on bool) {
		s.pages[hostPath] = sitePage{body: []byte(html), contentType: contentType, status: 200}
		if on {
			s.onTopic = append(s.onTopic, "http://"+hostPath)
		}
	}
	now := time.Now()
	home := [][2]string{
		{fmt.Sprintf("/cal/%04d/%02d/", now.Year(), int(now.Month())), "events calendar"},
		{"/shop;jsessionid=FIRST0001?utm_source=home", "rose shop"},
		{"/slow/0", "slow archive"},
		{"/bad-location", "moved page"},
		{"/go-away", "partner roses"},
		{"/private/secret.html", "members only"},
		{"http://ｗｗｗ.ｔｒａｐ.test/roses/1.html", "rose care (fullwidth host)"},
		{"http://www.trap。test/roses/2.html", "rose care (ideographic full stop)"},
		{"http://www.rosen.test/", "繁體玫瑰"},
		{"http://www.rosen.test/nihon.html", "日本のページ"},
	}
	for i := 1; i <= 5; i++ {
		home = append(home, [2]string{fmt.Sprintf("/roses/%d.html", i), "rose care " + sentence(roseWords, i, 2, " ")})
	}
	add("www.trap.test/", htmlPage("Rose garden: growing roses", "", sentence(roseWords, 0, 60, " "), home), "text/html", true)
	for i := 1; i <= 5; i++ {
		meta := ""
		if i == 5 {
			// WHATWG: an ASCII-compatible document cannot be UTF-16; such a
			// declaration means UTF-8.
			meta = `<meta charset="utf-16">`
		}
		add(fmt.Sprintf("www.trap.test/roses/%d.html", i), htmlPage(fmt.Sprintf("Roses %d: %s", i, sentence(roseWords, i, 3, " ")), meta,
			sentence(roseWords, i, 80, " ")+" 玫瑰", [][2]string{{"/", "rose garden home"}}), "text/html", true)
	}
	add("www.trap.test/private/secret.html", htmlPage("Secret roses", "", sentence(roseWords, 2, 80, " "), nil), "text/html", false)
	add("www.elsewhere.test/roses.html", htmlPage("Roses elsewhere", "", sentence(roseWords, 4, 80, " "), nil), "text/html", false)
	s.pages["www.trap.test/go-away"] = sitePage{status: 302, location: "http://www.elsewhere.test/roses.html"}

	big5, err := traditionalchinese.Big5.NewEncoder().String(htmlPage("玫瑰花園：繁體中文頁面",
		"", strings.Repeat("這是一個沒有宣告編碼的繁體中文網頁，我們在臺灣種植玫瑰，說明修剪與澆水的方法。", 4), nil))
	if err != nil {
		t.Fatal(err)
	}
	s.pages["www.rosen.test/"] = sitePage{body: []byte(big5), contentType: "text/html", status: 200}
	sjis, err := japanese.ShiftJIS.NewEncoder().String(htmlPage("日本語のページ",
		"", strings.Repeat("これは文字コードを宣言していない日本語のページです。ひらがなとカタカナがあります。", 4), nil))
	if err != nil {
		t.Fatal(err)
	}
	s.pages["www.rosen.test/nihon.html"] = sitePage{body: []byte(sjis), contentType: "text/html", status: 200}

	var robots strings.Builder
	robots.WriteString("User-agent: *\nDisallow: /private/\n")
	for i := 0; robots.Len() < 500<<10-300; i++ {
		fmt.Fprintf(&robots, "Disallow: /*%s%d\n", strings.Repeat("a", 200), i)
	}
	s.pages["www.trap.test/robots.txt"] = sitePage{body: []byte(robots.String()), contentType: "text/plain", status: 200}

	var session atomic.Int64
	s.dynamic = func(w http.ResponseWriter, r *http.Request, host string) bool {
		if host != "www.trap.test" {
			return false
		}
		p := r.URL.Path
		switch {
		case calendarRE.MatchString(p):
			m := calendarRE.FindStringSubmatch(p)
			y, _ := strconv.Atoi(m[1])
			mo, _ := strconv.Atoi(m[2])
			d := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
			prev, next := d.AddDate(0, -1, 0), d.AddDate(0, 1, 0)
			links := [][2]string{
				{fmt.Sprintf("/cal/%04d/%02d/", prev.Year(), int(prev.Month())), "previous month"},
				{fmt.Sprintf("/cal/%04d/%02d/", next.Year(), int(next.Month())), "next month"},
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, htmlPage("Fixtures "+d.Format("January 2006"), "", sentence(sportWords, mo, 40, " "), links))
		case strings.HasPrefix(p, "/shop") || strings.HasSuffix(p, "/shop.aspx"):
			n := session.Add(1)
			links := [][2]string{
				{fmt.Sprintf("/shop;jsessionid=%08X", n), "shop"},
				{fmt.Sprintf("/(S(sess%dxyz))/shop.aspx", n), "shop (asp.net)"},
				{fmt.Sprintf("/shop?utm_campaign=c%d&utm_medium=email", n), "shop (newsletter)"},
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, htmlPage("Shop", "", sentence(sportWords, int(n%5), 40, " "), links))
		case strings.HasPrefix(p, "/slow/"):
			hop, _ := strconv.Atoi(strings.TrimPrefix(p, "/slow/"))
			time.Sleep(hostileSlowHop)
			if hop >= hostileSlowHops {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, htmlPage("Archive", "", sentence(roseWords, 1, 40, " "), nil))
				return true
			}
			http.Redirect(w, r, fmt.Sprintf("/slow/%d", hop+1), http.StatusFound)
		case p == "/bad-location":
			w.Header().Set("Location", "http://[::1%zz/moved")
			w.WriteHeader(http.StatusMovedPermanently)
		default:
			return false
		}
		return true
	}
	s.start(t)
	return s
}

// TestHostileSite crawls the hostile site: the crawl must end on its own
// (frontier exhausted) well inside its page budget, with every trap bounded,
// every session spelling collapsed to one URL, every page fetched once and
// every accepted page indexed once.
func TestHostileSite(t *testing.T) {
	site := newHostileSite(t)
	e := newEnv(t, site,
		"FOCUSCRAWL_FETCH_MAX_FETCH_TIME="+hostileMaxFetch,
		"FOCUSCRAWL_FETCH_MAX_REDIRECTS=20",
		"FOCUSCRAWL_FETCH_READ_TIMEOUT=5s",
		"FOCUSCRAWL_CRAWL_CALENDAR_PAST_YEARS=1",
		"FOCUSCRAWL_CRAWL_CALENDAR_FUTURE_YEARS=1",
	)
	e.startWorker("worker")
	const budget = 300
	yaml := fmt.Sprintf(`name: hostile
language: auto
description: growing roses in the garden, pruning and caring for rose varieties
keywords: {rose: 1.0, roses: 1.0, garden: 0.8, pruning: 0.8, 玫瑰: 1.0}
seeds: [http://www.trap.test/]
scope: {hosts: [www.trap.test, www.rosen.test]}
limits: {max_pages: %d}
strategy: {page_filter: {name: vsm, threshold: 0.12}, link_predictor: best-first, prune: false}
`, budget)
	// prune: false expands every judged page, rejected ones too: the traps
	// are off topic, and pruning would hide them instead of the defences
	// under test bounding them.
	run := e.startTopic("hostile", yaml)
	res := e.wait(run, 4*time.Minute)
	if res.Phase != crawlapi.PhaseCompleted || res.Reason != "frontier exhausted" {
		t.Fatalf("crawl ended %s (%s) after %d pages, want completed (frontier exhausted)", res.Phase, res.Reason, res.Fetched)
	}
	if res.Fetched >= budget {
		t.Fatalf("crawl fetched %d pages: the traps were not bounded", res.Fetched)
	}
	st := e.openStore()
	entries := checkedLog(t, st, run.GetID()) // every URL fetched once
	byURL := map[string]int{}
	calendar, shop := 0, 0
	for i, en := range entries {
		byURL[en.URL] = i
		switch {
		case strings.Contains(en.URL, "/cal/"):
			calendar++
		case strings.Contains(en.URL, "/shop"):
			shop++
		}
		for _, bad := range []string{"jsessionid", "(S(", "utm_", "ｗ", "。"} {
			if strings.Contains(en.URL, bad) {
				t.Errorf("%s kept %q", en.URL, bad)
			}
		}
	}
	// Calendar: at most the months within a year either side of now.
	if calendar < 2 || calendar > 36 {
		t.Errorf("%d calendar pages fetched, want 2..36", calendar)
	}
	if shop != 2 { // /shop and /shop.aspx
		t.Errorf("%d shop pages fetched, want 2 (one per page, whatever the session ID)", shop)
	}
	want := map[string]struct{ class, decision, charset, title string }{
		"http://www.trap.test/slow/0":       {class: "timeout"},
		"http://www.trap.test/bad-location": {class: "bad_url"},
		"http://www.trap.test/go-away":      {decision: "error"},
		"http://www.trap.test/roses/5.html": {decision: "accepted", charset: "utf-8"},
		"http://www.rosen.test/":            {charset: "big5", title: "玫瑰花園"},
		"http://www.rosen.test/nihon.html":  {charset: "shift_jis", title: "日本語のページ"},
	}
	// The link to the page robots.txt disallows is dropped before it costs
	// a page of the budget: the site's robots.txt, 500 KiB of wildcard
	// rules, is cached once its pages are fetched (RobotsDisallows).
	if i, ok := byURL["http://www.trap.test/private/secret.html"]; ok {
		t.Errorf("the robots.txt-disallowed page was queued and claimed (class %q); want its link dropped", entries[i].ErrorClass)
	}
	for u, w := range want {
		i, ok := byURL[u]
		if !ok {
			t.Errorf("%s never fetched", u)
			continue
		}
		en := entries[i]
		if en.ErrorClass != w.class || (w.decision != "" && en.Decision != w.decision) ||
			(w.charset != "" && en.Charset != w.charset) || !strings.Contains(en.Title, w.title) {
			t.Errorf("%s: class %q decision %q charset %q title %q; want %+v", u, en.ErrorClass, en.Decision, en.Charset, en.Title, w)
		}
	}
	if en := entries[byURL["http://www.trap.test/go-away"]]; !strings.HasPrefix(en.Reason, "off_scope") {
		t.Errorf("off-scope redirect judged %q (%s), want an off_scope error", en.Decision, en.Reason)
	}
	// The on-topic trap.test pages are accepted, nothing is lost.
	accepted := 0
	for _, en := range entries {
		if en.Accepted {
			accepted++
		}
	}
	for _, u := range site.onTopic {
		if i, ok := byURL[u]; !ok || !entries[i].Accepted {
			t.Errorf("on-topic page %s lost (fetched: %v)", u, ok)
		}
	}
	// The index holds each accepted page once, and nothing of the other host.
	ix, err := sqlitefts.Open(e.indexPath(), textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	n, err := ix.Count(context.Background(), "hostile")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := st.CrawlStats(context.Background(), run.GetID())
	if err != nil {
		t.Fatal(err)
	}
	if n != accepted || cs.Indexed != cs.Accepted || cs.Accepted != accepted {
		t.Errorf("index %d documents, store %d indexed of %d accepted, log %d accepted", n, cs.Indexed, cs.Accepted, accepted)
	}
	if t.Failed() || testing.Verbose() {
		for _, en := range entries {
			t.Logf("%3d %-50s %-9s %-12s %.3f %s %s", en.Seq, en.URL, en.Decision, en.ErrorClass, en.Relevance, en.Charset, en.Reason)
		}
	}
}
