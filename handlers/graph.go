package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
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

// parseGraphQuery reads the graph API filters.
func parseGraphQuery(c echo.Context) (extract.SubgraphQuery, error) {
	q := extract.SubgraphQuery{Q: strings.TrimSpace(c.QueryParam("q")), Focus: c.QueryParam("focus"), Depth: 1}
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
	return q, nil
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
	if q.Focus != "" {
		// A neighbourhood: read only the rings around the focus, and the
		// totals from the indexes.
		g, err := h.store.LoadNeighbourhood(ctx, id, q.Focus, min(q.Depth, extract.MaxSubgraphDepth))
		if err != nil {
			return err
		}
		res, err := extract.SelectSubgraph(g, q)
		if err != nil {
			return err
		}
		if res.TotalNodes, res.TotalEdges, res.Types, err = h.store.GraphTotals(ctx, id); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, res)
	}
	g, err := h.store.LoadOutline(ctx, id)
	if err != nil {
		return err
	}
	res, err := extract.SelectSubgraph(g, q)
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

// keyParam reads a node key from the path (see pathParam).
func keyParam(c echo.Context, name string) (string, error) { return pathParam(c, name, "node key") }

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
	chunks := map[int][]extract.Chunk{}
	docs := map[int]string{}
	for _, m := range ms {
		cs, ok := chunks[m.DocumentID]
		if !ok {
			var err error
			if cs, err = h.app.VersionChunks(ctx, v, m.DocumentID); err != nil {
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
