package offsite

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScanAndServe(t *testing.T) {
	dir := t.TempDir()
	html := `<a href="https://bugs.example.org/show?id=1">bug</a> <a href="http://www.example.com:8080/x">x</a>
<a href="http://docs.test/self.html">self</a> <a href="relative.html">rel</a> <a href="http://127.0.0.1/">ip</a>`
	if err := os.WriteFile(filepath.Join(dir, "a.html"), []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	eps, err := Scan(dir, "docs.test")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range eps {
		keys = append(keys, e.Scheme+" "+e.Key())
	}
	if got, want := strings.Join(keys, ", "), "https bugs.example.org:443, http www.example.com:8080"; got != want {
		t.Fatalf("Scan = %q, want %q", got, want)
	}

	srv, err := Start(eps)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res := srv.Resolve()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, res[addr])
		},
		TLSClientConfig: &tls.Config{RootCAs: srv.CertPool()},
	}}
	for _, u := range []string{"https://bugs.example.org/any/path", "http://www.example.com:8080/x"} {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte("<a href=")) {
			t.Errorf("GET %s: %d %q, want an off-topic page with links", u, resp.StatusCode, body)
		}
	}
}

func TestPageIsDeterministicAndStaysOffSite(t *testing.T) {
	eps := []Endpoint{{"https", "a.example", "443"}, {"http", "b.example", "80"}}
	p1, p2 := Page("https://a.example/x", eps), Page("https://a.example/x", eps)
	if !bytes.Equal(p1, p2) {
		t.Error("the same URL must get the same page")
	}
	if bytes.Equal(p1, Page("https://a.example/y", eps)) {
		t.Error("different URLs should get different pages")
	}
	for _, l := range strings.Split(string(p1), `href="`)[1:] {
		if !strings.HasPrefix(l, "https://a.example/") && !strings.HasPrefix(l, "http://b.example/") {
			t.Errorf("link %q leaves the off-site endpoints", l[:strings.Index(l, `"`)])
		}
	}
}
