package parse

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// walkTokens is the fallback for pages the tree builder rejects. It feeds the
// same enter/exit handlers from the raw token stream, keeping its own stack of
// open elements, so text, position classes and links come out as they would
// from the tree in all but exotic cases.
func (w *walker) walkTokens(body []byte) {
	w.flat = true
	z := html.NewTokenizer(bytes.NewReader(body))
	var stack []*html.Node
	// open counts stack entries by tag name, so that a stray end tag is
	// ignored without scanning the stack: scanning only on a sure match
	// keeps the walk linear (each scanned entry is then popped).
	open := make(map[string]int)
	var skip *html.Node // element whose content is being skipped
	skipDepth := 0
	doc := &html.Node{Type: html.DocumentNode}
	w.enter(doc)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken: // io.EOF: the body reader cannot fail otherwise
			for i := len(stack) - 1; i >= 0; i-- {
				w.exit(stack[i])
			}
			return
		case html.TextToken:
			if skip == nil {
				w.addText(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if skip != nil {
				if tok.Data == skip.Data && tt == html.StartTagToken {
					skipDepth++
				}
				if skip.DataAtom == atom.Svg && tok.Data == "a" {
					// An SVG's links are links (svgLinks, in the tree).
					// href first, then xlink:href, as svgLinks reads them.
					href, ok := "", false
					for _, key := range []string{"href", "xlink:href"} {
						for _, a := range tok.Attr {
							if !ok && a.Key == key {
								href, ok = a.Val, true
							}
						}
					}
					if ok {
						w.addLink(&html.Node{Type: html.ElementNode, Data: "a", Namespace: "svg", Attr: tok.Attr}, href, "a")
					}
				}
				continue
			}
			n := &html.Node{Type: html.ElementNode, DataAtom: tok.DataAtom, Data: tok.Data, Attr: tok.Attr}
			if n.DataAtom == atom.A && open[n.Data] > 0 { // as the tree builder does: a new link closes an open one
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i].DataAtom == atom.A {
						stack = w.popTo(stack, i, open)
						break
					}
				}
			}
			descend := w.enter(n)
			switch {
			case tt == html.SelfClosingTagToken || isVoid(n.DataAtom):
				w.exit(n)
			case !descend:
				skip, skipDepth = n, 1
			default:
				stack = append(stack, n)
				open[n.Data]++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if skip != nil {
				if string(name) == skip.Data {
					if skipDepth--; skipDepth == 0 {
						w.exit(skip)
						skip = nil
					}
				}
				continue
			}
			if open[string(name)] == 0 {
				continue
			}
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].Data == string(name) {
					stack = w.popTo(stack, i, open)
					break
				}
			}
		}
	}
}

// popTo exits stack[i] and every element above it, and returns the rest.
func (w *walker) popTo(stack []*html.Node, i int, open map[string]int) []*html.Node {
	for j := len(stack) - 1; j >= i; j-- {
		w.exit(stack[j])
		open[stack[j].Data]--
	}
	return stack[:i]
}

// isVoid reports elements that never have content or an end tag.
func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Frame, atom.Hr,
		atom.Img, atom.Input, atom.Keygen, atom.Link, atom.Meta, atom.Param,
		atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}
