package handlers_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/handlers"
)

// A server with accounts asks every request who it is from; a viewer
// reads and asks, an editor also writes, an admin also manages people,
// tokens and the audit log. A person's token acts with no more than its
// owner's role now; a revoked token stops at once; the audit log holds
// every write, refused ones included.
func TestAccounts_Roles(t *testing.T) {
	t.Parallel()
	env := mustAppConfig(t, app.Providers{Concurrency: 1}, handlers.Config{MaxUploadBytes: 1 << 20})
	srv, ctx := env.Server, t.Context()
	v := env.MustExtract(t, "carol", "carol.txt", "Scrooge was Marley's partner in London. Bob Cratchit was Scrooge's clerk.", extract.DefaultConfig())
	// No account yet: the one person's server, open as before.
	if resp := do(t, "GET", srv.URL+"/api/documents", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("no account: status %d", resp.StatusCode)
	}
	acc := env.App.Accounts
	tokens := map[record.Role]string{}
	for _, r := range record.Roles {
		if _, err := acc.Add(ctx, string(r)+"-person", "a long enough password", r); err != nil {
			t.Fatal(err)
		}
		secret, _, err := acc.NewToken(ctx, string(r)+"-person", "laptop", "", "")
		if err != nil {
			t.Fatal(err)
		}
		tokens[r] = secret
	}
	as := func(r record.Role) map[string]string {
		return map[string]string{"Authorization": "Bearer " + tokens[r]}
	}
	if resp := do(t, "GET", srv.URL+"/api/documents", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("accounts exist, no credential: status %d", resp.StatusCode)
	}
	doc := url.Values{"text": {"Ada Lovelace wrote the first program."}}.Encode()
	ask := "/api/versions/" + strconv.Itoa(v.ID) + "/query"
	for _, c := range []struct {
		role         record.Role
		method, path string
		body         string
		want         int
	}{
		{record.RoleViewer, "GET", "/api/documents", "", http.StatusOK},
		{record.RoleViewer, "POST", ask, url.Values{"q": {"Who was Scrooge's clerk?"}}.Encode(), http.StatusOK},
		{record.RoleViewer, "POST", "/api/documents", doc, http.StatusForbidden},
		{record.RoleViewer, "DELETE", "/api/versions/" + strconv.Itoa(v.ID), "", http.StatusForbidden},
		{record.RoleEditor, "POST", "/api/documents", doc, http.StatusCreated},
		{record.RoleEditor, "GET", "/api/admin/accounts", "", http.StatusForbidden},
		{record.RoleEditor, "GET", "/admin", "", http.StatusForbidden},
		{record.RoleAdmin, "GET", "/api/admin/accounts", "", http.StatusOK},
		{record.RoleAdmin, "POST", "/api/admin/tokens", `{"owner":"viewer-person","name":"up","role":"editor"}`, http.StatusBadRequest},
	} {
		resp := do(t, c.method, srv.URL+c.path, c.body, as(c.role))
		if resp.StatusCode != c.want {
			b, _ := io.ReadAll(resp.Body)
			t.Errorf("%s %s %s: status %d, want %d: %s", c.role, c.method, c.path, resp.StatusCode, c.want, b)
		}
	}
	// A viewer's token over MCP reads and asks, and may not write.
	cs, err := mcpSession(t, srv.URL, &http.Client{Transport: bearer{tokens[record.RoleViewer]}})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Extractions []json.RawMessage `json:"extractions"`
	}
	callTool(t, cs, "list_extractions", map[string]any{}, &list)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_document", Arguments: map[string]any{"name": "x.txt", "text": "Ada."}})
	if err == nil && !res.IsError {
		t.Fatal("a viewer's token added a document over MCP")
	}
	// The same call with an editor's token is taken.
	ecs, err := mcpSession(t, srv.URL, &http.Client{Transport: bearer{tokens[record.RoleEditor]}})
	if err != nil {
		t.Fatal(err)
	}
	var added map[string]any
	callTool(t, ecs, "add_document", map[string]any{"name": "x.txt", "text": "Ada."}, &added)
	// The editor made a viewer: their token acts as a viewer at once.
	if err := acc.SetRole(ctx, "editor-person", record.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if resp := do(t, "POST", srv.URL+"/api/documents", doc, as(record.RoleEditor)); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a token of a person made viewer wrote: status %d", resp.StatusCode)
	}
	// A revoked token stops at once.
	var ts struct {
		Tokens []record.AccessToken `json:"tokens"`
	}
	getAs(t, srv.URL+"/api/admin/tokens", as(record.RoleAdmin), &ts)
	for _, tk := range ts.Tokens {
		if tk.Owner == "viewer-person" {
			if resp := do(t, "DELETE", srv.URL+"/api/admin/tokens/"+strconv.Itoa(tk.ID), "", as(record.RoleAdmin)); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("revoke: status %d", resp.StatusCode)
			}
		}
	}
	if resp := do(t, "GET", srv.URL+"/api/documents", "", as(record.RoleViewer)); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a revoked token: status %d", resp.StatusCode)
	}
	// The audit log: the editor's write, the viewer's refused one.
	var audit struct {
		Entries []record.AuditEntry `json:"entries"`
	}
	getAs(t, srv.URL+"/api/admin/audit", as(record.RoleAdmin), &audit)
	found := map[string]bool{}
	for _, e := range audit.Entries {
		found[e.Actor+" "+e.Method+" "+e.Path+" "+strconv.Itoa(e.Status)] = true
		if e.Addr == "" || e.At.IsZero() {
			t.Errorf("entry without address or time: %+v", e)
		}
	}
	for _, want := range []string{"editor-person (token laptop) POST /api/documents 201", "viewer-person (token laptop) POST /api/documents 403"} {
		if !found[want] {
			t.Errorf("audit log lacks %q: %v", want, found)
		}
	}
	// A question is not a write.
	if asked := "viewer-person (token laptop) POST " + ask + " 200"; found[asked] {
		t.Errorf("audit log holds a question: %q", asked)
	}
	resp := do(t, "GET", srv.URL+"/api/admin/audit?format=csv", "", as(record.RoleAdmin))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "at,actor,role,workspace,method,path,status,addr\n") || !strings.Contains(string(body), "default,POST,/api/documents,201") {
		t.Fatalf("audit CSV: status %d\n%s", resp.StatusCode, body)
	}
}

// A session is kept in the database: it outlives the server that signed
// it in (a restart, another replica), and signing out ends it on every
// server. Wrong passwords slow their sender down but never refuse the
// right password.
func TestAccounts_SessionsAndLimits(t *testing.T) {
	t.Parallel()
	env := mustAppConfig(t, app.Providers{Concurrency: 1}, handlers.Config{MaxUploadBytes: 1 << 20})
	if _, err := env.App.Accounts.Add(t.Context(), "ann", "a long enough password", record.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		resp := do(t, "POST", env.Server.URL+"/login", url.Values{"name": {"ann"}, "password": {"not the password"}}.Encode(), nil)
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("wrong password: status %d", resp.StatusCode)
		}
	}
	if resp := do(t, "POST", env.Server.URL+"/login", url.Values{"name": {"ann"}, "password": {"not the password"}}.Encode(), nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the ninth wrong password: status %d, want 429", resp.StatusCode)
	}
	resp := do(t, "POST", env.Server.URL+"/login", url.Values{"name": {"ann"}, "password": {"a long enough password"}, "back": {"/admin"}}.Encode(), nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin" {
		t.Fatalf("the right password after wrong ones: status %d", resp.StatusCode)
	}
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == "kgstudio_session" {
			cookie = c.Name + "=" + c.Value
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				t.Fatalf("session cookie %+v", c)
			}
		}
	}
	// Another server over the same database (a restart, a replica).
	other := httptest.NewServer(handlers.New(env.App, slog.New(slog.NewTextHandler(io.Discard, nil)), handlers.Config{MaxUploadBytes: 1 << 20}).NewServer())
	t.Cleanup(other.Close)
	for _, u := range []string{env.Server.URL, other.URL} {
		resp := do(t, "GET", u+"/admin", "", map[string]string{"Cookie": cookie})
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `data-testid="accounts"`) || !strings.Contains(string(body), ">ann<") {
			t.Fatalf("%s: the session's admin page: status %d", u, resp.StatusCode)
		}
	}
	// 100 wrong tokens from one address, then the right one: taken.
	secret, tok, err := env.App.Accounts.NewToken(t.Context(), "ann", "script", "", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		resp := do(t, "GET", env.Server.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer kgs_wrong" + strconv.Itoa(i)})
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("wrong token %d: status %d", i, resp.StatusCode)
		}
	}
	if resp := do(t, "GET", env.Server.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer " + secret}); resp.StatusCode != http.StatusOK {
		t.Fatalf("the right token after 100 wrong ones: status %d", resp.StatusCode)
	}
	// Revoked through one server, refused by the other at the next request.
	if resp := do(t, "GET", other.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer " + secret}); resp.StatusCode != http.StatusOK {
		t.Fatalf("the token on the other server: status %d", resp.StatusCode)
	}
	if resp := do(t, "DELETE", env.Server.URL+"/api/admin/tokens/"+strconv.Itoa(tok.ID), "", map[string]string{"Cookie": cookie}); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("revoke: status %d", resp.StatusCode)
	}
	if resp := do(t, "GET", other.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer " + secret}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a token revoked on the first server, on the other: status %d", resp.StatusCode)
	}
	if resp := do(t, "POST", other.URL+"/logout", "", map[string]string{"Cookie": cookie}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: status %d", resp.StatusCode)
	}
	if resp := do(t, "GET", env.Server.URL+"/admin", "", map[string]string{"Cookie": cookie}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("signed out on the other server, still in here: status %d", resp.StatusCode)
	}
}

// getAs GETs u with the headers and decodes its JSON into out.
func getAs(t *testing.T, u string, hdr map[string]string, out any) {
	t.Helper()
	resp := do(t, "GET", u, "", hdr)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// In a browser: a person signs in with name and password, finds the
// admin page from the navigation, makes a token there and sees it once.
func TestAccounts_AdminBrowser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	env := mustAppConfig(t, app.Providers{Concurrency: 1}, handlers.Config{MaxUploadBytes: 1 << 20})
	if _, err := env.App.Accounts.Add(t.Context(), "ann", "a long enough password", record.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	srv := env.Server
	if err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/documents"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "ann"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "a long enough password"),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upload-form"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="nav-admin"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="add-token"]`)),
		chromedp.SendKeys(chromedp.CSS(`#token-owner`), "ann"),
		chromedp.SendKeys(chromedp.CSS(`#token-name`), "ci"),
		chromedp.Click(chromedp.CSS(`[data-testid="add-token"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-token"]`)),
	); err != nil {
		t.Fatalf("sign in and make a token: %v", err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="new-token"] code').textContent`))
	if err != nil || !strings.HasPrefix(shown, "kgs_") {
		t.Fatalf("the new token: %q (%v)", shown, err)
	}
	who, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="signed-in"]').textContent`))
	if err != nil || who != "ann" {
		t.Errorf("signed in as %q (%v)", who, err)
	}
	// The token works, and the page never shows it again.
	if resp := do(t, "GET", srv.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer " + shown}); resp.StatusCode != http.StatusOK {
		t.Fatalf("the token made in the page: status %d", resp.StatusCode)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/admin"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="tokens"]`))); err != nil {
		t.Fatal(err)
	}
	html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main").innerHTML`))
	if err != nil || strings.Contains(html, shown) || !strings.Contains(html, ">ci<") {
		t.Fatalf("the admin page after: %v (token shown again: %t)", err, strings.Contains(html, shown))
	}

	// A workspace added in the page, a person made an editor there (and
	// kept in default, where she worked); the admin opens it from the
	// picker.
	if _, err := env.App.Accounts.Add(t.Context(), "bea", "a long enough password", record.RoleEditor); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="add-workspace"]`)),
		chromedp.SendKeys(chromedp.CSS(`#workspace-name`), "acme"),
		chromedp.Click(chromedp.CSS(`[data-testid="add-workspace"] button`)),
		chromedp.WaitVisible(`//*[@data-testid="flash"][contains(., "Workspace acme added")]`),
		chromedp.SetValue(chromedp.CSS(`select[aria-label="role of bea in acme"]`), "editor"),
		chromedp.Click(chromedp.CSS(`form[action="/admin/workspaces/acme/members"]:has(select[aria-label="role of bea in acme"]) button`)),
		chromedp.WaitVisible(`//*[@data-testid="flash"][contains(., "bea is now editor in acme")]`),
	); err != nil {
		t.Fatalf("add a workspace and a member: %v", err)
	}
	people, err := env.App.Accounts.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range people {
		if r, ok := p.RoleIn("acme"); p.Name == "bea" && (!ok || r != record.RoleEditor) {
			t.Fatalf("bea in acme: %v %v", r, ok)
		}
		// She worked in default before: made a member of acme, she
		// keeps it (an admin takes it away with "none").
		if r, ok := p.RoleIn(record.DefaultWorkspace); p.Name == "bea" && (!ok || r != record.RoleEditor) {
			t.Fatalf("bea lost default when she joined acme: %v %v", r, ok)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/documents"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="workspace-pick"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="workspace-pick"] select`), "acme"),
		chromedp.Click(chromedp.CSS(`[data-testid="workspace-pick"] button`)),
		chromedp.WaitVisible(`//*[@data-testid="flash"][contains(., "Working in acme")]`),
	); err != nil {
		t.Fatalf("open acme from the picker: %v", err)
	}
	picked, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="workspace-pick"] select').value`))
	if err != nil || picked != "acme" {
		t.Fatalf("the picker after switching shows %q (%v)", picked, err)
	}
}

// A person, whatever their role, makes and revokes their own tokens (no
// higher than their role; another's token is not theirs to revoke) and
// changes their password with the current one, which ends their
// sessions.
func TestAccounts_OwnPage(t *testing.T) {
	t.Parallel()
	env := mustAppConfig(t, app.Providers{Concurrency: 1}, handlers.Config{MaxUploadBytes: 1 << 20})
	acc, ctx, srv := env.App.Accounts, t.Context(), env.Server
	for _, n := range []string{"vic", "val"} {
		if _, err := acc.Add(ctx, n, "a long enough password", record.RoleViewer); err != nil {
			t.Fatal(err)
		}
	}
	_, other, err := acc.NewToken(ctx, "val", "hers", "", "")
	if err != nil {
		t.Fatal(err)
	}
	resp := do(t, "POST", srv.URL+"/login", url.Values{"name": {"vic"}, "password": {"a long enough password"}}.Encode(), nil)
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == "kgstudio_session" {
			cookie = c.Name + "=" + c.Value
		}
	}
	me := map[string]string{"Cookie": cookie}
	if resp := do(t, "POST", srv.URL+"/account/tokens", url.Values{"name": {"up"}, "role": {"editor"}}.Encode(), me); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a viewer's editor token: status %d", resp.StatusCode)
	}
	resp = do(t, "POST", srv.URL+"/account/tokens", url.Values{"name": {"mine"}, "role": {"viewer"}}.Encode(), me)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `data-testid="new-token"`) || !strings.Contains(string(body), "kgs_") {
		t.Fatalf("own token: status %d", resp.StatusCode)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("the page showing a new token may be cached: Cache-Control %q", cc)
	}
	if resp := do(t, "POST", srv.URL+"/account/tokens/"+strconv.Itoa(other.ID)+"/revoke", "", me); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("revoking another's token: status %d", resp.StatusCode)
	}
	own, err := acc.OwnTokens(ctx, "vic")
	if err != nil || len(own) != 1 {
		t.Fatalf("own tokens: %v %v", own, err)
	}
	if resp := do(t, "POST", srv.URL+"/account/tokens/"+strconv.Itoa(own[0].ID)+"/revoke", "", me); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoking one's own token: status %d", resp.StatusCode)
	}
	if resp := do(t, "POST", srv.URL+"/account/password", url.Values{"current": {"not it at all"}, "password": {"another long password"}}.Encode(), me); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a wrong current password: status %d", resp.StatusCode)
	}
	if resp := do(t, "POST", srv.URL+"/account/password", url.Values{"current": {"a long enough password"}, "password": {"another long password"}}.Encode(), me); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("change password: status %d", resp.StatusCode)
	}
	if resp := do(t, "GET", srv.URL+"/account", "", me); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the session outlived the password change: status %d", resp.StatusCode)
	}
	if _, err := acc.SignIn(ctx, "vic", "another long password"); err != nil {
		t.Fatalf("the new password: %v", err)
	}
}
