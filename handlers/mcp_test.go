package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/handlers"
	"github.com/kgstudio/kgstudio/internal/testdata"
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

// An MCP session over HTTP that sees no request for the idle time is
// closed (its memory freed): a request naming it is refused and a new
// session starts.
func TestMCP_HTTPSessionExpires(t *testing.T) {
	t.Parallel()
	srv := mustAppConfig(t, app.Providers{}, handlers.Config{MCPSessionIdle: 50 * time.Millisecond}).Server
	post := func(session, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	// Each try waits longer without a request (a request keeps the
	// session alive), until the idle session is gone.
	wait := 100 * time.Millisecond
	testdata.Eventually(t, 30*time.Second, func() error {
		time.Sleep(wait)
		wait *= 2
		if code := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode; code != http.StatusNotFound {
			return fmt.Errorf("an idle session still answers (%d)", code)
		}
		return nil
	})
	if resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("a new session after the old one expired: %d", resp.StatusCode)
	}
}
