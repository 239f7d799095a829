package handlers

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// GraphThreshold is the node count past which the graph page loads the
// neighbourhoods of the best-connected nodes instead of the whole graph;
// CommunityThreshold the count past which it opens on the graph's
// communities, a node each (click one to open it).
const (
	GraphThreshold     = 2000
	CommunityThreshold = 1000
)

// parseGraphQuery reads the graph API filters.
func parseGraphQuery(c echo.Context) (extract.SubgraphQuery, error) {
	q := extract.SubgraphQuery{Q: strings.TrimSpace(c.QueryParam("q")), Name: strings.TrimSpace(c.QueryParam("name")),
		Focus: c.QueryParam("focus"), Depth: 1}
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
	ctx := c.Request().Context()
	v, err := h.appOf(c).Versions.Get(ctx, id)
	if err != nil {
		return err
	}
	// The graph by community (view=communities), or one community's
	// members (community=ID).
	if c.QueryParam("view") == "communities" {
		res, err := h.appOf(c).Communities.Map(ctx, v)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, res)
	}
	if s := c.QueryParam("community"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return extract.Errorf(extract.KindInvalid, "community must be a community's id (a number)")
		}
		res, err := h.appOf(c).Communities.Graph(ctx, v, n)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, res)
	}
	q, err := parseGraphQuery(c)
	if err != nil {
		return err
	}
	tv, err := parseTimeView(c)
	if err != nil {
		return err
	}
	timed := tv.asked()
	if !timed {
		if timed, err = h.appOf(c).Memory.KeepsTimes(ctx, v); err != nil {
			return err
		}
	}
	if timed {
		// A graph that says when its facts held is read whole: what has
		// expired is left out (or marked), and a past date rolls it back.
		res, err := h.appOf(c).Graphs.At(ctx, id, q, tv.Raw, tv.Expired)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, res)
	}
	if q.Focus != "" {
		// A neighbourhood: read only the rings around the focus, and the
		// totals from the indexes.
		g, err := h.appOf(c).Graphs.Neighbourhood(ctx, id, q.Focus, min(q.Depth, extract.MaxSubgraphDepth))
		if err != nil {
			return err
		}
		res, err := extract.SelectSubgraph(g, q)
		if err != nil {
			return err
		}
		if res.TotalNodes, res.TotalEdges, res.Types, err = h.appOf(c).Graphs.Totals(ctx, id); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, res)
	}
	// Without a focus: the totals from the indexes, then the answer
	// streamed as the store reads it.
	totalNodes, totalEdges, types, err := h.appOf(c).Graphs.Totals(ctx, id)
	if err != nil {
		return err
	}
	w := newSubgraphWriter(c.Response())
	// Where the stored layout puts each node; a version with none is laid
	// out in the background for its next view.
	// (layout=live: none; the page lays the graph out itself).
	if c.QueryParam("layout") != "live" {
		if w.pos, w.stored, err = h.appOf(c).Layouts.Stored(ctx, v); err != nil {
			return err
		}
		if !w.stored {
			h.appOf(c).Layouts.Later(v)
		}
	}
	matched, truncated, err := h.appOf(c).Graphs.Stream(ctx, id, q, record.SubgraphRows{Node: w.node, Edge: w.edge})
	if err == nil {
		err = w.finish(totalNodes, totalEdges, matched, truncated, types)
	}
	if err != nil && c.Response().Committed {
		// The status is sent: the answer stops short, which no client
		// takes for whole JSON.
		h.log.Warn("graph answer cut short", "version_id", id, "error", err)
	}
	return err
}

// layoutAPI answers GET /api/versions/:id/layout: the version's stored
// layout, the nodes' keys and their places ({"keys": [K0, K1, ...], "xy":
// [x0, y0, x1, y1, ...]}), or, while
// it has none, 202 with {"status": "laying out"} (the layout is made in
// the background; the graph page asks again while it lays a big graph
// out itself, and takes the stored layout when it comes).
func (h *Handler) layoutAPI(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	a := h.appOf(c)
	v, err := a.Versions.Get(ctx, id)
	if err != nil {
		return err
	}
	pos, ok, err := a.Layouts.Stored(ctx, v)
	if err != nil {
		return err
	}
	if !ok {
		if v.Status != record.StatusDone {
			return extract.Errorf(extract.KindConflict, "version %s is %s: it is laid out once it is done", v.Label(), v.Status)
		}
		a.Layouts.Later(v)
		return c.JSON(http.StatusAccepted, map[string]string{"status": "laying out"})
	}
	// Keys and places in two arrays: a page parses them several times
	// faster than an object of 100k keys.
	out := struct {
		Keys []string  `json:"keys"`
		XY   []float32 `json:"xy"`
	}{Keys: make([]string, 0, len(pos)), XY: make([]float32, 0, 2*len(pos))}
	for k, p := range pos {
		out.Keys = append(out.Keys, k)
		out.XY = append(out.XY, p[0], p[1])
	}
	return c.JSON(http.StatusOK, out)
}

// timeView is the time a graph is seen at: AsOf (zero for now), as
// asked (Raw, trimmed), and whether facts retired by then are shown,
// marked expired.
type timeView struct {
	AsOf    time.Time
	Raw     string
	Expired bool
}

// parseTimeView reads the graph API's as_of (a date, read as the end of
// that day, or an RFC 3339 time) and expired=1.
func parseTimeView(c echo.Context) (timeView, error) {
	var tv timeView
	switch c.QueryParam("expired") {
	case "", "0", "false":
	case "1", "true":
		tv.Expired = true
	default:
		return tv, extract.Errorf(extract.KindInvalid, "expired must be 1 (show the facts that ended) or 0")
	}
	t, err := app.ParseAsOf(c.QueryParam("as_of"))
	if err == nil && !t.IsZero() {
		tv.AsOf, tv.Raw = t, strings.TrimSpace(c.QueryParam("as_of"))
	}
	return tv, err
}

// asked reports whether the request names a time view at all.
func (tv timeView) asked() bool { return tv.Expired || !tv.AsOf.IsZero() }

// subgraphWriter writes an extract.Subgraph as JSON, field by field in the
// struct's order, as its nodes and edges arrive, through a bounded buffer.
type subgraphWriter struct {
	res   *echo.Response
	buf   *bufio.Writer
	enc   *json.Encoder
	elems int
	phase int // 0 before the first write, 1 in nodes, 2 in edges
	// pos is the version's stored layout (stored says there is one).
	pos    app.Positions
	stored bool
}

func newSubgraphWriter(res *echo.Response) *subgraphWriter {
	w := &subgraphWriter{res: res, buf: bufio.NewWriterSize(res, 32<<10)}
	w.enc = json.NewEncoder(w.buf)
	return w
}

// to moves the writer on to the nodes (1) or the edges (2).
func (w *subgraphWriter) to(phase int) {
	if w.phase == 0 {
		w.res.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		w.res.WriteHeader(http.StatusOK)
		_, _ = w.buf.WriteString(`{"nodes":[`)
		w.phase = 1
	}
	if phase == 2 && w.phase == 1 {
		_, _ = w.buf.WriteString(`],"edges":[`)
		w.phase, w.elems = 2, 0
	}
}

// value writes one array element.
func (w *subgraphWriter) value(v any) error {
	if w.elems > 0 {
		_ = w.buf.WriteByte(',')
	}
	w.elems++
	return w.enc.Encode(v) // the newline it adds is whitespace between elements
}

func (w *subgraphWriter) node(n extract.SubgraphNode) error {
	w.to(1)
	if p, ok := w.pos[n.ID]; ok {
		n.Pos = &p
	}
	return w.value(n)
}

func (w *subgraphWriter) edge(e extract.SubgraphEdge) error { w.to(2); return w.value(e) }

// finish writes the fields after the edges and flushes.
func (w *subgraphWriter) finish(totalNodes, totalEdges, matched int, truncated bool, types []extract.TypeCount) error {
	w.to(2)
	if types == nil {
		types = []extract.TypeCount{} // an empty graph has no types: [], not null
	}
	tail, err := json.Marshal(struct {
		TotalNodes int                 `json:"total_nodes"`
		TotalEdges int                 `json:"total_edges"`
		Matched    int                 `json:"matched"`
		Truncated  bool                `json:"truncated"`
		Types      []extract.TypeCount `json:"types"`
		Layout     string              `json:"layout,omitempty"`
	}{totalNodes, totalEdges, matched, truncated, types, map[bool]string{true: "stored"}[w.stored]})
	if err != nil {
		return err
	}
	_, _ = w.buf.WriteString("],")
	_, _ = w.buf.Write(tail[1:])
	_ = w.buf.WriteByte('\n')
	return w.buf.Flush()
}

// showGraph renders the graph page of a version.
func (h *Handler) showGraph(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	// A date or expired switch the page cannot read is refused, as the
	// graph API refuses it, rather than dropped.
	tv, err := parseTimeView(c)
	if err != nil {
		return err
	}
	base := "/versions/" + itoa(v.ID)
	p := web.GraphPageView{
		Version:   versionRow(v),
		ScriptURL: h.assets.URL("js/graph.js"),
		DrawURL:   h.assets.URL("js/graph-draw.js"),
		StyleURL:  h.assets.URL("css/graph.css"),
		Config: web.GraphConfig{
			API:         "/api" + base + "/graph",
			NodeURL:     base + "/nodes/",
			EdgeURL:     base + "/edge",
			Threshold:   GraphThreshold,
			Communities: CommunityThreshold,
			Total:       v.Nodes,
			LoadAll:     c.QueryParam("all") == "1",
			Layout:      map[bool]string{true: "live"}[c.QueryParam("layout") == "live"],
			Focus:       c.QueryParam("focus"),
			LayoutURL:   h.assets.URL("js/graph-layout.js"),
			DrawURL:     h.assets.URL("js/graph-draw.js"),
			FA2URL:      h.assets.URL("js/graph-fa2.js"),
			// ?color=community opens the page coloured by community.
			ColorBy:         c.QueryParam("color"),
			CommunitiesAPI:  "/api" + base + "/communities/members",
			CommunitiesPage: base + "/communities",
		},
	}
	if p.Config.ColorBy != "community" {
		p.Config.ColorBy = "type"
	}
	if s := c.QueryParam("community"); s != "" {
		id, err := strconv.Atoi(s)
		if err != nil || id < 0 {
			return extract.Errorf(extract.KindInvalid, "community must be a community's id (a number)")
		}
		p.Config.Community = &id
	}
	// A graph that keeps fact times opens as of the date in the address,
	// if any, and with or without the facts that ended.
	if p.Config.Times, err = h.appOf(c).Memory.KeepsTimes(c.Request().Context(), v); err != nil {
		return err
	}
	if p.Config.Times {
		p.Config.AsOf, p.Config.Expired = tv.Raw, tv.Expired
	}
	for _, f := range []string{"json", "graphml", "csv", "cypher"} {
		p.Downloads = append(p.Downloads, web.Download{Format: f, URL: base + "/export?format=" + f})
	}
	return h.page(c, "extractions", "Graph "+v.Label(), web.GraphPage(p))
}

// keyParam reads a node key from the path (see pathParam).
func keyParam(c echo.Context, name string) (string, error) { return pathParam(c, name, "node key") }

// nodeAPI answers GET /api/versions/:id/nodes/:key.
func (h *Handler) nodeAPI(c echo.Context) error {
	d, err := h.loadNodeDetail(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

// showNodePanel renders the side panel of a node (an HTML fragment), as
// of the date as_of names, if any.
func (h *Handler) showNodePanel(c echo.Context) error {
	d, err := h.loadNodeDetail(c)
	if err != nil {
		return err
	}
	id, _ := intParam(c, "id")
	// The edit forms come first, above the edges and mentions.
	edit := h.nodeEdit(c, id, d)
	if d.AsOf != "" {
		// Edits change the graph as it is now, not as it stood.
		edit = web.EditNow()
	}
	panel := web.NodePanel(nodePanelView(id, d))
	return render(c, http.StatusOK, templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return panel.Render(templ.WithChildren(ctx, edit), w)
	}))
}

func (h *Handler) loadNodeDetail(c echo.Context) (app.NodeDetail, error) {
	id, err := intParam(c, "id")
	if err != nil {
		return app.NodeDetail{}, err
	}
	key, err := keyParam(c, "key")
	if err != nil {
		return app.NodeDetail{}, err
	}
	ctx := c.Request().Context()
	v, err := h.appOf(c).Versions.Get(ctx, id)
	if err != nil {
		return app.NodeDetail{}, err
	}
	return h.appOf(c).Queries.NodeAt(ctx, v, key, c.QueryParam("as_of"))
}

func nodePanelView(versionID int, d app.NodeDetail) web.NodePanelView {
	p := web.NodePanelView{VersionID: versionID, AsOf: d.AsOf, Key: d.Key, Name: d.Name, Type: d.Type, Description: d.Description,
		MentionCount: d.MentionCount, AlsoSeenAs: web.AlsoSeenAs(d.Type, d.Properties[extract.PropTypeCounts])}
	p.Times, p.History = factTimes(d.Properties), factHistory(d.Properties[extract.PropHistory])
	p.Times.AsOf = d.AsOf
	keys := make([]string, 0, len(d.Properties))
	for k := range d.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == extract.PropTypeCounts || timeProps[k] || (k == extract.PropHistory && len(p.History) > 0) {
			continue // shown as AlsoSeenAs, Times and History
		}
		row := web.PropRow{Key: cmp.Or(propNames[k], strings.ReplaceAll(k, "_", " ")), Value: web.PropString(d.Properties[k])}
		if detailProps[k] {
			p.Details = append(p.Details, row)
		} else {
			p.Properties = append(p.Properties, row)
		}
	}
	conv := func(es []app.NodeEdge) []web.PanelEdge {
		out := make([]web.PanelEdge, len(es))
		for i, e := range es {
			out[i] = web.PanelEdge{Label: e.Label, Other: e.Other, OtherName: e.OtherName, Keywords: e.Keywords,
				Description: e.Description}
			if t := factTimes(e.Properties); t.Expired {
				out[i].Expired, out[i].Ended = true, t.Ended()
			}
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

// timeProps are the properties that say when a fact held; the side
// panels show them as its times.
var timeProps = map[string]bool{
	extract.PropValidAt: true, extract.PropInvalidAt: true, extract.PropRecordedAt: true, extract.PropExpiredAt: true,
	extract.PropExpired: true,
}

// factTimes reads when a fact held from its properties.
func factTimes(props map[string]any) web.FactTimes {
	str := func(k string) string {
		if v, ok := props[k]; ok && v != nil {
			return web.PropString(v)
		}
		return ""
	}
	t := web.FactTimes{ValidAt: str(extract.PropValidAt), InvalidAt: str(extract.PropInvalidAt),
		RecordedAt: str(extract.PropRecordedAt), Expired: extract.Expired(props)}
	if t.Expired {
		t.ExpiredAt, t.Reason, t.UntilTurn = str(extract.PropExpiredAt), str("reason"), str("until_turn")
	}
	return t
}

// factHistory reads a node's earlier values (see extract.PropHistory),
// oldest first; a history of another shape gives none.
func factHistory(v any) []web.FactRevision {
	list, _ := v.([]any)
	var out []web.FactRevision
	for _, e := range list {
		r, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		str := func(k string) string {
			if v, ok := r[k]; ok && v != nil {
				return web.PropString(v)
			}
			return ""
		}
		out = append(out, web.FactRevision{Label: str("label"), Description: str("description"), Since: str("since"),
			Until: str("until"), ValidAt: str(extract.PropValidAt), InvalidAt: str(extract.PropInvalidAt), Reason: str("reason")})
	}
	return out
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

// showEdgePanel renders the side panel of an edge, named by the query
// parameters source, label and target, as of the date as_of names, if
// any.
func (h *Handler) showEdgePanel(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	src, label, tgt := c.QueryParam("source"), c.QueryParam("label"), c.QueryParam("target")
	if src == "" || tgt == "" {
		return extract.Errorf(extract.KindInvalid, "an edge needs a source and a target")
	}
	asOf := strings.TrimSpace(c.QueryParam("as_of"))
	e, names, err := h.appOf(c).Graphs.EdgeAt(c.Request().Context(), id, src, label, tgt, asOf)
	if err != nil {
		return err
	}
	p := web.EdgePanelView{VersionID: id, Source: src, Target: tgt, Label: e.Label, Keywords: e.Keywords,
		Description: e.Description, Weight: strconv.FormatFloat(e.Weight, 'f', -1, 64), Mentions: len(e.Mentions),
		SourceName: cmp.Or(names[src].Name, src), TargetName: cmp.Or(names[tgt].Name, tgt), Times: factTimes(e.Properties),
		AsOf: asOf}
	p.Times.AsOf = asOf
	if asOf != "" {
		return render(c, http.StatusOK, templ.Join(web.EdgePanel(p), web.EditNow()))
	}
	return render(c, http.StatusOK, templ.Join(web.EdgePanel(p), h.edgeEdit(c, id, e)))
}
