package replay

import (
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	calendarRE = regexp.MustCompile(`^/trap/calendar/(\d{4})/(\d{2})/$`)
	sessionRE  = regexp.MustCompile(`^/trap/session/([1-9]\d{0,8})$`)
)

// sessionVariants is how many copies of the same session page, under other
// sids, each session page links to.
const sessionVariants = 3

// serveTrap generates a spider-trap page. Nothing is written to disk: the
// trap is endless by construction.
func (s *Server) serveTrap(w http.ResponseWriter, r *http.Request, key string, n uint64) {
	var title string
	var links [][2]string // href, anchor
	if m := calendarRE.FindStringSubmatch(r.URL.Path); m != nil {
		year, _ := strconv.Atoi(m[1])
		month, _ := strconv.Atoi(m[2])
		if year < 1 || month < 1 || month > 12 {
			http.NotFound(w, r)
			return
		}
		cur := time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC)
		title = "Events calendar: " + cur.Format("January 2006")
		if prev := cur.AddDate(0, -1, 0); prev.Year() >= 1 {
			links = append(links, [2]string{calendarPath(prev), "Previous month: " + prev.Format("January 2006")})
		}
		if next := cur.AddDate(0, 1, 0); next.Year() <= 9999 {
			links = append(links, [2]string{calendarPath(next), "Next month: " + next.Format("January 2006")})
		}
	} else if m := sessionRE.FindStringSubmatch(r.URL.Path); m != nil {
		page, _ := strconv.Atoi(m[1])
		title = fmt.Sprintf("Member offers, page %d", page)
		links = append(links, [2]string{
			fmt.Sprintf("/trap/session/%d?sid=%s", page+1, s.sid(key, n, 0)),
			fmt.Sprintf("Next page (%d)", page+1),
		})
		for i := range sessionVariants {
			links = append(links, [2]string{
				fmt.Sprintf("/trap/session/%d?sid=%s", page, s.sid(key, n, uint64(i+1))),
				fmt.Sprintf("Refresh offers (view %d)", i+1),
			})
		}
	} else {
		http.NotFound(w, r)
		return
	}

	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n</head>\n<body>\n<h1>%s</h1>\n<p>Nothing new here yet. Check the other pages.</p>\n<ul>\n",
		html.EscapeString(title), html.EscapeString(title))
	for _, l := range links {
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(l[0]), html.EscapeString(l[1]))
	}
	b.WriteString("</ul>\n<p><a href=\"/\">Home</a></p>\n</body>\n</html>\n")

	h := w.Header()
	h.Set("Content-Type", "text/html")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write([]byte(b.String())) //nolint:errcheck // the client may be gone; nothing to do about it.
	}
}

func calendarPath(t time.Time) string {
	return fmt.Sprintf("/trap/calendar/%04d/%02d/", t.Year(), int(t.Month()))
}

// sid is a fresh, reproducible session id.
func (s *Server) sid(key string, n, i uint64) string {
	return fmt.Sprintf("%016x", s.rand(key, n, saltTrap+i*16))
}
