package search

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

//go:embed web
var webFS embed.FS

var pageTmpl = template.Must(template.New("page.html").Funcs(template.FuncMap{
	// snippet marks a hit's snippet as safe HTML: index.Snippet escapes
	// the document text and adds only <mark> elements.
	"snippet": func(s string) template.HTML { return template.HTML(s) }, //nolint:gosec // built by index.Snippet
	"add":     func(a, b int) int { return a + b },
	"sub":     func(a, b int) int { return a - b },
	"min":     func(a, b int) int { return min(a, b) }, // "Previous" from past the last page
	// pageURL is replaced per request (it needs the request's query).
	"pageURL": func(int) string { return "" },
}).ParseFS(webFS, "web/page.html"))

// Handler serves the API and the page:
//
//	GET /api/search?q=&topic=&host=&page=&limit=   JSON Response, or 400 {"error": "..."}
//	(other methods, other /api/ paths)       405 or 404 {"error": "..."}
//	GET /                                   the search page (results when q is given)
//	GET /static/style.css                   the page's style sheet
//	GET /healthz                            200 "ok"
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/search", s.serveAPI)
	// The patterns below catch what the one above does not, so that API
	// clients get JSON errors like every other, not ServeMux's plain text.
	mux.HandleFunc("/api/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{"method " + r.Method + " is not allowed; use GET"})
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody{"no API endpoint at this path; search is GET /api/search"})
	})
	mux.HandleFunc("GET /{$}", s.servePage)
	static, _ := fs.Sub(webFS, "web")
	mux.Handle("GET /static/style.css", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	return securityHeaders(mux)
}

// securityHeaders sets headers every answer should carry: no sniffing, no
// framing, and a content security policy that allows only the page's own
// style sheet (the page has no scripts).
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// errorBody is the JSON of every API error.
type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // snippets carry <mark>; JSON needs no HTML escaping
	if err := enc.Encode(v); err != nil {
		status, buf = http.StatusInternalServerError, *bytes.NewBufferString(`{"error":"encoding the response failed"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// query parses the request's query string; a malformed one (bad %-escape)
// is a bad request too.
func query(r *http.Request) (url.Values, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badRequest("malformed query string: %v", err)
	}
	return v, nil
}

func (s *Service) serveAPI(w http.ResponseWriter, r *http.Request) {
	v, err := query(r)
	var req Request
	if err == nil {
		req, err = s.ParseRequest(v)
	}
	var resp Response
	if err == nil {
		resp, err = s.Search(r.Context(), req)
	}
	var bad *BadRequestError
	switch {
	case errors.As(err, &bad):
		writeJSON(w, http.StatusBadRequest, errorBody{bad.Error()})
	case errors.Is(err, ErrTimeout):
		s.log().Warn("search timed out", "query", req.Query, "error", err)
		writeJSON(w, http.StatusServiceUnavailable, errorBody{timeoutMessage})
	case err != nil && r.Context().Err() != nil:
		// The client went away: nothing failed on this side.
		s.log().Debug("search abandoned by the client", "query", req.Query, "error", err)
		writeJSON(w, http.StatusServiceUnavailable, errorBody{"the search was cancelled"})
	case err != nil:
		s.log().Error("search failed", "query", req.Query, "error", err)
		writeJSON(w, http.StatusServiceUnavailable, errorBody{"the search index is not available; try again later"})
	default:
		writeJSON(w, http.StatusOK, resp)
	}
}

// timeoutMessage answers a search that ran out of Service.Timeout.
const timeoutMessage = "The search took too long; try fewer or more specific words, or a topic or host filter."

// pageData is what page.html renders.
type pageData struct {
	Query, Topic, Host string
	PageNum            int
	Searched           bool
	Error              string
	Response           Response
	Topics             []string
	TopicListed        bool // Topic is among Topics (the select shows it; else it gets an option of its own)
	PageLinks          []int
}

func (s *Service) servePage(w http.ResponseWriter, r *http.Request) {
	status := http.StatusOK
	v, err := query(r)
	if err != nil {
		v = url.Values{}
	}
	// The topic as ParseRequest reads it (trimmed): " gimp" searched gimp
	// but the page called it "not a known topic".
	d := pageData{Query: v.Get("q"), Topic: strings.TrimSpace(v.Get("topic")), Host: v.Get("host"), PageNum: 1}
	d.Topics, _ = s.KnownTopics(r.Context()) // without a list the page offers a text field
	d.TopicListed = d.Topic == "" || slices.Contains(d.Topics, d.Topic)
	if err == nil && v.Has("q") {
		d.Searched = true
		// The page shows PageSize hits a page, and its page links carry
		// no limit: one in the address would hold for the first page only.
		v.Del("limit")
		var req Request
		req, err = s.ParseRequest(v)
		if err == nil {
			d.PageNum = req.Page
			d.Response, err = s.Search(r.Context(), req)
		}
	}
	var bad *BadRequestError
	switch {
	case errors.As(err, &bad):
		status, d.Error = http.StatusBadRequest, bad.Error()
	case errors.Is(err, ErrTimeout):
		s.log().Warn("search timed out", "query", d.Query, "error", err)
		status, d.Error = http.StatusServiceUnavailable, timeoutMessage
	case err != nil && r.Context().Err() != nil:
		// The client went away: nothing failed on this side.
		s.log().Debug("search abandoned by the client", "query", d.Query, "error", err)
		status, d.Error = http.StatusServiceUnavailable, "The search was cancelled."
	case err != nil:
		s.log().Error("search failed", "query", d.Query, "error", err)
		status, d.Error = http.StatusServiceUnavailable, "The search index is not available; try again later."
	}
	d.PageLinks = pageLinks(d.Response.Page, d.Response.Pages)

	t, _ := pageTmpl.Clone()
	t.Funcs(template.FuncMap{"pageURL": func(p int) string {
		u := url.Values{"q": {d.Query}}
		if d.Topic != "" {
			u.Set("topic", d.Topic)
		}
		if d.Host != "" {
			u.Set("host", d.Host)
		}
		u.Set("page", strconv.Itoa(p))
		return "/?" + u.Encode()
	}})
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		s.log().Error("render search page", "error", err)
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// pageLinks returns the page numbers to link: up to 9 around the current one.
func pageLinks(cur, pages int) []int {
	if pages <= 1 {
		return nil
	}
	lo, hi := max(1, cur-4), min(pages, cur+4)
	var out []int
	for p := lo; p <= hi; p++ {
		out = append(out, p)
	}
	return out
}
