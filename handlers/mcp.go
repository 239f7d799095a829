package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
)

// The MCP server lets agents (Claude Desktop, IDE agents) use kgstudio
// through the Model Context Protocol: `kgstudio mcp` over stdio, and
// Streamable HTTP at /mcp on `serve`, behind the same token rules as the
// API. Its tools list, query, explore, feed and compare extractions; its
// resources are versions' graphs and documents.

// MCPServer builds the MCP server over the application.
func MCPServer(a *app.App, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "kgstudio", Title: "kgstudio knowledge graphs", Version: version}, &mcp.ServerOptions{
		Instructions: "kgstudio turns documents into knowledge graphs. list_extractions names the versions (NAME@V); " +
			"query answers a question from one with its evidence and references; get_node, neighbors and search_nodes explore " +
			"its graph; add_document and extract build a new one; run_status follows a run; compare diffs two versions.",
	})
	t := &mcpTools{a: a}
	mcp.AddTool(s, &mcp.Tool{Name: "list_extractions", Annotations: readOnly("List extractions"), Description: "List the extractions and their versions (newest first), with status, strategy and size."}, t.listExtractions)
	mcp.AddTool(s, &mcp.Tool{Name: "query", Annotations: readOnly("Ask a version a question"), InputSchema: queryInSchema(), Description: "Answer a question from a finished version: the answer (a model's when one is configured, " +
		"else extractive: the best sentences) with its references, and the entities, relations and passages retrieved."}, t.query)
	mcp.AddTool(s, &mcp.Tool{Name: "get_node", Annotations: readOnly("A node and its edges"), Description: "A node of a version by key: its type, description, properties, edges in and out and where the documents mention it."}, t.getNode)
	mcp.AddTool(s, &mcp.Tool{Name: "neighbors", Annotations: readOnly("The nodes around a node"), Description: "The nodes within depth steps of a node (1 or 2, either direction), with their descriptions, and the edges among them."}, t.neighbors)
	mcp.AddTool(s, &mcp.Tool{Name: "search_nodes", Annotations: readOnly("Find nodes by name"), Description: "Nodes of a version whose name contains the text (any case), optionally of some types, best connected first; a node's id is the key get_node and neighbors take."}, t.searchNodes)
	mcp.AddTool(s, &mcp.Tool{Name: "add_document", Annotations: idempotentWrite("Store a document"), Description: "Store a text as a document (a document with the same content is the stored one)."}, t.addDocument)
	mcp.AddTool(s, &mcp.Tool{Name: "extract", Annotations: writes("Start an extraction run"), Description: "Start an extraction run over documents; returns the new version at once (follow it with run_status)."}, t.extract)
	mcp.AddTool(s, &mcp.Tool{Name: "run_status", Annotations: readOnly("Where a run stands"), Description: "Where a version's run stands: status, phase, chunks done, nodes and edges, errors."}, t.runStatus)
	mcp.AddTool(s, &mcp.Tool{Name: "compare", Annotations: readOnly("Compare two versions"), Description: "Compare two versions: nodes and edges added, removed and changed, and the summary."}, t.compare)
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "graph", URITemplate: "kgstudio://versions/{+version}/graph", MIMEType: "application/json",
		Description: "A version's whole graph (nodes and edges) as JSON; the version by id, NAME@V or NAME."}, t.readResource)
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "document", URITemplate: "kgstudio://documents/{id}", MIMEType: "text/plain",
		Description: "A document's text."}, t.readResource)
	s.AddReceivingMiddleware(t.listResources)
	return s
}

// mcpHandler serves the MCP server over Streamable HTTP, stateless: no
// session lives in the server, so a client keeps working across a
// restart (or on another replica) and an idle client holds no memory;
// every tool and resource answers from the request alone. The token and
// same-site rules run before it as on every route.
// Each workspace has its own server, over its own App: a request reaches
// the one of the workspace it works in.
func (h *Handler) mcpHandler() echo.HandlerFunc {
	var mu sync.Mutex
	servers := map[*app.App]*mcp.Server{}
	hh := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		a := h.appIn(r.Context())
		mu.Lock()
		defer mu.Unlock()
		srv, ok := servers[a]
		if !ok {
			srv = MCPServer(a, h.cfg.Version)
			servers[a] = srv
		}
		return srv
	}, &mcp.StreamableHTTPOptions{Stateless: true})
	return echo.WrapHandler(hh)
}

type mcpTools struct{ a *app.App }

// Tool annotations: every tool works on this server's own data (a closed
// world) and none deletes anything.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
}

// idempotentWrite is a tool that stores, the same call storing nothing
// more (a document is stored once by its content).
func idempotentWrite(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, IdempotentHint: true, DestructiveHint: new(false), OpenWorldHint: new(false)}
}

// writes is a tool each call of which adds something (a run).
func writes(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: new(false), OpenWorldHint: new(false)}
}

// mcpResourcePage is how many resources one resources/list page holds.
const mcpResourcePage = 100

// listResources answers resources/list: the graphs of the finished
// versions, newest first, then the documents, a page at a time (the
// cursor is where the page starts). The server's registered templates
// read them.
func (t *mcpTools) listResources(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/list" {
			return next(ctx, method, req)
		}
		start := 0
		if p, ok := req.GetParams().(*mcp.ListResourcesParams); ok && p != nil && p.Cursor != "" {
			n, err := strconv.Atoi(p.Cursor)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("invalid cursor %q", p.Cursor)
			}
			start = n
		}
		var all []*mcp.Resource
		versions, err := t.a.Queries.ChatModels(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range versions {
			all = append(all, &mcp.Resource{URI: "kgstudio://versions/" + v.Label() + "/graph", Name: v.Label() + " graph", MIMEType: "application/json",
				Description: fmt.Sprintf("The graph of %s: %d nodes, %d edges (%s)", v.Label(), v.Nodes, v.Edges, v.Config.Strategy)})
		}
		docs, err := t.a.Documents.List(ctx, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			all = append(all, &mcp.Resource{URI: fmt.Sprintf("kgstudio://documents/%d", d.ID), Name: d.Name, MIMEType: "text/plain",
				Description: "The text of document " + d.Name})
		}
		out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
		if start < len(all) {
			end := min(start+mcpResourcePage, len(all))
			out.Resources = all[start:end]
			if end < len(all) {
				out.NextCursor = strconv.Itoa(end)
			}
		}
		return out, nil
	}
}

// version finds a version by NAME@V, NAME (its latest) or its id.
func (t *mcpTools) version(ctx context.Context, ref string) (record.Version, error) {
	ref = strings.TrimSpace(ref)
	if id, err := strconv.Atoi(ref); err == nil && id > 0 {
		return t.a.Versions.Get(ctx, id)
	}
	if ref == "" {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "name a version: NAME@V, NAME for its latest, or its id (list_extractions lists them)")
	}
	return t.a.Versions.ByRef(ctx, ref)
}

// finished finds a version as version does and refuses one whose run has
// not ended done: its graph is not all there yet.
func (t *mcpTools) finished(ctx context.Context, ref string) (record.Version, error) {
	v, err := t.version(ctx, ref)
	if err == nil && v.Status != record.StatusDone {
		err = extract.Errorf(extract.KindConflict, "%s is %s: only a finished version answers (follow a run with run_status)", v.Label(), v.Status)
	}
	return v, err
}

// toolError makes an error a tool's answer: what went wrong, in words an
// agent can act on.
func toolError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s", extract.MessageOf(err))
}

type mcpVersion struct {
	Version  string `json:"version" jsonschema:"NAME@V"`
	ID       int    `json:"id"`
	Status   string `json:"status"`
	Strategy string `json:"strategy,omitempty"`
	Nodes    int    `json:"nodes"`
	Edges    int    `json:"edges"`
	Created  string `json:"created"`
}

func versionOut(v record.Version) mcpVersion {
	return mcpVersion{Version: v.Label(), ID: v.ID, Status: string(v.Status), Strategy: string(v.Config.Strategy), Nodes: v.Nodes, Edges: v.Edges,
		Created: v.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")}
}

type listIn struct{}

type listOut struct {
	Extractions []struct {
		Name     string       `json:"name"`
		Versions []mcpVersion `json:"versions"`
	} `json:"extractions"`
}

func (t *mcpTools) listExtractions(ctx context.Context, _ *mcp.CallToolRequest, _ listIn) (*mcp.CallToolResult, listOut, error) {
	out := listOut{Extractions: []struct {
		Name     string       `json:"name"`
		Versions []mcpVersion `json:"versions"`
	}{}}
	exs, err := t.a.Versions.Extractions(ctx, 0)
	if err != nil {
		return nil, out, toolError(err)
	}
	for _, ex := range exs {
		e := struct {
			Name     string       `json:"name"`
			Versions []mcpVersion `json:"versions"`
		}{Name: ex.Name, Versions: []mcpVersion{}}
		for _, v := range ex.Versions {
			e.Versions = append(e.Versions, versionOut(v))
		}
		out.Extractions = append(out.Extractions, e)
	}
	return nil, out, nil
}

type queryIn struct {
	Question string `json:"question" jsonschema:"the question"`
	Version  string `json:"version" jsonschema:"the version to ask: NAME@V, NAME for its latest, or its id"`
	Mode     string `json:"mode,omitempty"` // its enum: queryInSchema
	TopK     int    `json:"top_k,omitempty" jsonschema:"entities, relations and passages to retrieve (default 10)"`
	// ResponseType shapes a model's answer, as LightRAG's response_type.
	ResponseType string `json:"response_type,omitempty" jsonschema:"the answer's shape for a model: Multiple Paragraphs (the default), Single Paragraph, Bullet Points ..."`
}

// queryInSchema is queryIn's input schema with the modes the query
// package knows as the mode's enum, so the list is never written out.
func queryInSchema() *jsonschema.Schema {
	sc, err := jsonschema.For[queryIn](nil)
	if err != nil {
		panic(err) // a struct of strings and an int: fixed at build time
	}
	mode := sc.Properties["mode"]
	for _, m := range query.Modes {
		mode.Enum = append(mode.Enum, m)
	}
	mode.Description = "the query mode, mix by default (ppr: a walk from the entities the question names, for questions that link them)"
	return sc
}

type queryOut struct {
	Version    string             `json:"version"`
	Mode       string             `json:"mode"`
	Answer     string             `json:"answer"`
	Extractive bool               `json:"extractive"`
	References []query.Reference  `json:"references"`
	Entities   []query.Entity     `json:"entities"`
	Relations  []query.Relation   `json:"relations"`
	Chunks     []query.ChunkHit   `json:"chunks"`
	Note       string             `json:"note,omitempty"`
	Keywords   *app.QueryKeywords `json:"keywords,omitempty"`
}

func (t *mcpTools) query(ctx context.Context, _ *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, queryOut, error) {
	var out queryOut
	v, err := t.finished(ctx, in.Version)
	if err != nil {
		return nil, out, toolError(err)
	}
	res, err := t.a.Queries.Ask(ctx, v, app.QueryInput{Question: in.Question, Mode: query.Mode(in.Mode), TopK: in.TopK, ResponseType: in.ResponseType})
	if err != nil {
		return nil, out, toolError(err)
	}
	out = queryOut{Version: v.Label(), Mode: string(res.Mode), Entities: res.Entities, Relations: res.Relations, Chunks: res.Chunks,
		References: res.Context().References(), Note: res.Note, Keywords: &res.Keywords}
	if res.Answer != nil {
		out.Answer, out.Extractive = res.Answer.Text, res.Answer.Extractive
	}
	if out.References == nil {
		out.References = []query.Reference{}
	}
	// The answer reads best as text, with the passages it stands on (an
	// agent that reads only the text still has the evidence); all of it
	// comes as structure too.
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: queryText(out)}}}, out, nil
}

// mcpPassages and mcpPassageBytes bound the passages a query's text
// carries after its answer.
const (
	mcpPassages     = 5
	mcpPassageBytes = 700
)

// queryText is a query's answer followed by its first passages, each
// with its reference.
func queryText(out queryOut) string {
	var b strings.Builder
	b.WriteString(out.Answer)
	if out.Note != "" {
		b.WriteString("\n\n(" + out.Note + ")")
	}
	if len(out.Chunks) > 0 {
		b.WriteString("\n\n### Passages\n")
	}
	for i, c := range out.Chunks {
		if i == mcpPassages {
			fmt.Fprintf(&b, "\n(%d more in the structured result)\n", len(out.Chunks)-i)
			break
		}
		doc := c.Document
		if doc == "" {
			doc = fmt.Sprintf("document %d", c.DocumentID)
		}
		fmt.Fprintf(&b, "\n[%s] %s, passage %d (kgstudio://documents/%d):\n%s\n", c.Ref, doc, c.Index, c.DocumentID, extract.Clip(strings.TrimSpace(c.Text), mcpPassageBytes))
	}
	return b.String()
}

type nodeIn struct {
	Version string `json:"version" jsonschema:"NAME@V, NAME or id"`
	Key     string `json:"key" jsonschema:"the node's key, or its exact name (search_nodes finds keys)"`
}

func (t *mcpTools) getNode(ctx context.Context, _ *mcp.CallToolRequest, in nodeIn) (*mcp.CallToolResult, app.NodeDetail, error) {
	v, err := t.finished(ctx, in.Version)
	if err != nil {
		return nil, app.NodeDetail{}, toolError(err)
	}
	d, err := t.a.Queries.NodeByRef(ctx, v, in.Key)
	return nil, d, toolError(err)
}

type neighborsIn struct {
	Version string `json:"version" jsonschema:"NAME@V, NAME or id"`
	Key     string `json:"key" jsonschema:"the node's key"`
	Depth   int    `json:"depth,omitempty" jsonschema:"steps from the node: 1 (the default) or 2"`
}

type graphOut struct {
	Nodes []mcpNode `json:"nodes"`
	Edges []mcpEdge `json:"edges"`
}

type mcpNode struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

type mcpEdge struct {
	Source      string  `json:"source"`
	Label       string  `json:"label"`
	Target      string  `json:"target"`
	Description string  `json:"description,omitempty"`
	Weight      float64 `json:"weight"`
}

func graphOf(g extract.Graph, withDescriptions bool) graphOut {
	out := graphOut{Nodes: []mcpNode{}, Edges: []mcpEdge{}}
	for _, n := range g.Nodes {
		m := mcpNode{Key: n.Key, Name: n.Name, Type: n.Type}
		if withDescriptions {
			m.Description = n.Description
		}
		out.Nodes = append(out.Nodes, m)
	}
	for _, e := range g.Edges {
		m := mcpEdge{Source: e.Source, Label: e.Label, Target: e.Target, Weight: e.Weight}
		if withDescriptions {
			m.Description = e.Description
		}
		out.Edges = append(out.Edges, m)
	}
	return out
}

func (t *mcpTools) neighbors(ctx context.Context, _ *mcp.CallToolRequest, in neighborsIn) (*mcp.CallToolResult, graphOut, error) {
	v, err := t.finished(ctx, in.Version)
	if err != nil {
		return nil, graphOut{}, toolError(err)
	}
	depth := in.Depth
	if depth == 0 {
		depth = 1
	}
	if depth < 1 || depth > 2 {
		return nil, graphOut{}, fmt.Errorf("depth must be 1 or 2")
	}
	g, err := t.a.Graphs.Within(ctx, v.ID, in.Key, depth)
	if err != nil {
		return nil, graphOut{}, toolError(err)
	}
	if len(g.Nodes) == 0 {
		return nil, graphOut{}, fmt.Errorf("%s has no node with key %q (search_nodes finds keys)", v.Label(), in.Key)
	}
	return nil, graphOf(g, true), nil
}

type searchIn struct {
	Version string   `json:"version" jsonschema:"NAME@V, NAME or id"`
	Text    string   `json:"text" jsonschema:"text the node's name contains, in any case"`
	Types   []string `json:"types,omitempty" jsonschema:"keep nodes of these types only"`
	Limit   int      `json:"limit,omitempty" jsonschema:"at most this many nodes (default 20, at most 200)"`
}

type searchOut struct {
	Nodes   []extract.SubgraphNode `json:"nodes"`
	Matched int                    `json:"matched"`
}

func (t *mcpTools) searchNodes(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, searchOut, error) {
	out := searchOut{Nodes: []extract.SubgraphNode{}}
	v, err := t.finished(ctx, in.Version)
	if err != nil {
		return nil, out, toolError(err)
	}
	if strings.TrimSpace(in.Text) == "" {
		return nil, out, fmt.Errorf("text is empty: give part of a name")
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > 200 {
		return nil, out, fmt.Errorf("limit must be from 1 to 200")
	}
	q := extract.SubgraphQuery{Q: strings.TrimSpace(in.Text), Types: in.Types, Limit: limit}
	out.Matched, _, err = t.a.Graphs.Stream(ctx, v.ID, q, record.SubgraphRows{
		Node: func(n extract.SubgraphNode) error { out.Nodes = append(out.Nodes, n); return nil },
		Edge: func(extract.SubgraphEdge) error { return nil },
	})
	return nil, out, toolError(err)
}

type addDocIn struct {
	Name string `json:"name" jsonschema:"the document's name, e.g. notes.txt or report.md"`
	Text string `json:"text" jsonschema:"the document's text"`
}

type addDocOut struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	Created bool   `json:"created"`
}

// mcpMayWrite refuses a writing tool to a caller whose role only reads
// (a viewer's token over MCP's HTTP endpoint).
func mcpMayWrite(ctx context.Context) error {
	if who := app.PrincipalOf(ctx); !who.Role.AtLeast(record.RoleEditor) {
		return extract.Errorf(extract.KindForbidden, "%s may only read and ask: this tool needs the editor role", who.Name())
	}
	return nil
}

func (t *mcpTools) addDocument(ctx context.Context, _ *mcp.CallToolRequest, in addDocIn) (*mcp.CallToolResult, addDocOut, error) {
	if err := mcpMayWrite(ctx); err != nil {
		return nil, addDocOut{}, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = "document.txt"
	}
	d, err := extract.ReadDocument(name, []byte(in.Text), extract.DefaultMaxBytes)
	if err != nil {
		return nil, addDocOut{}, toolError(err)
	}
	stored, created, err := t.a.Documents.Add(ctx, []extract.Document{d})
	if err != nil {
		return nil, addDocOut{}, toolError(err)
	}
	return nil, addDocOut{ID: stored[0].ID, Name: stored[0].Name, Created: created[0]}, nil
}

type extractIn struct {
	Name        string `json:"name" jsonschema:"the extraction's name (a new version of it when it exists)"`
	DocumentIDs []int  `json:"document_ids" jsonschema:"the documents to extract from (add_document returns ids)"`
	Strategy    string `json:"strategy,omitempty" jsonschema:"nlp (offline, the default), tuple, schema or dialogue"`
	Schema      string `json:"schema,omitempty" jsonschema:"a schema NAME or NAME@V for the schema strategy"`
}

func (t *mcpTools) extract(ctx context.Context, _ *mcp.CallToolRequest, in extractIn) (*mcp.CallToolResult, mcpVersion, error) {
	if err := mcpMayWrite(ctx); err != nil {
		return nil, mcpVersion{}, err
	}
	cfg := extract.DefaultConfig()
	if in.Strategy != "" {
		cfg.Strategy = extract.Strategy(in.Strategy)
		if cfg.Strategy != extract.StrategyNLP {
			cfg.Provider = ""
		}
	}
	v, _, err := t.a.Runs.NewRun(ctx, app.RunRequest{Extraction: in.Name, Config: cfg, SchemaRef: in.Schema, DocumentIDs: in.DocumentIDs})
	if err != nil {
		return nil, mcpVersion{}, toolError(err)
	}
	if v, err = t.a.Runs.Enqueue(ctx, v); err != nil {
		return nil, mcpVersion{}, toolError(err)
	}
	return nil, versionOut(v), nil
}

type statusIn struct {
	Version string `json:"version" jsonschema:"NAME@V, NAME or id"`
}

func (t *mcpTools) runStatus(ctx context.Context, _ *mcp.CallToolRequest, in statusIn) (*mcp.CallToolResult, app.VersionJobsJSON, error) {
	v, err := t.version(ctx, in.Version)
	if err != nil {
		return nil, app.VersionJobsJSON{}, toolError(err)
	}
	vj, err := t.a.Versions.WithJobs(ctx, v)
	return nil, vj, toolError(err)
}

type compareIn struct {
	A           string `json:"a" jsonschema:"the first version: NAME@V, NAME or id"`
	B           string `json:"b" jsonschema:"the second version"`
	IgnoreTypes bool   `json:"ignore_types,omitempty" jsonschema:"match nodes by name only"`
	Undirected  bool   `json:"undirected,omitempty" jsonschema:"match edges regardless of direction"`
}

func (t *mcpTools) compare(ctx context.Context, _ *mcp.CallToolRequest, in compareIn) (*mcp.CallToolResult, diff.Result, error) {
	va, err := t.finished(ctx, in.A)
	if err != nil {
		return nil, diff.Result{}, toolError(err)
	}
	vb, err := t.finished(ctx, in.B)
	if err != nil {
		return nil, diff.Result{}, toolError(err)
	}
	cmp, err := t.a.Comparisons.Compare(ctx, va.ID, vb.ID, diff.Options{IgnoreType: in.IgnoreTypes, Undirected: in.Undirected})
	if err != nil {
		return nil, diff.Result{}, toolError(err)
	}
	return nil, cmp.Result, nil
}

// readResource reads kgstudio://versions/{id}/graph and
// kgstudio://documents/{id}.
func (t *mcpTools) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, "kgstudio://")
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	parts := strings.Split(rest, "/")
	id := 0
	if len(parts) >= 2 {
		id, _ = strconv.Atoi(parts[1])
	}
	switch {
	case len(parts) == 3 && parts[0] == "versions" && parts[2] == "graph":
		// The version by id, NAME@V or NAME (its latest).
		ref, _ := url.PathUnescape(parts[1])
		v, err := t.version(ctx, ref)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		g, err := t.a.Graphs.Load(ctx, v.ID, false)
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(struct {
			Version string `json:"version"`
			graphOut
		}{v.Label(), graphOf(g, true)})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
	case id > 0 && len(parts) == 2 && parts[0] == "documents":
		d, err := t.a.Documents.Get(ctx, id)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: d.Content}}}, nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}
