package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/handlers"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// inWorkspace adds workspace name to a's server and returns it as a
// test application of its own: its App, on its database, behind the same
// server.
func (a *testApp) inWorkspace(tb testing.TB, name string) *testApp {
	tb.Helper()
	ctx := context.Background()
	if err := a.App.Accounts.AddWorkspace(ctx, name); err != nil {
		tb.Fatal(err)
	}
	w, err := a.App.Workspace(ctx, name)
	if err != nil {
		tb.Fatal(err)
	}
	return &testApp{Handler: a.Handler, App: w, Server: a.Server}
}

// Words that appear only in one workspace's document (never in a
// request), so an answer that holds one read that workspace.
const (
	markA = "Zarvenna"
	markB = "Brennavik"
)

// Every route, driven by a member of workspace B only with workspace A's
// names and ids, reads nothing of A and changes nothing in A; a viewer of
// A changes nothing; A's editor and admin read nothing of B. The chat
// APIs' model lists and MCP's tools and resources show a workspace's own
// versions alone.
func TestWorkspaces_NeverLeak(t *testing.T) {
	t.Parallel()
	f := newLeakFixture(t)
	ctx := t.Context()

	// The chat APIs list a workspace's own versions; so do MCP's tools
	// and resources.
	for _, c := range []struct {
		who        map[string]string
		mine, not_ string
	}{{f.aViewer, "qext", "bext"}, {f.bOnly, "bext", "qext"}} {
		checkListsOwnVersions(t, f.env.Server.URL, c.who, c.mine, c.not_)
	}

	// The serving worker stores a's layout just after its run: A's graph
	// is read with it from the start.
	testkit.Eventually(t, time.Minute, func() error {
		if _, ok, err := f.wa.App.Layouts.Stored(ctx, f.va); err != nil || !ok {
			return fmt.Errorf("a's layout not stored yet (%v)", err)
		}
		return nil
	})
	before := f.snapshot(t)
	if !strings.Contains(before, markA) || strings.Contains(before, markB) {
		t.Fatalf("a's admin does not see a alone: %.300s", before)
	}

	// Every route, its parameters A's.
	routes := f.env.Handler.NewServer().Routes()
	checkMemberOfBSeesNoA(t, f, routes)
	if after := f.snapshot(t); after != before {
		t.Fatalf("a member of b changed workspace a:\nbefore %.400s\nafter  %.400s", before, after)
	}
	checkViewerOfAOnlyReads(t, f, routes)
	if after := f.snapshot(t); after != before {
		t.Fatalf("a viewer changed workspace a:\nbefore %.400s\nafter  %.400s", before, after)
	}
	checkMembersOfASeeNoB(t, f, routes)
}

// leakFixture is two workspaces, a and b, each with one extraction, and
// the tokens of a's viewer, editor and admin and of a member of b alone.
type leakFixture struct {
	env, wa                         *testApp
	va                              record.Version
	docID                           int    // a's one document
	nodeKey                         string // the first node of a's graph
	aViewer, aEditor, aAdmin, bOnly map[string]string
	form, chat                      string // the bodies sent to form and JSON routes
}

// newLeakFixture builds the two workspaces and checks a member of b alone gets no token for a.
func newLeakFixture(t *testing.T) *leakFixture {
	t.Helper()
	env := mustAppConfig(t, app.Providers{Concurrency: 2}, handlers.Config{MaxUploadBytes: 1 << 20})
	ctx := t.Context()
	wa, wb := env.inWorkspace(t, "a"), env.inWorkspace(t, "b")
	va := wa.MustExtract(t, "qext", "quill-notes.txt", "Ottoline Quillonbridge was born in "+markA+". She founded the "+markA+" Institute in 1901.", extract.DefaultConfig())
	wb.MustExtract(t, "bext", "brenna-notes.txt", "Harald "+markB+" was born in Oslo. He founded the "+markB+" Society in 1920.", extract.DefaultConfig())
	if _, _, err := wa.App.Schemas.Save(ctx, "qschema", 0, schema.Default(), ""); err != nil {
		t.Fatal(err)
	}
	docs, err := wa.App.Documents.List(ctx, 0)
	if err != nil || len(docs) != 1 {
		t.Fatalf("workspace a's documents: %v %v", docs, err)
	}
	g, err := wa.App.Graphs.Load(ctx, va.ID, false)
	if err != nil || len(g.Nodes) == 0 {
		t.Fatalf("workspace a's graph: %v", err)
	}
	acc := env.App.Accounts
	f := &leakFixture{env: env, wa: wa, va: va, docID: docs[0].ID, nodeKey: g.Nodes[0].Key}
	f.aViewer, f.aEditor, f.aAdmin = leakToken(t, acc, "av", record.RoleViewer, "a"), leakToken(t, acc, "ae", record.RoleEditor, "a"), leakToken(t, acc, "boss", record.RoleAdmin, "a")
	f.bOnly = leakToken(t, acc, "bo", record.RoleEditor, "b")
	if _, _, err := acc.NewToken(ctx, "bo", "sneak", "", "a"); err == nil {
		t.Fatal("a member of b alone got a token for a")
	}
	f.form = url.Values{"text": {"A new note."}, "name": {"qext"}, "q": {"Who founded the institute?"}, "model": {"qext"},
		"versions": {strconv.Itoa(va.ID)}, "documents": {strconv.Itoa(docs[0].ID)}, "workspace": {"a"}}.Encode()
	f.chat = `{"model":"qext","messages":[{"role":"user","content":"Who founded the institute?"}]}`
	return f
}

// leakToken adds person with role (a member of ws alone unless an admin) and returns the header of a new token for ws.
func leakToken(t *testing.T, acc *app.Accounts, person string, role record.Role, ws string) map[string]string {
	t.Helper()
	ctx := t.Context()
	var spaces []string
	if role != record.RoleAdmin {
		spaces = []string{ws} // a member of ws alone
	}
	if _, err := acc.Add(ctx, person, "a long enough password", role, spaces...); err != nil {
		t.Fatal(err)
	}
	secret, _, err := acc.NewToken(ctx, person, "t", "", ws)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"Authorization": "Bearer " + secret}
}

// checkListsOwnVersions checks the chat APIs' model lists and MCP's tools and resources show who's workspace's versions alone.
func checkListsOwnVersions(t *testing.T, serverURL string, who map[string]string, mine, not_ string) {
	t.Helper()
	ctx := t.Context()
	for _, p := range []string{"/v1/models", "/api/tags"} {
		resp := do(t, "GET", serverURL+p, "", who)
		body, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(body), mine) || strings.Contains(string(body), not_) {
			t.Errorf("GET %s as a member of %s's workspace: %s", p, mine, body)
		}
	}
	cs, err := mcpSession(t, serverURL, &http.Client{Transport: bearer{strings.TrimPrefix(who["Authorization"], "Bearer ")}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_extractions", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, mine) || strings.Contains(text, not_) {
		t.Errorf("MCP list_extractions for %s's workspace: %s", mine, text)
	}
	rs, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs.Resources {
		if strings.Contains(r.URI+r.Name, not_) || strings.Contains(r.Name, "quill-notes") && mine != "qext" {
			t.Errorf("MCP resource of the other workspace for %s: %s", mine, r.URI)
		}
	}
}

// snapshot returns a's state, as its admin reads it: what no one else may change.
func (f *leakFixture) snapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"/api/documents", "/api/extractions", "/api/schemas", "/api/versions/" + strconv.Itoa(f.va.ID) + "/graph"} {
		resp := do(t, "GET", f.env.Server.URL+p, "", f.aAdmin)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("admin of a: GET %s: %d %s", p, resp.StatusCode, body)
		}
		b.Write(body)
	}
	return b.String()
}

// fill puts a's names and ids in path's parameters and query.
func (f *leakFixture) fill(path string) string {
	seg := strings.Split(path, "/")
	for i, s := range seg {
		switch {
		case s == ":id" && i > 0 && seg[i-1] == "documents":
			seg[i] = strconv.Itoa(f.docID)
		case s == ":id" && i > 0 && seg[i-1] == "models":
			seg[i] = f.va.Label()
		case s == ":id" || s == ":doc":
			seg[i] = strconv.Itoa(f.va.ID)
		case s == ":name" && i > 0 && seg[i-1] == "schemas":
			seg[i] = "qschema"
		case s == ":name" && i > 0 && seg[i-1] == "workspaces":
			seg[i] = "a"
		case s == ":name":
			seg[i] = "qext"
		case s == ":key":
			seg[i] = url.PathEscape(f.nodeKey)
		case s == ":account":
			seg[i] = "av"
		case s == ":index", s == ":turn":
			seg[i] = "0"
		case s == ":n":
			seg[i] = "1"
		}
	}
	id := strconv.Itoa(f.va.ID)
	return strings.Join(seg, "/") + "?a=" + id + "&b=" + id + "&version=" + id + "&q=" + url.QueryEscape("Who founded the institute?")
}

// send requests path, filled with a's names, as who, and returns the status and body.
func (f *leakFixture) send(t *testing.T, who map[string]string, method, path string) (int, string) {
	t.Helper()
	body := f.form
	h := map[string]string{}
	for k, v := range who {
		h[k] = v
	}
	if strings.HasPrefix(path, "/v1/") || path == "/api/chat" || path == "/api/show" {
		body = f.chat
		h["Content-Type"] = "application/json"
	}
	if method == http.MethodGet || method == http.MethodDelete {
		body = ""
	}
	resp := do(t, method, f.env.Server.URL+f.fill(path), body, h)
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// leakSkip reports whether path is left out of the sweeps.
func leakSkip(p string) bool {
	// The sign-in routes and one's own password and tokens are no
	// workspace's.
	return p == "/login" || p == "/logout" || strings.HasPrefix(p, "/account/") || strings.HasPrefix(p, "/static")
}

// checkMemberOfBSeesNoA checks no route, driven by a member of b with a's names, reads a or finds a's named things.
func checkMemberOfBSeesNoA(t *testing.T, f *leakFixture, routes []*echo.Route) {
	t.Helper()
	for _, r := range routes {
		if leakSkip(r.Path) {
			continue
		}
		status, body := f.send(t, f.bOnly, r.Method, r.Path)
		if strings.Contains(body, markA) || strings.Contains(body, "quill-notes") {
			t.Errorf("member of b: %s %s (%d) read workspace a: %.300s", r.Method, r.Path, status, body)
		}
		if strings.Contains(r.Path, ":name") && strings.HasPrefix(r.Path, "/api/") && status < 400 {
			t.Errorf("member of b: %s %s found a's %s: %d", r.Method, r.Path, r.Path, status)
		}
	}
}

// checkViewerOfAOnlyReads checks a's viewer is refused every route that changes things, and reads nothing of b.
func checkViewerOfAOnlyReads(t *testing.T, f *leakFixture, routes []*echo.Route) {
	t.Helper()
	viewerMay := func(method, path string) bool {
		return method == http.MethodGet || method == http.MethodHead || strings.HasSuffix(path, "/query") || path == "/mcp" ||
			path == "/workspace" || strings.HasPrefix(path, "/account/") ||
			path == "/v1/chat/completions" || path == "/api/chat" || path == "/api/show" || path == "/api/extractions/estimate"
	}
	for _, r := range routes {
		if leakSkip(r.Path) {
			continue
		}
		status, body := f.send(t, f.aViewer, r.Method, r.Path)
		if !viewerMay(r.Method, r.Path) && status != http.StatusForbidden {
			t.Errorf("viewer of a: %s %s: status %d, want 403: %.200s", r.Method, r.Path, status, body)
		}
		if strings.Contains(body, markB) {
			t.Errorf("viewer of a: %s %s read workspace b: %.300s", r.Method, r.Path, body)
		}
	}
}

// checkMembersOfASeeNoB checks no GET route read by a's editor or admin holds anything of b.
func checkMembersOfASeeNoB(t *testing.T, f *leakFixture, routes []*echo.Route) {
	t.Helper()
	for _, who := range []map[string]string{f.aEditor, f.aAdmin} {
		for _, r := range routes {
			if r.Method != http.MethodGet || leakSkip(r.Path) {
				continue
			}
			if status, body := f.send(t, who, r.Method, r.Path); strings.Contains(body, markB) || strings.Contains(body, "brenna-notes") {
				t.Errorf("%s of a: GET %s (%d) read workspace b: %.300s", who["Authorization"][:12], r.Path, status, body)
			}
		}
	}
}

// A person in two workspaces picks one in the browser; a workspace they
// are no member of is not found (its existence untold), and a token
// works in its own workspace whatever the request asks.
func TestWorkspaces_Switch(t *testing.T) {
	t.Parallel()
	env := mustAppConfig(t, app.Providers{Concurrency: 2}, handlers.Config{MaxUploadBytes: 1 << 20})
	ctx := t.Context()
	wa, wb := env.inWorkspace(t, "a"), env.inWorkspace(t, "b")
	env.inWorkspace(t, "c")
	wa.MustExtract(t, "qext", "quill-notes.txt", "Ottoline Quillonbridge was born in "+markA+".", extract.DefaultConfig())
	wb.MustExtract(t, "bext", "brenna-notes.txt", "Harald "+markB+" was born in Oslo.", extract.DefaultConfig())
	acc := env.App.Accounts
	if _, err := acc.Add(ctx, "both", "a long enough password", record.RoleEditor, "a", "b"); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	send := func(method, path string, v url.Values, hdr map[string]string) (int, string) {
		t.Helper()
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(v.Encode())
		}
		req, _ := http.NewRequest(method, env.Server.URL+path, body)
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", env.Server.URL)
		}
		for k, val := range hdr {
			req.Header.Set(k, val)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	post := func(path string, v url.Values, hdr map[string]string) (int, string) {
		t.Helper()
		return send(http.MethodPost, path, v, hdr)
	}
	get := func(path string, hdr map[string]string) (int, string) {
		t.Helper()
		return send(http.MethodGet, path, nil, hdr)
	}
	if status, _ := post("/login", url.Values{"name": {"both"}, "password": {"a long enough password"}}, nil); status != http.StatusOK {
		t.Fatalf("sign in: %d", status)
	}
	// Signed in, the first workspace they may enter: a.
	if _, body := get("/api/documents", nil); !strings.Contains(body, "quill-notes") {
		t.Fatalf("first workspace: %s", body)
	}
	if status, body := get("/", nil); status != http.StatusOK || !strings.Contains(body, `data-testid="workspace-pick"`) || strings.Contains(body, `value="c"`) {
		t.Fatalf("the picker offers a and b alone: %d", status)
	}
	if status, _ := post("/workspace", url.Values{"workspace": {"b"}}, nil); status != http.StatusOK {
		t.Fatalf("switch to b: %d", status)
	}
	if _, body := get("/api/documents", nil); !strings.Contains(body, "brenna-notes") || strings.Contains(body, "quill-notes") {
		t.Fatalf("after switching to b: %s", body)
	}
	if status, body := post("/workspace", url.Values{"workspace": {"c"}}, nil); status != http.StatusNotFound || strings.Contains(body, "brenna") {
		t.Fatalf("switch to c (no member): %d %s", status, body)
	}
	if status, _ := get("/api/documents", map[string]string{"X-Kgstudio-Workspace": "c"}); status != http.StatusNotFound {
		t.Fatalf("header naming c: %d", status)
	}
	// Their membership of b ends: the next request is in a.
	if err := acc.SetMember(ctx, "both", "b", ""); err != nil {
		t.Fatal(err)
	}
	if _, body := get("/api/documents", nil); !strings.Contains(body, "quill-notes") || strings.Contains(body, "brenna-notes") {
		t.Fatalf("after leaving b: %s", body)
	}
	// A token made for a works in a, whatever the header says.
	secret, _, err := acc.NewToken(ctx, "both", "t", "", "a")
	if err != nil {
		t.Fatal(err)
	}
	resp := do(t, "GET", env.Server.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer " + secret, "X-Kgstudio-Workspace": "b"})
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "quill-notes") || strings.Contains(string(body), "brenna") {
		t.Fatalf("token for a with a header naming b: %s", body)
	}
	// Leaving a too: the token opens nothing.
	if err := acc.SetMember(ctx, "both", "a", ""); err != nil {
		t.Fatal(err)
	}
	if err := acc.SetMember(ctx, "both", "c", record.RoleViewer); err != nil {
		t.Fatal(err)
	}
	if resp := do(t, "GET", env.Server.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer " + secret}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("token of a person who left its workspace: %d", resp.StatusCode)
	}
}

// A run started in a workspace through the API runs on that workspace's
// job queue (its own database's) to the end, and its version is that
// workspace's alone.
func TestWorkspaces_BackgroundRun(t *testing.T) {
	t.Parallel()
	dbs := map[string]app.Options{"sqlite": {DataDir: t.TempDir()}}
	if u := testkit.PostgresDB(t, "workspaces"); u != "" {
		dbs["postgres"] = app.Options{URL: u}
	}
	for name, opts := range dbs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			backgroundRun(t, mustAppOn(t, opts, app.Providers{Concurrency: 2}, handlers.Config{MaxUploadBytes: 1 << 20}))
		})
	}
}

func backgroundRun(t *testing.T, env *testApp) {
	ctx := t.Context()
	wa := env.inWorkspace(t, "a")
	acc := env.App.Accounts
	if _, err := acc.Add(ctx, "ed", "a long enough password", record.RoleEditor, "a"); err != nil {
		t.Fatal(err)
	}
	secret, _, err := acc.NewToken(ctx, "ed", "t", "", "a")
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{"Authorization": "Bearer " + secret}
	resp := do(t, "POST", env.Server.URL+"/api/documents", url.Values{"text": {"Grace Hopper was born in New York. She worked at Harvard."}, "name": {"hopper.txt"}}.Encode(), hdr)
	var doc struct {
		ID int `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("add a document in a: %d %v", resp.StatusCode, err)
	}
	hdr["Content-Type"] = "application/json"
	resp = do(t, "POST", env.Server.URL+"/api/extractions", fmt.Sprintf(`{"name":"hopper","strategy":"nlp","document_ids":[%d]}`, doc.ID), hdr)
	var v struct {
		ID int `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.ID == 0 {
		t.Fatalf("start a run in a: %d %v", resp.StatusCode, err)
	}
	got := waitVersion(t, wa, v.ID)
	if got.Status != record.StatusDone || got.Nodes == 0 {
		t.Fatalf("the run in a: %+v", got)
	}
	if vs, err := env.App.Versions.Recent(ctx, 10); err != nil || len(vs) != 0 {
		t.Fatalf("the default workspace holds %d versions (%v)", len(vs), err)
	}
}
