package search

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"focuscrawl/internal/index"
)

// TestBrowserSearch drives the search page in headless Chromium through the
// DevTools protocol: open the home page, type a Chinese query into the
// search box, press Enter, wait for the results, check them, and save a
// screenshot (search-page.png in the test's temporary directory, or in
// $FOCUSCRAWL_ARTIFACT_DIR when set). scripts/test.sh installs the Debian
// chromium package when it runs as root with apt-get; without a chromium
// binary the test skips.
func TestBrowserSearch(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium, or run scripts/test.sh as root): the browser test of the search page is skipped")
	}
	svc, _ := newService(t, append(handBuiltDocs(), browserDocs()...))
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-quic", "--no-first-run", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "--remote-allow-origins=*",
		"--window-size=1100,860", "about:blank")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()

	page := connectPage(t, ctx, profile, &stderr)
	defer page.ws.Close()
	page.call("Page.enable", nil)
	page.call("Page.navigate", map[string]any{"url": srv.URL + "/"})
	page.waitFor(ctx, `document.readyState === "complete" && !!document.querySelector("#q")`)

	// Type like a user: focus the box, insert the text, press Enter.
	page.eval(`document.querySelector("#q").focus()`)
	page.call("Input.insertText", map[string]any{"text": "高斯模糊 滤镜"})
	for _, typ := range []string{"keyDown", "keyUp"} {
		page.call("Input.dispatchKeyEvent", map[string]any{"type": typ, "key": "Enter", "code": "Enter",
			"windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13, "text": "\r"})
	}
	page.waitFor(ctx, `document.querySelectorAll("#results .result").length > 0 && document.readyState === "complete"`)

	var got struct {
		URL, Summary, FirstTitle, FirstMark, Query string
		Results                                    int
	}
	page.evalInto(`({
		URL: location.href,
		Summary: document.querySelector("#summary").textContent.trim(),
		FirstTitle: document.querySelector("#results .result .title").textContent,
		FirstMark: document.querySelector("#results .result mark").textContent,
		Query: document.querySelector("#q").value,
		Results: document.querySelectorAll("#results .result").length,
	})`, &got)
	if !strings.Contains(got.URL, "q=") || got.Query != "高斯模糊 滤镜" {
		t.Errorf("after Enter the page is %s with box %q; want the submitted query", got.URL, got.Query)
	}
	if got.Results != 3 || got.FirstTitle != "高斯模糊滤镜教程" || !strings.Contains(got.FirstMark, "高斯模糊") ||
		!strings.HasPrefix(got.Summary, "3 results") {
		t.Errorf("results: %+v; want 3 results led by 高斯模糊滤镜教程 with 高斯模糊 marked", got)
	}

	shot := page.call("Page.captureScreenshot", map[string]any{"format": "png"})
	var img struct {
		Data string `json:"data"`
	}
	json.Unmarshal(shot, &img)
	png, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
	dir := os.Getenv("FOCUSCRAWL_ARTIFACT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, "search-page.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// browserDocs adds Chinese pages so the screenshot shows a realistic list.
func browserDocs() []index.Document {
	return []index.Document{
		{ID: "zh-blur-2", Topic: "gimp", URL: "https://wiki.example.cn/gimp/gaussian-blur", Host: "wiki.example.cn",
			Title: "GIMP 高斯模糊与运动模糊", Lang: "zh", Relevance: 0.7, FetchedAt: fetched,
			Text: "模糊滤镜组包括高斯模糊、运动模糊和像素化。高斯模糊的半径越大，图像越柔和；常用于制作背景虚化效果。"},
		{ID: "zh-blur-3", Topic: "gimp", URL: "https://blog.example.com/posts/soft-focus", Host: "blog.example.com",
			Title: "用图层蒙版做柔焦效果", Lang: "zh", Relevance: 0.5, FetchedAt: fetched,
			Text: "复制图层，对上层应用高斯模糊滤镜，再用图层蒙版擦出清晰的主体，就得到柔焦效果。"},
	}
}

// cdpPage is a DevTools protocol connection to one page target.
type cdpPage struct {
	t  *testing.T
	ws *websocket.Conn
	id int
}

// connectPage waits for Chromium's DevToolsActivePort file, finds the page
// target and opens its WebSocket.
func connectPage(t *testing.T, ctx context.Context, profile string, stderr *strings.Builder) *cdpPage {
	t.Helper()
	var port string
	for port == "" {
		if f, err := os.Open(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			sc := bufio.NewScanner(f)
			if sc.Scan() {
				port = strings.TrimSpace(sc.Text())
			}
			f.Close()
		}
		if port != "" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("chromium did not open its DevTools port: %s", stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	var targets []struct {
		Type, WebSocketDebuggerURL string
	}
	for {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		for _, tg := range targets {
			if tg.Type == "page" {
				ws, err := websocket.Dial(tg.WebSocketDebuggerURL, "", "http://127.0.0.1/")
				if err != nil {
					t.Fatalf("DevTools WebSocket: %v", err)
				}
				return &cdpPage{t: t, ws: ws}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no page target in chromium: %s", stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// call sends one command and returns its result, skipping events.
func (p *cdpPage) call(method string, params any) json.RawMessage {
	p.t.Helper()
	res, err := p.send(method, params)
	if err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// send is call returning the protocol's error instead of failing the test.
func (p *cdpPage) send(method string, params any) (json.RawMessage, error) {
	p.id++
	p.ws.SetDeadline(time.Now().Add(20 * time.Second))
	if err := websocket.JSON.Send(p.ws, map[string]any{"id": p.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(p.ws, &msg); err != nil {
			return nil, err
		}
		if msg.ID != p.id {
			continue // an event
		}
		if msg.Error != nil {
			return nil, errors.New(msg.Error.Message)
		}
		return msg.Result, nil
	}
}

// evalInto evaluates a JavaScript expression and decodes its value.
func (p *cdpPage) evalInto(expr string, v any) {
	p.t.Helper()
	raw := p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	json.Unmarshal(raw, &r)
	if r.ExceptionDetails != nil {
		p.t.Fatalf("evaluate %s: %s", expr, r.ExceptionDetails.Text)
	}
	if v != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, v); err != nil {
			p.t.Fatalf("evaluate %s: %v (%s)", expr, err, r.Result.Value)
		}
	}
}

func (p *cdpPage) eval(expr string) { p.t.Helper(); p.evalInto(expr, nil) }

// waitFor polls a boolean expression until it holds. Navigation destroys
// the page's JavaScript context, so a failed evaluation — an exception, or
// the protocol's "Inspected target navigated or closed" when the page
// navigates during the call — counts as false.
func (p *cdpPage) waitFor(ctx context.Context, expr string) {
	p.t.Helper()
	for {
		var ok bool
		raw, err := p.send("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
		if err != nil && ctx.Err() != nil {
			p.t.Fatalf("waiting for %s: %v", expr, err)
		}
		var r struct {
			Result struct {
				Value any `json:"value"`
			} `json:"result"`
		}
		json.Unmarshal(raw, &r)
		ok, _ = r.Result.Value.(bool)
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			p.t.Fatalf("timed out waiting for %s", expr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
