// Package lexicons bundles focuscrawl's small example relatedness lexicons
// (format: package internal/lexicon), one per language, for the machine
// learning topic of topics/ml-*.yaml. A topic file names one with
// "lexicon: ml-zh"; the worker looks the name up in its configured lexicon
// directory first and falls back to these embedded copies.
package lexicons

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
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
