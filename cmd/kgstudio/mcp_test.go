package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

// TestMCP_Stdio drives `kgstudio mcp` through the SDK's own client over
// the command's stdin and stdout: it initializes, lists the tools, adds a
// document, starts an extraction with the extract tool, follows it with
// run_status until it is done, and asks it with query (an extractive
// answer citing its document, offline); bad arguments are tool errors
// that say what is wrong.
func TestMCP_Stdio(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("KGSTUDIO_EMBEDDER", "offline")
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"mcp", "--data", data, "--log-level", "warn"}, inR, outW, &stderr)
		outW.Close()
		done <- err
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "kgstudio" {
		t.Fatalf("server info %+v", info)
	}
	mcpCheckTools(t, ctx, cs)
	mcpExtractDocument(t, ctx, cs, &stderr)
	mcpCheckQuery(t, ctx, cs)
	mcpCheckBadArguments(t, ctx, cs)

	cs.Close()
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcp ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcp did not end when its stdin closed")
	}
}

// mcpCheckTools checks the server lists every tool, each with a description and an input schema.
func mcpCheckTools(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tl.Name)
		}
	}
	for _, want := range []string{"list_extractions", "query", "get_node", "neighbors", "search_nodes", "add_document", "extract", "run_status", "compare"} {
		if !slices.Contains(names, want) {
			t.Errorf("no tool %s among %v", want, names)
		}
	}
}

// mcpCall calls a tool, failing the test if the call fails, and decodes a non-error result into out if not nil.
func mcpCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return res
}

// mcpExtractDocument checks add_document and extract start m@1 and run_status sees it done with nodes in a minute.
func mcpExtractDocument(t *testing.T, ctx context.Context, cs *mcp.ClientSession, stderr *bytes.Buffer) {
	t.Helper()
	call := func(name string, args map[string]any, out any) *mcp.CallToolResult {
		t.Helper()
		return mcpCall(t, ctx, cs, name, args, out)
	}
	var doc struct {
		ID      int  `json:"id"`
		Created bool `json:"created"`
	}
	if res := call("add_document", map[string]any{"name": "marley.txt",
		"text": "Marley was dead, to begin with. Scrooge and Marley were partners in London for many years. Scrooge signed the register."}, &doc); res.IsError || !doc.Created {
		t.Fatalf("add_document: %+v %+v", res, doc)
	}
	var started struct {
		Version string `json:"version"`
		Status  string `json:"status"`
	}
	if res := call("extract", map[string]any{"name": "m", "document_ids": []int{doc.ID}}, &started); res.IsError || started.Version != "m@1" {
		t.Fatalf("extract: %+v %+v", res, started)
	}
	err := testkit.Poll(time.Minute, func() error {
		var st struct {
			Status string `json:"status"`
			Nodes  int    `json:"nodes"`
		}
		if res := call("run_status", map[string]any{"version": "m@1"}, &st); res.IsError {
			t.Fatalf("run_status: %+v", res.Content)
		}
		if st.Status == "failed" || st.Status == "canceled" {
			t.Fatalf("the run ended %s (stderr: %s)", st.Status, stderr.String())
		}
		if st.Status != "done" || st.Nodes == 0 {
			return fmt.Errorf("the run is %s with %d nodes", st.Status, st.Nodes)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("after a minute: %v (stderr: %s)", err, stderr.String())
	}
}

// mcpCheckQuery checks query on m answers extractively, citing marley.txt, with the answer and passages as text.
func mcpCheckQuery(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	var q struct {
		Answer     string `json:"answer"`
		Extractive bool   `json:"extractive"`
		Mode       string `json:"mode"`
		References []struct {
			N     int    `json:"n"`
			Title string `json:"title"`
		} `json:"references"`
		Chunks []json.RawMessage `json:"chunks"`
	}
	res := mcpCall(t, ctx, cs, "query", map[string]any{"question": "Who was Marley's partner?", "version": "m", "mode": "naive"}, &q)
	if res.IsError || !q.Extractive || q.Mode != "naive" || len(q.Chunks) == 0 || len(q.References) != 1 || q.References[0].Title != "marley.txt" {
		t.Fatalf("query: %+v %+v", res.Content, q)
	}
	if !strings.Contains(q.Answer, "Scrooge and Marley were partners") || !strings.Contains(q.Answer, "- [1] marley.txt") {
		t.Fatalf("answer:\n%s", q.Answer)
	}
	// The text is the answer, then the passages it stands on.
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.HasPrefix(tc.Text, q.Answer) || !strings.Contains(tc.Text[len(q.Answer):], "Scrooge and Marley were partners") {
		t.Fatalf("the text content is not the answer and its passages: %+v", res.Content)
	}
}

// mcpCheckBadArguments checks bad arguments are tool errors naming the problem, and a mistyped one is not taken.
func mcpCheckBadArguments(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"query", map[string]any{"question": "Who?", "version": "nosuch"}, "nosuch"},
		{"query", map[string]any{"question": "Who?", "version": "m@1", "mode": "sideways"}, "sideways"},
		{"neighbors", map[string]any{"version": "m@1", "key": "no such node"}, "no node"},
		{"extract", map[string]any{"name": "x", "document_ids": []int{}}, "document"},
	} {
		res := mcpCall(t, ctx, cs, tc.tool, tc.args, nil)
		text := ""
		if len(res.Content) > 0 {
			if c, ok := res.Content[0].(*mcp.TextContent); ok {
				text = c.Text
			}
		}
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error %v %q, want a tool error naming %q", tc.tool, tc.args, res.IsError, text, tc.want)
		}
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"question": 3}}); err == nil && !res.IsError {
		t.Error("a question of the wrong type was taken")
	}
}

// A malformed line on stdin gets a JSON-RPC error and the session goes
// on: a line that is not JSON (-32700), JSON that is no message (-32600),
// then a request that is answered.
func TestMCP_StdioMalformedLine(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("KGSTUDIO_EMBEDDER", "offline")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"mcp", "--data", t.TempDir(), "--no-worker", "--log-level", "error"}, inR, outW, io.Discard)
		outW.Close()
		done <- err
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no answer: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", lines.Text(), err)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`this is not json {`)
	if m := next(); code(m) != -32700 {
		t.Fatalf("a line that is not JSON: %v", m)
	}
	send(`42`)
	if m := next(); code(m) != -32600 {
		t.Fatalf("a number for a message: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := next(); m["result"] == nil || m["id"] != float64(2) {
		t.Fatalf("tools/list after the malformed lines: %v", m)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcp ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcp did not end when its stdin closed")
	}
}
