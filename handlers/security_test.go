package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/handlers"
)

// do sends a request with extra headers through a client that does not
// follow redirects.
func do(t *testing.T, method, u, body string, hdr map[string]string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestSecurity_Headers(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	for _, p := range []string{"/", "/documents", "/api/documents", "/no-such-page"} {
		resp := do(t, "GET", a.Server.URL+p, "", nil)
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline' ;") ||
			strings.Contains(strings.SplitN(strings.SplitN(csp, "script-src", 2)[1], ";", 2)[0], "unsafe") ||
			!strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		// The graph view's layout worker comes from this origin only.
		_, w, _ := strings.Cut(csp, "worker-src")
		if w, _, _ = strings.Cut(w, ";"); strings.TrimSpace(w) != "'self'" {
			t.Errorf("%s: worker-src %q, want 'self' only", p, w)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") == "" {
			t.Errorf("%s: nosniff %q, referrer policy %q", p, resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Referrer-Policy"))
		}
	}
	// No page carries inline script or style elements for the CSP to block.
	for _, p := range []string{"/", "/documents", "/extractions", "/schemas", "/compare", "/extractions/new"} {
		_, doc := a.Get(t, p)
		if n := doc.Find("script:not([src]):not([type='application/json']), style, [style], [onclick], [onchange], [onsubmit]").Length(); n != 0 {
			t.Errorf("%s: %d inline scripts, styles or handlers", p, n)
		}
	}
}

func TestSecurity_CrossSiteWrites(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	form := url.Values{"name": {"notes.txt"}, "text": {"Ada Lovelace met Charles Babbage."}}.Encode()
	refused := []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
		{"Origin": "https://evil.example"},
		{"Origin": "null"},
		{"Origin": "http://localhost:1"}, // another port is another origin
	}
	for _, hdr := range refused {
		if resp := do(t, "POST", a.Server.URL+"/documents", form, hdr); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST with %v: status %d, want 403", hdr, resp.StatusCode)
		}
		if resp := do(t, "POST", a.Server.URL+"/api/extractions", "name=x&doc=1", hdr); resp.StatusCode != http.StatusForbidden {
			t.Errorf("API POST with %v: status %d, want 403", hdr, resp.StatusCode)
		}
	}
	if docs, _ := a.App.Documents.List(context.Background(), 100); len(docs) != 0 {
		t.Fatalf("a refused request stored %d documents", len(docs))
	}
	host := strings.TrimPrefix(a.Server.URL, "http://")
	allowed := []map[string]string{
		nil, // curl, scripts: no browser headers at all
		{"Sec-Fetch-Site": "same-origin", "Origin": a.Server.URL},
		{"Origin": "http://" + host},
	}
	for _, hdr := range allowed {
		if resp := do(t, "POST", a.Server.URL+"/documents", form, hdr); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("POST with %v: status %d, want 303", hdr, resp.StatusCode)
		}
	}
	// A GET is never refused for where it comes from.
	if resp := do(t, "GET", a.Server.URL+"/documents", "", map[string]string{"Sec-Fetch-Site": "cross-site"}); resp.StatusCode != http.StatusOK {
		t.Errorf("cross-site GET: status %d", resp.StatusCode)
	}
}

func TestSecurity_Host(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	_, port, _ := strings.Cut(strings.TrimPrefix(a.Server.URL, "http://"), ":")
	for _, h := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.nip.io:" + port} {
		if resp := do(t, "GET", a.Server.URL+"/api/documents", "", map[string]string{"Host": h}); resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("Host %s: status %d, want 4xx", h, resp.StatusCode)
		}
	}
	for _, h := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST"} {
		if resp := do(t, "GET", a.Server.URL+"/api/documents", "", map[string]string{"Host": h}); resp.StatusCode != http.StatusOK {
			t.Errorf("Host %s: status %d, want 200", h, resp.StatusCode)
		}
	}
	// The public URL's host is accepted.
	srv := tokenServer(t, handlers.Config{PublicURL: "https://kg.example.org/"})
	if resp := do(t, "GET", srv.URL+"/api/documents", "", map[string]string{"Host": "kg.example.org"}); resp.StatusCode != http.StatusOK {
		t.Errorf("public URL host: status %d", resp.StatusCode)
	}
	// Behind a proxy that passes its own Host, a form posted from the public
	// URL's pages is same-origin; one from elsewhere is not.
	form := url.Values{"name": {"p.txt"}, "text": {"Ada Lovelace."}}.Encode()
	if resp := do(t, "POST", srv.URL+"/documents", form, map[string]string{"Origin": "https://kg.example.org"}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST from the public URL: status %d", resp.StatusCode)
	}
	if resp := do(t, "POST", srv.URL+"/documents", form, map[string]string{"Origin": "https://kg.example.org.evil.example"}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST from a look-alike origin: status %d", resp.StatusCode)
	}
}

func TestSecurity_ReturnURLs(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "ret", "r.txt", lincoln, extract.DefaultConfig())
	to := fmt.Sprintf("%s/versions/%d/reference", a.Server.URL, v.ID)
	for back, want := range map[string]string{
		`/\evil.example/`:          fmt.Sprintf("/versions/%d", v.ID),
		"//evil.example/":          fmt.Sprintf("/versions/%d", v.ID),
		"https://evil.example/":    fmt.Sprintf("/versions/%d", v.ID),
		"/compare?a=1\r\nX-Bad: 1": fmt.Sprintf("/versions/%d", v.ID),
		"javascript:alert(1)":      fmt.Sprintf("/versions/%d", v.ID),
		"/compare?a=1":             "/compare?a=1",
	} {
		resp := do(t, "POST", to, url.Values{"back": {back}}.Encode(), nil)
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("back=%q: Location %q, want %q", back, got, want)
		}
	}
}

// tokenServer serves a fresh application with the given settings.
func tokenServer(t *testing.T, cfg handlers.Config) *httptest.Server {
	t.Helper()
	cfg.MaxUploadBytes = 1 << 20
	return mustAppConfig(t, app.Providers{Concurrency: 1, Prices: app.DefaultPrices()}, cfg).Server
}

func TestSecurity_Token(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-never-shown"
	srv := tokenServer(t, handlers.Config{Token: token})
	bearer := map[string]string{"Authorization": "Bearer " + token}

	if resp := do(t, "GET", srv.URL+"/api/documents", "", nil); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("API without token: status %d", resp.StatusCode)
	}
	if resp := do(t, "GET", srv.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer wrong"}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("API with a wrong token: status %d", resp.StatusCode)
	}
	if resp := do(t, "GET", srv.URL+"/api/documents", "", bearer); resp.StatusCode != http.StatusOK {
		t.Fatalf("API with the token: status %d", resp.StatusCode)
	}
	if resp := do(t, "POST", srv.URL+"/documents", "text=Ada+Lovelace", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without token: status %d", resp.StatusCode)
	}
	for _, p := range []string{"/healthz", "/login"} {
		if resp := do(t, "GET", srv.URL+p, "", nil); resp.StatusCode != http.StatusOK {
			t.Errorf("%s without token: status %d", p, resp.StatusCode)
		}
	}

	// A page without the cookie is the login form, with 401.
	resp := do(t, "GET", srv.URL+"/documents?x=1", "", nil)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `data-testid="login-form"`) ||
		!strings.Contains(string(body), `value="/documents?x=1"`) {
		t.Fatalf("page without token: status %d\n%s", resp.StatusCode, body)
	}
	// A wrong token is refused; the right one sets an HttpOnly, SameSite=Strict
	// cookie that is not the token, and returns to the page.
	if resp := do(t, "POST", srv.URL+"/login", url.Values{"token": {"nope"}, "back": {"/documents"}}.Encode(), nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong login: status %d", resp.StatusCode)
	}
	resp = do(t, "POST", srv.URL+"/login", url.Values{"token": {token}, "back": {`/\evil.example`}}.Encode(), nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("login: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "kgstudio_session" {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || strings.Contains(cookie.Value, token) {
		t.Fatalf("session cookie %+v", cookie)
	}
	if resp := do(t, "GET", srv.URL+"/documents", "", map[string]string{"Cookie": cookie.Name + "=" + cookie.Value}); resp.StatusCode != http.StatusOK {
		t.Fatalf("page with the cookie: status %d", resp.StatusCode)
	}
	if resp := do(t, "GET", srv.URL+"/documents", "", map[string]string{"Cookie": cookie.Name + "=x" + cookie.Value}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("page with a forged cookie: status %d", resp.StatusCode)
	}
}

func TestSecurity_BoundedInput(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	long := strings.Repeat("n", extract.MaxNameLen+1)
	resp := do(t, "POST", a.Server.URL+"/api/documents", url.Values{"name": {long}, "text": {"Ada Lovelace."}}.Encode(), nil)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("document name of %d characters: status %d", len(long), resp.StatusCode)
	}
	d, err := extract.ReadDocument("ok.txt", []byte(lincoln), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err = a.AddDocument(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	for _, f := range []url.Values{
		{"name": {long}, "doc": {fmt.Sprint(d.ID)}},
		{"name": {"fine"}, "doc": {fmt.Sprint(d.ID), "99999"}},
	} {
		resp := do(t, "POST", a.Server.URL+"/api/extractions", f.Encode(), nil)
		var body struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusBadRequest || strings.Contains(body.Error, "*") {
			t.Errorf("run %v: status %d %q", f["doc"], resp.StatusCode, body.Error)
		}
	}
	if exs, _ := a.App.Versions.Extractions(context.Background(), 100); len(exs) != 0 {
		t.Errorf("refused runs made %d extractions", len(exs))
	}
	// A schema with no types is refused.
	resp = do(t, "POST", a.Server.URL+"/api/schemas", `{"name":"empty","schema":{"types":[]}}`, map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("schema with no types: status %d", resp.StatusCode)
	}
}

// With the database gone, pages and the API answer 503 with a plain
// message, and an upload is not blamed for it.
func TestSecurity_DatabaseDown(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	a.App.Close()
	for _, p := range []string{"/", "/documents", "/api/documents", "/extractions"} {
		resp := do(t, "GET", a.Server.URL+p, "", nil)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "database is unavailable") {
			t.Errorf("GET %s: status %d\n%.300s", p, resp.StatusCode, body)
		}
	}
	resp := do(t, "POST", a.Server.URL+"/documents", url.Values{"name": {"a.txt"}, "text": {"Ada Lovelace."}}.Encode(), nil)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("upload with the database down: status %d, want 503", resp.StatusCode)
	}
}

// In a browser, a token-protected server shows the sign-in form, and the
// cookie it sets carries the next pages.
func TestSecurity_SignInBrowser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	const token = "browser-token-0123"
	srv := tokenServer(t, handlers.Config{Token: token})
	if err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/documents"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), token),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
	); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	loc, err := chromedp.RunResponse(ctx, chromedp.Navigate(srv.URL+"/extractions"))
	if err != nil || loc == nil || loc.Status != http.StatusOK {
		t.Fatalf("next page after signing in: %+v %v", loc, err)
	}
	if cookieVisible, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.cookie.indexOf("kgstudio_session") >= 0`)); err != nil || cookieVisible {
		t.Errorf("the session cookie is readable from script (%v)", err)
	}
	// Signing out clears the cookie: the next page asks again.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="signout"] button`))); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("header").outerHTML`))
		t.Fatalf("no sign-out button: %v\n%s", err, html)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="signout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)), // "/" now asks
		chromedp.Navigate(srv.URL+"/documents"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
	); err != nil {
		t.Fatalf("sign out: %v", err)
	}
}
