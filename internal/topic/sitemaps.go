package topic

import (
	"fmt"
	"math"

	"gopkg.in/yaml.v3"
)

// Defaults of sitemap discovery.
const (
	DefaultSitemapFiles = 10
	DefaultSitemapURLs  = 5000
)

// Sitemaps configures sitemap discovery (focuscrawl's design; no seed
// document describes it): when the crawl starts, the sitemaps that each seed
// host's robots.txt lists — or the host's /sitemap.xml when it lists none —
// are read, and their URLs whose words match the topic are queued below the
// seeds (activities.StartCrawl). Off by default: a sitemap lists a whole
// site, and a focused crawl wants only its topic's part. In YAML either form
// works:
//
//	sitemaps: true
//	sitemaps: {enabled: true, max_files: 10, max_urls: 5000}
type Sitemaps struct {
	Enabled bool `yaml:"enabled"`
	// noEnabled: the mapping form without enabled, which reads as off (so
	// stored versions keep their meaning) and is an error in a file given
	// (a file that set max_files may have wanted them on).
	noEnabled bool
	// MaxFiles bounds the sitemap files read per seed host, index files
	// included; 0 means DefaultSitemapFiles. Read it with Files.
	MaxFiles int `yaml:"max_files"`
	// MaxURLs bounds the URLs queued per seed host; 0 means
	// DefaultSitemapURLs. Read it with URLs.
	MaxURLs int `yaml:"max_urls"`
}

// decodesFields marks Sitemaps a fieldsDecoder: its mapping is decoded
// into its fields.
func (*Sitemaps) decodesFields() {}

// UnmarshalYAML accepts a bare boolean or the mapping.
func (s *Sitemaps) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var on bool
		if err := n.Decode(&on); err != nil {
			return fmt.Errorf("line %d: sitemaps: %q must be true, false or a mapping {enabled, max_files, max_urls}", n.Line, n.Value)
		}
		*s = Sitemaps{Enabled: on}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: sitemaps: must be true, false or a mapping {enabled, max_files, max_urls}", n.Line)
	}
	// n.Decode would not refuse unknown fields as the file's decoder does.
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k, v := n.Content[i], n.Content[i+1]; k.Value {
		case "enabled":
		case "max_files", "max_urls":
			// The file's whole-number check (fractionalInts) does not look
			// inside a type with its own decoder, and yaml.v3 truncates.
			var f float64
			if v.ShortTag() == "!!float" && v.Decode(&f) == nil && f != math.Trunc(f) {
				return fmt.Errorf("line %d: sitemaps.%s: %s is not a whole number", v.Line, k.Value, v.Value)
			}
		default:
			return fmt.Errorf("line %d: sitemaps.%s: unknown field (want enabled, max_files, max_urls)", k.Line, k.Value)
		}
	}
	type plain Sitemaps // without this method
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*s = Sitemaps(p)
	s.noEnabled = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "enabled" {
			s.noEnabled = false
		}
	}
	return nil
}

// Files is MaxFiles with its default.
func (s Sitemaps) Files() int {
	if s.MaxFiles == 0 {
		return DefaultSitemapFiles
	}
	return s.MaxFiles
}

// URLs is MaxURLs with its default.
func (s Sitemaps) URLs() int {
	if s.MaxURLs == 0 {
		return DefaultSitemapURLs
	}
	return s.MaxURLs
}

func (s Sitemaps) validate(bad func(field, format string, args ...any)) {
	if s.MaxFiles < 0 || s.MaxFiles > 1000 {
		bad("sitemaps.max_files", "%d must be between 0 and 1000", s.MaxFiles)
	}
	if s.MaxURLs < 0 || s.MaxURLs > 1000000 {
		bad("sitemaps.max_urls", "%d must be between 0 and 1000000", s.MaxURLs)
	}
}
