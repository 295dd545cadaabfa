// Package lexicons bundles focuscrawl's small example relatedness lexicons
// (format: package internal/lexicon), one per language, for the machine
// learning topic of topics/ml-*.yaml. A topic file names one with
// "lexicon: ml-zh"; the worker looks the name up in its configured lexicon
// directory first and falls back to these embedded copies.
package lexicons

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"focuscrawl/internal/lexicon"
)

//go:embed *.txt
var files embed.FS

// Bundled returns the content of the bundled lexicon name (without ".txt").
func Bundled(name string) ([]byte, bool) {
	if strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, false
	}
	b, err := files.ReadFile(name + ".txt")
	return b, err == nil
}

// Names lists the bundled lexicons.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".txt"))
	}
	sort.Strings(out)
	return out
}

// Resolve finds the lexicon a topic names (ref) as the worker does: inside
// dir only (see lexicon.Open: a name, or a relative path that stays inside
// it); a bare name missing there falls back to the bundled lexicons. dir is
// crawl.lexicon_dir ("" for none).
func Resolve(dir, ref string) (*lexicon.Lexicon, error) {
	if dir != "" {
		l, err := lexicon.Open(dir, ref)
		if err == nil || !errors.Is(err, lexicon.ErrNotFound) || lexicon.IsPath(ref) {
			return l, err
		}
	} else if err := lexicon.CheckRef(ref); err != nil {
		return nil, fmt.Errorf("lexicon %q: %w", ref, err)
	} else if lexicon.IsPath(ref) {
		return nil, fmt.Errorf("lexicon %q: a path needs crawl.lexicon_dir, which is not set", ref)
	}
	if data, ok := Bundled(ref); ok {
		l, err := lexicon.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("bundled lexicon %s: %w", ref, err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("lexicon %q not found in %q nor among the bundled ones %v", ref, dir, Names())
}
