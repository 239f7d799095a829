package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
	"github.com/kgstudio/kgstudio/web"
)

// GraphThreshold is the node count past which the graph page opens on the
// neighbourhoods of the best-connected nodes instead of the whole graph.
const GraphThreshold = 2000

// maxMentions bounds the mentions shown in a node's side panel.
const maxMentions = 40

// snippetContext is how many bytes of text a mention snippet shows on each
// side of the mention.
const snippetContext = 90

// graphQuery holds the filters of the graph API.
type graphQuery struct {
	Types     []string // keep nodes of these types; empty keeps all
	MinDegree int      // keep nodes with at least this many edges
	Q         string   // keep nodes whose name or key contains this text
	Focus     string   // keep the neighbourhood of this node key
	Depth     int      // neighbourhood depth around Focus
	Limit     int      // at most this many nodes; 0 means no limit
}

// GraphNode is a node of the graph API.
type GraphNode struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Degree int    `json:"degree"`
}

// GraphEdge is an edge of the graph API.
type GraphEdge struct {
	Source string  `json:"source"`
	Target string  `json:"target"`
	Label  string  `json:"label"`
	Weight float64 `json:"weight"`
}

// TypeCount is a node type and how many nodes of the whole version have it.
type TypeCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// GraphResult is the answer of the graph API. Totals count the whole
// version; Truncated says that the node limit cut the selection.
type GraphResult struct {
	Nodes      []GraphNode `json:"nodes"`
	Edges      []GraphEdge `json:"edges"`
	TotalNodes int         `json:"total_nodes"`
	TotalEdges int         `json:"total_edges"`
	Matched    int         `json:"matched"`
	Truncated  bool        `json:"truncated"`
	Types      []TypeCount `json:"types"`
}

// parseGraphQuery reads the graph API filters.
func parseGraphQuery(c echo.Context) (graphQuery, error) {
	q := graphQuery{Q: strings.TrimSpace(c.QueryParam("q")), Focus: c.QueryParam("focus"), Depth: 1}
	for _, t := range strings.Split(c.QueryParam("types"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			q.Types = append(q.Types, t)
		}
	}
	for name, dst := range map[string]*int{"min_degree": &q.MinDegree, "depth": &q.Depth, "limit": &q.Limit} {
		raw := c.QueryParam(name)
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 {
			return q, extract.Errorf(extract.KindInvalid, "%s must be a number, 0 or more", name)
		}
		*dst = n
	}
	if q.Depth > 6 {
		q.Depth = 6
	}
	return q, nil
}

// queryGraph selects nodes and edges of g by q. Degrees count the edges of
// the whole graph. A focus neighbourhood is walked over the whole graph
// (ignoring direction) and then filtered, but the focus node itself always
// stays. Under a limit, nodes are kept in order of distance from the focus,
// or, without a focus, by neighbourhoods of the highest-degree nodes, so the
// picture stays connected. Edges are those among the kept nodes whose
// endpoints exist.
func queryGraph(g extract.Graph, q graphQuery) (GraphResult, error) {
	res := GraphResult{TotalNodes: len(g.Nodes), TotalEdges: len(g.Edges), Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	idx := make(map[string]int32, len(g.Nodes))
	for i := range g.Nodes {
		if _, dup := idx[g.Nodes[i].Key]; !dup {
			idx[g.Nodes[i].Key] = int32(i)
		}
	}
	// Degrees and adjacency over the whole graph (compact, index based).
	deg := make([]int32, len(g.Nodes))
	ends := make([][2]int32, len(g.Edges))
	for i := range g.Edges {
		s, ok1 := idx[g.Edges[i].Source]
		t, ok2 := idx[g.Edges[i].Target]
		if !ok1 || !ok2 {
			ends[i] = [2]int32{-1, -1}
			continue
		}
		ends[i] = [2]int32{s, t}
		deg[s]++
		if t != s {
			deg[t]++
		}
	}
	start := make([]int32, len(g.Nodes)+1)
	for _, e := range ends {
		if e[0] >= 0 {
			start[e[0]+1]++
			if e[1] != e[0] {
				start[e[1]+1]++
			}
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	adj := make([]int32, start[len(start)-1])
	fill := slices.Clone(start[:len(g.Nodes)])
	for _, e := range ends {
		if e[0] >= 0 {
			adj[fill[e[0]]] = e[1]
			fill[e[0]]++
			if e[1] != e[0] {
				adj[fill[e[1]]] = e[0]
				fill[e[1]]++
			}
		}
	}
	neighbours := func(i int32) []int32 { return adj[start[i]:start[i+1]] }

	// Type counts for the legend.
	counts := map[string]int{}
	for i := range g.Nodes {
		counts[g.Nodes[i].Type]++
	}
	for t, n := range counts {
		res.Types = append(res.Types, TypeCount{Type: t, Count: n})
	}
	slices.SortFunc(res.Types, func(a, b TypeCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})

	// The filter every kept node passes.
	types := map[string]bool{}
	for _, t := range q.Types {
		types[strings.ToLower(t)] = true
	}
	needle := strings.ToLower(q.Q)
	pass := func(i int32) bool {
		n := &g.Nodes[i]
		if len(types) > 0 && !types[strings.ToLower(n.Type)] {
			return false
		}
		if int(deg[i]) < q.MinDegree {
			return false
		}
		if needle != "" && !strings.Contains(strings.ToLower(n.Name), needle) && !strings.Contains(n.Key, needle) {
			return false
		}
		return true
	}

	// Select nodes in the order they should survive a limit.
	var order []int32
	kept := make([]bool, len(g.Nodes))
	add := func(i int32) {
		if !kept[i] {
			kept[i] = true
			order = append(order, i)
		}
	}
	byDegree := func(a, b int32) int {
		return cmp.Or(cmp.Compare(deg[b], deg[a]), cmp.Compare(g.Nodes[a].Key, g.Nodes[b].Key))
	}
	if q.Focus != "" {
		f, ok := idx[q.Focus]
		if !ok {
			return res, extract.Errorf(extract.KindNotFound, "node %q not found", q.Focus)
		}
		// Breadth-first walk, each ring sorted by degree.
		seen := make([]bool, len(g.Nodes))
		seen[f] = true
		add(f)
		ring := []int32{f}
		for d := 0; d < q.Depth && len(ring) > 0; d++ {
			var next []int32
			for _, i := range ring {
				for _, j := range neighbours(i) {
					if !seen[j] {
						seen[j] = true
						next = append(next, j)
					}
				}
			}
			slices.SortFunc(next, byDegree)
			for _, j := range next {
				if pass(j) {
					add(j)
				}
			}
			ring = next
		}
	} else {
		all := make([]int32, 0, len(g.Nodes))
		for i := range g.Nodes {
			if idx[g.Nodes[i].Key] == int32(i) && pass(int32(i)) {
				all = append(all, int32(i))
			}
		}
		slices.SortFunc(all, byDegree)
		if q.Limit > 0 && len(all) > q.Limit {
			// Hubs first, each followed by its best-connected neighbours.
			for _, h := range all {
				if len(order) >= q.Limit {
					break
				}
				if kept[h] {
					continue
				}
				add(h)
				nb := slices.Clone(neighbours(h))
				slices.SortFunc(nb, byDegree)
				for _, j := range nb {
					if len(order) >= q.Limit {
						break
					}
					if pass(j) {
						add(j)
					}
				}
			}
			res.Matched = len(all)
			res.Truncated = true
		} else {
			order = all
			for _, i := range all {
				kept[i] = true
			}
		}
	}
	if res.Matched == 0 {
		res.Matched = len(order)
	}
	if q.Limit > 0 && len(order) > q.Limit {
		for _, i := range order[q.Limit:] {
			kept[i] = false
		}
		order = order[:q.Limit]
		res.Truncated = true
	}
	res.Nodes = make([]GraphNode, len(order))
	for k, i := range order {
		n := &g.Nodes[i]
		res.Nodes[k] = GraphNode{ID: n.Key, Name: n.Name, Type: n.Type, Degree: int(deg[i])}
	}
	for i, e := range ends {
		if e[0] >= 0 && kept[e[0]] && kept[e[1]] {
			ge := &g.Edges[i]
			res.Edges = append(res.Edges, GraphEdge{Source: ge.Source, Target: ge.Target, Label: ge.Label, Weight: ge.Weight})
		}
	}
	return res, nil
}

// graphAPI answers GET /api/versions/:id/graph.
func (h *Handler) graphAPI(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	q, err := parseGraphQuery(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := h.store.Version(ctx, id); err != nil {
		return err
	}
	g, err := h.store.LoadOutline(ctx, id)
	if err != nil {
		return err
	}
	res, err := queryGraph(g, q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// showGraph renders the graph page of a version.
func (h *Handler) showGraph(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	base := "/versions/" + itoa(v.ID)
	p := web.GraphPageView{
		Version:   versionRow(v),
		LibURL:    h.assets.URL("vendor/force-graph-1.52.0/force-graph.min.js"),
		ScriptURL: h.assets.URL("js/graph.js"),
		StyleURL:  h.assets.URL("css/graph.css"),
		Config: web.GraphConfig{
			API:       "/api" + base + "/graph",
			NodeURL:   base + "/nodes/",
			EdgeURL:   base + "/edge",
			Threshold: GraphThreshold,
			Total:     v.Nodes,
			LoadAll:   c.QueryParam("all") == "1",
			Focus:     c.QueryParam("focus"),
		},
	}
	for _, f := range []string{"json", "graphml", "csv", "cypher"} {
		p.Downloads = append(p.Downloads, web.Download{Format: f, URL: base + "/export?format=" + f})
	}
	return h.page(c, "extractions", "Graph "+v.Label(), web.GraphPage(p))
}

// keyParam reads a node key from the path. Echo matches the raw path when
// the request escaped characters (a "/" in a key arrives as %2F), so the
// value is unescaped then.
func keyParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath != "" {
		u, err := url.PathUnescape(v)
		if err != nil {
			return "", extract.Errorf(extract.KindInvalid, "malformed node key")
		}
		v = u
	}
	if v == "" {
		return "", extract.Errorf(extract.KindInvalid, "a node key is required")
	}
	return v, nil
}

// NodeDetail is the answer of the node API: the node, its edges and its
// mentions with snippets.
type NodeDetail struct {
	Key         string          `json:"key"`
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Properties  map[string]any  `json:"properties,omitempty"`
	Out         []NodeEdge      `json:"out"`
	In          []NodeEdge      `json:"in"`
	Mentions    []MentionDetail `json:"mentions"`
	// MentionCount counts all mentions; Mentions holds the first few.
	MentionCount int `json:"mention_count"`
}

// NodeEdge is an edge seen from one of its nodes.
type NodeEdge struct {
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Label       string  `json:"label"`
	Keywords    string  `json:"keywords,omitempty"`
	Description string  `json:"description,omitempty"`
	Weight      float64 `json:"weight"`
	// Other is the key of the node at the other end, OtherName its name.
	Other     string `json:"other"`
	OtherName string `json:"other_name"`
}

// MentionDetail is a mention with a snippet of its chunk.
type MentionDetail struct {
	DocumentID int    `json:"document_id"`
	Document   string `json:"document"`
	ChunkIndex int    `json:"chunk_index"`
	Before     string `json:"before"`
	Mark       string `json:"mark"`
	After      string `json:"after"`
	Link       string `json:"link"`
}

// nodeDetail gathers everything the side panel shows about a node.
func (h *Handler) nodeDetail(ctx context.Context, v store.Version, key string) (NodeDetail, error) {
	n, err := h.store.NodeByKey(ctx, v.ID, key)
	if err != nil {
		return NodeDetail{}, err
	}
	d := NodeDetail{Key: n.Key, Name: n.Name, Type: n.Type, Description: n.Description, Properties: n.Properties,
		Out: []NodeEdge{}, In: []NodeEdge{}, Mentions: []MentionDetail{}}
	edges, err := h.store.NodeEdges(ctx, v.ID, key)
	if err != nil {
		return d, err
	}
	var others []string
	for _, e := range edges {
		others = append(others, e.Source, e.Target)
	}
	names, err := h.store.NodesByKey(ctx, v.ID, others)
	if err != nil {
		return d, err
	}
	for _, e := range edges {
		ne := NodeEdge{Source: e.Source, Target: e.Target, Label: e.Label, Keywords: e.Keywords,
			Description: e.Description, Weight: e.Weight}
		if e.Source == key {
			ne.Other = e.Target
		} else {
			ne.Other = e.Source
		}
		ne.OtherName = cmp.Or(names[ne.Other].Name, ne.Other)
		if e.Source == key {
			d.Out = append(d.Out, ne)
		} else {
			d.In = append(d.In, ne)
		}
	}
	ms, err := h.store.NodeMentions(ctx, v.ID, key)
	if err != nil {
		return d, err
	}
	d.MentionCount = len(ms)
	d.Mentions, err = h.mentionSnippets(ctx, v, n.Name, ms[:min(len(ms), maxMentions)])
	return d, err
}

// mentionSnippets cuts a snippet of the chunk around each mention. A
// mention without offsets (the chunk as a whole) marks the first place the
// name occurs in the chunk, if any.
func (h *Handler) mentionSnippets(ctx context.Context, v store.Version, name string, ms []extract.Mention) ([]MentionDetail, error) {
	out := []MentionDetail{}
	settings, err := h.app.ChunkSetOf(ctx, v)
	if err != nil {
		return nil, err
	}
	chunks := map[int][]extract.Chunk{}
	docs := map[int]string{}
	for _, m := range ms {
		cs, ok := chunks[m.DocumentID]
		if !ok {
			var err error
			if cs, err = h.store.Chunks(ctx, m.DocumentID, settings); err != nil {
				return nil, err
			}
			chunks[m.DocumentID] = cs
			if doc, err := h.store.Document(ctx, m.DocumentID); err == nil {
				docs[m.DocumentID] = doc.Name
			}
		}
		md := MentionDetail{DocumentID: m.DocumentID, Document: docs[m.DocumentID], ChunkIndex: m.ChunkIndex,
			Link: "/versions/" + itoa(v.ID) + "/chunks/" + itoa(m.DocumentID) + "/" + itoa(m.ChunkIndex)}
		var ch *extract.Chunk
		for i := range cs {
			if cs[i].Index == m.ChunkIndex {
				ch = &cs[i]
				break
			}
		}
		if ch == nil {
			md.Mark = m.Text
			out = append(out, md)
			continue
		}
		s, e := m.Start-ch.Start, m.End-ch.Start
		if m.Start == 0 && m.End == 0 || s < 0 || e > len(ch.Text) || s > e {
			// No usable offsets: look for the name in the chunk.
			s, e = 0, 0
			if i := strings.Index(strings.ToLower(ch.Text), strings.ToLower(cmp.Or(m.Text, name))); i >= 0 && name != "" {
				s, e = i, i+len(cmp.Or(m.Text, name))
			}
		}
		md.Before, md.Mark, md.After = snippet(ch.Text, s, e, snippetContext)
		out = append(out, md)
	}
	return out, nil
}

// snippet splits text around [s, e) with up to ctx bytes of context on each
// side, cut at rune boundaries and marked with ellipses where cut.
func snippet(text string, s, e, ctx int) (before, mark, after string) {
	s = max(0, min(s, len(text)))
	e = max(s, min(e, len(text)))
	for s > 0 && !utf8.RuneStart(text[s]) {
		s--
	}
	for e < len(text) && !utf8.RuneStart(text[e]) {
		e++
	}
	b := max(0, s-ctx)
	for b > 0 && !utf8.RuneStart(text[b]) {
		b--
	}
	a := min(len(text), e+ctx)
	for a < len(text) && !utf8.RuneStart(text[a]) {
		a++
	}
	before, mark, after = text[b:s], text[s:e], text[e:a]
	if b > 0 {
		before = "…" + before
	}
	if a < len(text) {
		after += "…"
	}
	return before, mark, after
}

// nodeAPI answers GET /api/versions/:id/nodes/:key.
func (h *Handler) nodeAPI(c echo.Context) error {
	d, err := h.loadNodeDetail(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

// showNodePanel renders the side panel of a node (an HTML fragment).
func (h *Handler) showNodePanel(c echo.Context) error {
	d, err := h.loadNodeDetail(c)
	if err != nil {
		return err
	}
	id, _ := intParam(c, "id")
	return render(c, http.StatusOK, web.NodePanel(nodePanelView(id, d)))
}

func (h *Handler) loadNodeDetail(c echo.Context) (NodeDetail, error) {
	id, err := intParam(c, "id")
	if err != nil {
		return NodeDetail{}, err
	}
	key, err := keyParam(c, "key")
	if err != nil {
		return NodeDetail{}, err
	}
	ctx := c.Request().Context()
	v, err := h.store.Version(ctx, id)
	if err != nil {
		return NodeDetail{}, err
	}
	return h.nodeDetail(ctx, v, key)
}

func nodePanelView(versionID int, d NodeDetail) web.NodePanelView {
	p := web.NodePanelView{VersionID: versionID, Key: d.Key, Name: d.Name, Type: d.Type, Description: d.Description,
		MentionCount: d.MentionCount, AlsoSeenAs: alsoSeenAs(d.Type, d.Properties[extract.PropTypeCounts])}
	keys := make([]string, 0, len(d.Properties))
	for k := range d.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == extract.PropTypeCounts {
			continue // shown as AlsoSeenAs
		}
		row := web.PropRow{Key: cmp.Or(propNames[k], strings.ReplaceAll(k, "_", " ")), Value: propString(d.Properties[k])}
		if detailProps[k] {
			p.Details = append(p.Details, row)
		} else {
			p.Properties = append(p.Properties, row)
		}
	}
	conv := func(es []NodeEdge) []web.PanelEdge {
		out := make([]web.PanelEdge, len(es))
		for i, e := range es {
			out[i] = web.PanelEdge{Label: e.Label, Other: e.Other, OtherName: e.OtherName, Keywords: e.Keywords,
				Description: e.Description}
		}
		return out
	}
	p.Out, p.In = conv(d.Out), conv(d.In)
	for _, m := range d.Mentions {
		p.Mentions = append(p.Mentions, web.PanelMention{Document: cmp.Or(m.Document, "document "+itoa(m.DocumentID)),
			ChunkIndex: m.ChunkIndex, Before: m.Before, Mark: m.Mark, After: m.After, Link: m.Link})
	}
	return p
}

// detailProps are bookkeeping properties of the extraction; the side panel
// folds them under "Details".
var detailProps = map[string]bool{
	extract.PropFragmentsDropped: true, "path": true, "structure": true, "implicit": true, "history": true,
}

// propNames are readable names of well-known property keys; other keys are
// shown with "_" as spaces.
var propNames = map[string]string{
	extract.PropFragmentsDropped: "description fragments left out",
	"created_turn":               "created in turn",
	"updated_turn":               "updated in turn",
}

// alsoSeenAs reads a type_counts property (a map of type to count, in its
// Go or JSON form) and lists the types other than typ, most seen first:
// "Location ×5, Organization ×1". It is empty when there are none.
func alsoSeenAs(typ string, v any) string {
	counts := map[string]int{}
	switch m := v.(type) {
	case map[string]int:
		maps.Copy(counts, m)
	case map[string]any:
		for t, n := range m {
			switch x := n.(type) {
			case float64:
				counts[t] = int(x)
			case int:
				counts[t] = x
			}
		}
	}
	var others []string
	for t, n := range counts {
		if t != typ && t != "" && n > 0 {
			others = append(others, t)
		}
	}
	slices.SortFunc(others, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	parts := make([]string, len(others))
	for i, t := range others {
		parts[i] = t + " ×" + strconv.Itoa(counts[t])
	}
	return strings.Join(parts, ", ")
}

// propString formats a property value for display: lists item by item
// (records one per line), records as "key: value" pairs without the empty
// ones, other values as JSON.
func propString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		sep := ", "
		for i, e := range x {
			if _, rec := e.(map[string]any); rec {
				sep = "\n"
			}
			parts[i] = propString(e)
		}
		return strings.Join(parts, sep)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		var parts []string
		for _, k := range keys {
			if s := propString(x[k]); s != "" && s != "null" {
				parts = append(parts, k+": "+s)
			}
		}
		return strings.Join(parts, "; ")
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// showEdgePanel renders the side panel of an edge, named by the query
// parameters source, label and target.
func (h *Handler) showEdgePanel(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	src, label, tgt := c.QueryParam("source"), c.QueryParam("label"), c.QueryParam("target")
	if src == "" || tgt == "" {
		return extract.Errorf(extract.KindInvalid, "an edge needs a source and a target")
	}
	ctx := c.Request().Context()
	e, err := h.store.EdgeByKey(ctx, id, src, label, tgt)
	if err != nil {
		return err
	}
	names, err := h.store.NodesByKey(ctx, id, []string{src, tgt})
	if err != nil {
		return err
	}
	p := web.EdgePanelView{VersionID: id, Source: src, Target: tgt, Label: e.Label, Keywords: e.Keywords,
		Description: e.Description, Weight: strconv.FormatFloat(e.Weight, 'f', -1, 64), Mentions: len(e.Mentions),
		SourceName: cmp.Or(names[src].Name, src), TargetName: cmp.Or(names[tgt].Name, tgt)}
	return render(c, http.StatusOK, web.EdgePanel(p))
}
