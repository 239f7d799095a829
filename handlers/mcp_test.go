package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	querypkg "github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/handlers"
)

func mcpSession(t *testing.T, url string, hc *http.Client) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: %+v", name, res.Content[0])
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestMCP_HTTP drives /mcp through the SDK's Streamable HTTP client:
// list, query, search, a node and its neighbours, a comparison, and the
// graph and document resources.
func TestMCP_HTTP(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)
	cs, err := mcpSession(t, a.Server.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) < 9 {
		t.Fatalf("tools %+v (%v)", tools, err)
	}
	var list struct {
		Extractions []struct {
			Name     string `json:"name"`
			Versions []struct {
				Version string `json:"version"`
				Status  string `json:"status"`
				Nodes   int    `json:"nodes"`
			} `json:"versions"`
		} `json:"extractions"`
	}
	callTool(t, cs, "list_extractions", map[string]any{}, &list)
	if len(list.Extractions) != 1 || list.Extractions[0].Versions[0].Version != v.Label() || list.Extractions[0].Versions[0].Nodes != v.Nodes {
		t.Fatalf("list %+v", list)
	}
	var q struct {
		Answer   string `json:"answer"`
		Mode     string `json:"mode"`
		Entities []struct {
			Key  string `json:"key"`
			Name string `json:"name"`
		} `json:"entities"`
	}
	callTool(t, cs, "query", map[string]any{"question": partnerQuestion, "version": fmt.Sprint(v.ID), "top_k": 5}, &q)
	if q.Mode != "mix" || !strings.Contains(q.Answer, "### References") || len(q.Entities) == 0 || len(q.Entities) > 5 {
		t.Fatalf("query %+v", q)
	}
	var found struct {
		Nodes []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"nodes"`
		Matched int `json:"matched"`
	}
	callTool(t, cs, "search_nodes", map[string]any{"version": v.Label(), "text": "marley"}, &found)
	if len(found.Nodes) == 0 || !strings.Contains(strings.ToLower(found.Nodes[0].Name), "marley") || found.Matched < len(found.Nodes) {
		t.Fatalf("search %+v", found)
	}
	key := found.Nodes[0].ID
	var node struct {
		Key      string            `json:"key"`
		Out      []json.RawMessage `json:"out"`
		In       []json.RawMessage `json:"in"`
		Mentions []json.RawMessage `json:"mentions"`
	}
	callTool(t, cs, "get_node", map[string]any{"version": v.Label(), "key": key}, &node)
	if node.Key != key || len(node.Out)+len(node.In) == 0 || len(node.Mentions) == 0 {
		t.Fatalf("node %+v", node)
	}
	var nb struct {
		Nodes []struct{ Key string } `json:"nodes"`
		Edges []struct{ Source, Target string }
	}
	callTool(t, cs, "neighbors", map[string]any{"version": v.Label(), "key": key}, &nb)
	if len(nb.Nodes) < 2 || len(nb.Edges) == 0 {
		t.Fatalf("neighbours %+v", nb)
	}
	var cmp struct {
		Summary map[string]any `json:"summary"`
	}
	callTool(t, cs, "compare", map[string]any{"a": v.Label(), "b": v.Label()}, &cmp)
	if cmp.Summary == nil {
		t.Fatalf("compare %+v", cmp)
	}

	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: fmt.Sprintf("kgstudio://versions/%d/graph", v.ID)})
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Version string            `json:"version"`
		Nodes   []json.RawMessage `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &g); err != nil || g.Version != v.Label() || len(g.Nodes) != v.Nodes {
		t.Fatalf("graph resource: %v %s %d nodes", err, g.Version, len(g.Nodes))
	}
	byName, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "kgstudio://versions/" + v.Label() + "/graph"})
	if err != nil || byName.Contents[0].Text != res.Contents[0].Text {
		t.Fatalf("the graph resource by NAME@V: %v", err)
	}
	res, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: fmt.Sprintf("kgstudio://documents/%d", v.DocumentIDs[0])})
	if err != nil || !strings.Contains(res.Contents[0].Text, "Marley was dead") {
		t.Fatalf("document resource: %v", err)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "kgstudio://documents/9999"}); err == nil {
		t.Fatal("an unknown document was read")
	}
	templates, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(templates.ResourceTemplates) != 2 {
		t.Fatalf("templates %+v (%v)", templates, err)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCP_Token: beyond loopback /mcp takes the token as the API does.
func TestMCP_Token(t *testing.T) {
	t.Parallel()
	const token = "mcp-token-never-shown-1234"
	srv := tokenServer(t, handlers.Config{Token: token})
	if _, err := mcpSession(t, srv.URL, nil); err == nil {
		t.Fatal("connected without the token")
	}
	cs, err := mcpSession(t, srv.URL, &http.Client{Transport: bearer{token}})
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	var list struct {
		Extractions []json.RawMessage `json:"extractions"`
	}
	callTool(t, cs, "list_extractions", map[string]any{}, &list)
}

// An MCP client over HTTP keeps working across a server restart without
// being rebuilt (the server keeps no session), and the tools carry their
// annotations; resources/list lists the finished versions' graphs and the
// documents; query's text carries the passages after the answer; get_node
// takes an exact name, and a name it cannot take points to the nodes
// whose names contain it.
func TestMCP_HTTPAcrossRestart(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)
	var current atomic.Pointer[http.Handler]
	serve := func() {
		h := handlers.New(a.App, slog.New(slog.NewTextHandler(io.Discard, nil)), handlers.Config{MaxUploadBytes: 1 << 20}).NewServer()
		var hh http.Handler = h
		current.Store(&hh)
	}
	serve()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	cs, err := mcpSession(t, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Annotations == nil || tl.Annotations.Title == "" {
			t.Errorf("tool %s has no annotations", tl.Name)
			continue
		}
		if write := tl.Name == "add_document" || tl.Name == "extract"; tl.Annotations.ReadOnlyHint == write {
			t.Errorf("tool %s read-only %t", tl.Name, tl.Annotations.ReadOnlyHint)
		}
		if tl.Name == "query" {
			// The modes a client may pick are the query package's.
			var sc struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			}
			raw, _ := json.Marshal(tl.InputSchema)
			if err := json.Unmarshal(raw, &sc); err != nil || !slices.Equal(sc.Properties["mode"].Enum, querypkg.ModeNames()) {
				t.Errorf("query's modes %v, want %v (%v)", sc.Properties["mode"].Enum, querypkg.Modes, err)
			}
		}
	}
	serve() // a restart: a new server, nothing of the old one kept
	var q struct {
		Answer string `json:"answer"`
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"version": v.Label(), "question": partnerQuestion}})
	if err != nil || res.IsError {
		t.Fatalf("query after a restart: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &q); err != nil || q.Answer == "" {
		t.Fatalf("answer %q (%v)", q.Answer, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.HasPrefix(text, q.Answer) || !strings.Contains(text, "### Passages") || !strings.Contains(text, "kgstudio://documents/") {
		t.Fatalf("query text lacks its passages:\n%s", text)
	}
	list, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range list.Resources {
		uris[r.URI] = true
	}
	graphURI := "kgstudio://versions/" + v.Label() + "/graph"
	if !uris[graphURI] || len(list.Resources) < 2 {
		t.Fatalf("resources %v lack %s and a document", uris, graphURI)
	}
	if r, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: graphURI}); err != nil || len(r.Contents) == 0 {
		t.Fatalf("read %s: %v", graphURI, err)
	}
	var node struct {
		Key string `json:"key"`
	}
	callTool(t, cs, "get_node", map[string]any{"version": v.Label(), "key": "ebenezer SCROOGE"}, &node)
	if node.Key != "ebenezer scrooge" {
		t.Fatalf("get_node by name: %+v", node)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_node", Arguments: map[string]any{"version": v.Label(), "key": "Marl"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Marley") {
		t.Fatalf("get_node of part of a name: %v %+v", err, res)
	}
}
