package linkpred

import (
	"net/url"
	"strings"

	"focuscrawl/internal/urlnorm"
)

// LinkType is a link's direction relative to the source page's place in its
// site's directory tree (the link-type heuristic seed 003 gives as
// background and seed 000 cites from Yu Zhihua; docs/algorithms.md
// "Link-type heuristic").
type LinkType int

// The five link types. Downward and horizontal links stay within the
// section the source page belongs to, which on a topical page is the
// section most likely to continue the topic, so they go first.
const (
	Downward   LinkType = iota // into a subdirectory of the source's directory
	Horizontal                 // into the source's own directory
	Upward                     // into an ancestor directory of the source's
	Crosswise                  // same host, another branch of the tree
	Outward                    // another host
)

// String names the type as the documents do.
func (t LinkType) String() string {
	return [...]string{"downward", "horizontal", "upward", "crosswise", "outward"}[t]
}

// LinkTypeMultiplier is focuscrawl's priority multiplier per link type: the
// documents only say "downward and horizontal first", so the same-section
// types keep their score and the others are scaled down just enough to rank
// after an equally scored same-section link, and to make an off-site link
// need a clearly better score (~25%) to outrank an on-site one: off-site
// links are where budget leaks on real sites (issue 12: 280 of 600 fetches).
var LinkTypeMultiplier = [...]float64{
	Downward:   1.0,
	Horizontal: 1.0,
	Upward:     0.9,
	Crosswise:  0.9,
	Outward:    0.8,
}

// ClassifyLink returns the type of the link src → dst, both absolute
// normalised URLs (urlnorm). A URL's directory is its path up to the last
// "/"; a path ending in "/" is its own directory. Unparsable URLs are
// outward (nothing is known about them).
func ClassifyLink(src, dst string) LinkType {
	s, err1 := url.Parse(src)
	d, err2 := url.Parse(dst)
	// One site but for a leading "www." is not outward (urlnorm.SameSite).
	if err1 != nil || err2 != nil || !urlnorm.SameSite(strings.ToLower(s.Host), strings.ToLower(d.Host)) {
		return Outward
	}
	sd, dd := dir(s.Path), dir(d.Path)
	switch {
	case sd == dd:
		return Horizontal
	case strings.HasPrefix(dd, sd):
		return Downward
	case strings.HasPrefix(sd, dd):
		return Upward
	}
	return Crosswise
}

// dir is a path's directory with a trailing "/".
func dir(p string) string {
	if p == "" {
		return "/"
	}
	return p[:strings.LastIndexByte(p, '/')+1]
}
