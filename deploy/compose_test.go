// Package deploy holds focuscrawl's deployment files: the Dockerfile, the
// Elasticsearch index template (deploy/elasticsearch) and Temporal's dynamic
// configuration. This package has only tests: they check the root
// docker-compose.yml, which cannot be run where the tests run (no Docker
// engine).
package deploy

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"focuscrawl/internal/config"
)

type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Environment map[string]string `yaml:"environment"`
		Command     []string          `yaml:"command"`
		Entrypoint  []string          `yaml:"entrypoint"`
		Deploy      struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"deploy"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

// defaultRE matches compose's ${VAR:-default} interpolation.
var defaultRE = regexp.MustCompile(`\$\{[A-Z_]+:-([^}]*)\}`)

func TestComposeFileParsesAndConfiguresElasticsearch(t *testing.T) {
	data, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("docker-compose.yml does not parse: %v", err)
	}
	for _, name := range []string{"postgresql", "crawl-db", "temporal", "temporal-ui", "elasticsearch", "worker", "search"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("service %s is missing", name)
		}
	}
	if es := c.Services["elasticsearch"]; !strings.Contains(es.Image, "elasticsearch:8.") {
		t.Errorf("elasticsearch image %q is not Elasticsearch 8", es.Image)
	}
	if n := c.Services["worker"].Deploy.Replicas; n != 3 {
		t.Errorf("worker deploy.replicas = %d, want 3 (several workers on one PostgreSQL crawl store)", n)
	}
	// A worker's metrics must be reachable from outside its container.
	if a := c.Services["worker"].Environment["FOCUSCRAWL_METRICS_ADDRESS"]; !strings.HasPrefix(a, "0.0.0.0:") {
		t.Errorf("worker FOCUSCRAWL_METRICS_ADDRESS = %q; want 0.0.0.0:PORT (the default, loopback, cannot be scraped)", a)
	}
	if got := c.Services["search"].Command; len(got) == 0 || got[0] != "serve" {
		t.Errorf("search service command = %q, want search serve", got)
	}
	for _, name := range []string{"worker", "search"} {
		env := c.Services[name].Environment
		if env["FOCUSCRAWL_INDEX_DRIVER"] != "elasticsearch" {
			t.Errorf("%s: FOCUSCRAWL_INDEX_DRIVER = %q, want elasticsearch", name, env["FOCUSCRAWL_INDEX_DRIVER"])
		}
		// Every variable must be a real key, and together they must be a
		// valid configuration.
		t.Run(name, func(t *testing.T) {
			for k, v := range env {
				if !strings.HasPrefix(k, config.EnvPrefix+"_") {
					continue
				}
				if !isConfigEnv(k) {
					t.Errorf("%s is not the variable of any configuration key", k)
				}
				t.Setenv(k, defaultRE.ReplaceAllString(v, "$1"))
			}
			cfg, err := config.Load("", nil)
			if err != nil {
				t.Fatalf("the %s service's environment is not a valid configuration: %v", name, err)
			}
			if cfg.Index.Elasticsearch.Addresses[0] != "http://elasticsearch:9200" || cfg.Temporal.Address != "temporal:7233" {
				t.Errorf("loaded %+v", cfg.Index)
			}
			if cfg.Store.Driver != "postgres" || !strings.Contains(cfg.Store.DSN, "@crawl-db:5432/") {
				t.Errorf("%s: crawl store %+v, want driver postgres on crawl-db", name, cfg.Store)
			}
		})
	}
}

func isConfigEnv(name string) bool {
	for k := range config.Defaults() {
		if config.EnvName(k) == name {
			return true
		}
	}
	return false
}
