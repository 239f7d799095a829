package handlers

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// compareItemLimit is the page size of the item tables on the compare page.
const compareItemLimit = 2000

// compareQuery reads a, b and the matching options of a comparison
// (ignore_type, undirected, ignore_labels, ignore_descriptions).
func compareQuery(c echo.Context) (a, b int, opts diff.Options, err error) {
	a, errA := strconv.Atoi(c.QueryParam("a"))
	b, errB := strconv.Atoi(c.QueryParam("b"))
	if errA != nil || errB != nil || a <= 0 || b <= 0 {
		return 0, 0, opts, extract.Errorf(extract.KindInvalid, "a and b must be version ids")
	}
	opts = diff.Options{
		IgnoreType:         flagQuery(c, "ignore_type"),
		Undirected:         flagQuery(c, "undirected"),
		IgnoreLabels:       flagQuery(c, "ignore_labels"),
		IgnoreDescriptions: flagQuery(c, "ignore_descriptions"),
		Weights:            flagQuery(c, "weights"),
	}
	return a, b, opts, nil
}

// CompareQuery is the query string of a comparison of a and b with the
// matching options of opts.
func CompareQuery(a, b int, opts diff.Options) string {
	q := url.Values{"a": {itoa(a)}, "b": {itoa(b)}}
	if opts.IgnoreType {
		q.Set("ignore_type", "1")
	}
	if opts.Undirected {
		q.Set("undirected", "1")
	}
	if opts.IgnoreLabels {
		q.Set("ignore_labels", "1")
	}
	if opts.IgnoreDescriptions {
		q.Set("ignore_descriptions", "1")
	}
	if opts.Weights {
		q.Set("weights", "1")
	}
	return q.Encode()
}

func flagQuery(c echo.Context, name string) bool {
	switch c.QueryParam(name) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// apiCompare returns the diff of two versions as JSON. The comparison is
// a heavy request (see app.Gate): a busy server answers 503 with
// Retry-After.
func (h *Handler) apiCompare(c echo.Context) error {
	a, b, opts, err := compareQuery(c)
	if err != nil {
		return err
	}
	cmp, err := h.appOf(c).Comparisons.Compare(c.Request().Context(), a, b, opts)
	if err != nil {
		busy(c, err)
		return err
	}
	return c.JSON(http.StatusOK, cmp.JSON())
}

// showCompare renders the pickers and, with a and b, the comparison. A
// comparison is a heavy request (see app.Gate) until the page is
// rendered: the union and the tables it draws from both graphs take as
// much memory as the comparison itself.
func (h *Handler) showCompare(c echo.Context) error {
	if c.QueryParam("a") != "" || c.QueryParam("b") != "" {
		release, err := h.enterHeavy(c)
		if err != nil {
			return err
		}
		defer release()
	}
	ctx := c.Request().Context()
	exs, err := h.appOf(c).Versions.Extractions(ctx, 0)
	if err != nil {
		return err
	}
	p := web.ComparePage{Picker: web.ComparePicker{Groups: compareGroups(exs)}}
	if c.QueryParam("a") == "" && c.QueryParam("b") == "" {
		return h.page(c, "compare", "Compare", web.ComparePageView(p))
	}
	a, b, opts, err := compareQuery(c)
	if err != nil {
		return err
	}
	p.Picker.A, p.Picker.B = a, b
	p.Picker.IgnoreType, p.Picker.Undirected, p.Picker.IgnoreLabels = opts.IgnoreType, opts.Undirected, opts.IgnoreLabels
	p.Picker.IgnoreDescriptions = opts.IgnoreDescriptions
	cmp, err := h.appOf(c).Comparisons.Compare(ctx, a, b, opts)
	if err != nil {
		return err
	}
	p.Query = CompareQuery(a, b, opts)
	p.ScriptURL = h.assets.URL("js/compare.js")
	p.GraphLibURL = h.assets.URL("vendor/force-graph-1.52.0/force-graph.min.js")
	p.LayoutURL = h.assets.URL("js/graph-layout.js")
	p.FA2URL = h.assets.URL("js/graph-fa2.js")
	if err := h.fillComparison(ctx, &p, cmp, c.QueryParam("chunk"), c.Request().URL.Query()); err != nil {
		return err
	}
	// A side still running shows its progress and reloads the page when
	// it ends.
	for _, v := range []record.Version{cmp.A, cmp.B} {
		if v.Active() {
			pr := progressOf(v)
			pr.Refresh = true
			p.Running = append(p.Running, pr)
		}
	}
	return h.page(c, "compare", "Compare "+cmp.A.Label()+" and "+cmp.B.Label(), web.ComparePageView(p))
}

// toggleReference marks or unmarks a version as its extraction's reference
// and redirects back.
func (h *Handler) toggleReference(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v, err := h.appOf(c).Versions.Get(ctx, id)
	if err != nil {
		return err
	}
	if err := h.appOf(c).Versions.SetReference(ctx, id, !v.Reference); err != nil {
		return err
	}
	msg := v.Label() + " is now the reference of " + v.Extraction
	if v.Reference {
		msg = v.Label() + " is no longer the reference"
	}
	return redirectFlash(c, backTo(c, "/versions/"+itoa(id)), msg, false)
}

// backTo picks a local path to return to: the form's "back" field, the
// referring page, or def.
func backTo(c echo.Context, def string) string {
	for _, raw := range []string{c.FormValue("back"), c.Request().Referer()} {
		if p, ok := localURL(c, raw); ok {
			return p
		}
	}
	return def
}

// localURL returns the path and query of raw when it points into this site:
// a same-site path (see safeReturn), or an absolute URL of this host.
func localURL(c echo.Context, raw string) (string, bool) {
	if raw == "" {
		return "", false
	}
	if raw[0] != '/' {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host != c.Request().Host || u.User != nil {
			return "", false
		}
		raw = u.EscapedPath()
		if u.RawQuery != "" {
			raw += "?" + u.RawQuery
		}
	}
	p := safeReturn(raw, "")
	return p, p != ""
}

func compareGroups(exs []record.ExtractionInfo) []web.CompareGroup {
	out := make([]web.CompareGroup, 0, len(exs))
	for _, ex := range exs {
		g := web.CompareGroup{Extraction: ex.Name}
		for _, v := range ex.Versions {
			g.Versions = append(g.Versions, versionRow(v))
		}
		out = append(out, g)
	}
	return out
}

// fillComparison turns a comparison into the page's view.
func (h *Handler) fillComparison(ctx context.Context, p *web.ComparePage, cmp app.Comparison, chunk string, query url.Values) error {
	res := cmp.Result
	p.Ready = true
	p.A, p.B = h.compareRun(cmp.A), h.compareRun(cmp.B)
	p.SameDocuments = sameInts(cmp.A.DocumentIDs, cmp.B.DocumentIDs)
	p.Nodes = compareTotals(res.Summary.Nodes)
	p.Edges = compareTotals(res.Summary.Edges)
	p.NodeTypes = typeRows(res.Summary.NodeTypes, 0)
	p.EdgeLabels = typeRows(res.Summary.EdgeLabels, 12)
	p.MoreLabels = len(res.Summary.EdgeLabels) - len(p.EdgeLabels)
	if res.Score != nil {
		ref, scored := cmp.A.Label(), cmp.B.Label()
		if cmp.Options.Reference == diff.RefB {
			ref, scored = scored, ref
		}
		p.Score = &web.CompareScore{Reference: ref, Scored: scored, Nodes: prfView(res.Score.Nodes), Edges: prfView(res.Score.Edges),
			EdgesUnlabelled: cmp.Options.IgnoreLabels}
		if res.Score.Labelled != res.Score.Unlabelled {
			other, otherUnlabelled := res.Score.Unlabelled, true
			if cmp.Options.IgnoreLabels {
				other, otherUnlabelled = res.Score.Labelled, false
			}
			v := prfView(other)
			p.Score.OtherEdges, p.Score.OtherUnlabelled = &v, otherUnlabelled
		}
	}

	view := cmp.View()
	u := view.Union
	if len(u.Nodes) > len(view.Drawn.Nodes) {
		p.GraphNote = fmt.Sprintf("The union has %d nodes; the picture shows %d of them: every difference first, then the best-connected unchanged nodes. The tables below list everything.", len(u.Nodes), len(view.Drawn.Nodes))
	}
	p.Union = view.Drawn
	var from, to int
	p.NodePager, from, to = pageOf(query, "npage", len(view.Nodes), compareItemLimit, "#node-items")
	p.NodeItems, p.NodeTotal = nodeItems(u, view.Nodes[from:to]), len(u.Nodes)
	p.EdgePager, from, to = pageOf(query, "epage", len(view.Edges), compareItemLimit, "#edge-items")
	p.EdgeItems, p.EdgeTotal = edgeItems(view, view.Edges[from:to]), len(u.Edges)
	p.ItemLimit = compareItemLimit
	p.NodeTypeOpts = view.NodeTypes
	p.EdgeLabelOpts = view.EdgeLabels
	p.Config = configRows(cmp.A.Config, cmp.B.Config)
	p.Communities = communityRows(cmp.Communities)
	p.Prompts = promptDiffs(cmp.A.Config.Prompts, cmp.B.Config.Prompts)
	if err := h.fillTurns(ctx, p, cmp); err != nil {
		return err
	}
	return h.fillRawOutputs(ctx, p, cmp, chunk)
}

// communityRows turns the communities that changed into the rows of the
// compare page: new, gone, then changed.
func communityRows(c app.CommunityChanges) web.CompareCommunities {
	out := web.CompareCommunities{Before: c.Before, After: c.After, Unchanged: c.Unchanged}
	names := func(list []string, n int) string {
		s := strings.Join(list, ", ")
		if more := n - len(list); more > 0 {
			s += fmt.Sprintf(" and %d more", more)
		}
		return s
	}
	for _, ch := range c.New {
		out.Rows = append(out.Rows, web.CompareCommunityRow{Status: "new", Title: ch.Title, Size: itoa(ch.SizeB),
			Joined: names(ch.Added, ch.AddedCount)})
	}
	for _, ch := range c.Gone {
		out.Rows = append(out.Rows, web.CompareCommunityRow{Status: "gone", Title: ch.Title, Size: itoa(ch.SizeA),
			Left: names(ch.Removed, ch.RemovedCount)})
	}
	for _, ch := range c.Changed {
		out.Rows = append(out.Rows, web.CompareCommunityRow{Status: "changed", Title: ch.Title, Was: ch.TitleA,
			Size: itoa(ch.SizeA) + " → " + itoa(ch.SizeB), Joined: names(ch.Added, ch.AddedCount), Left: names(ch.Removed, ch.RemovedCount)})
	}
	return out
}

// fillRawOutputs lists the chunks with model calls and the calls of the
// picked chunk (the first by default) on both sides.
func (h *Handler) fillRawOutputs(ctx context.Context, p *web.ComparePage, cmp app.Comparison, chunk string) error {
	if cmp.A.Calls == 0 && cmp.B.Calls == 0 {
		return nil
	}
	runsA, err := h.appIn(ctx).Versions.ChunkRuns(ctx, cmp.A.ID)
	if err != nil {
		return err
	}
	runsB, err := h.appIn(ctx).Versions.ChunkRuns(ctx, cmp.B.ID)
	if err != nil {
		return err
	}
	type ref struct{ doc, idx int }
	calls := map[ref][2][]extract.CallRecord{}
	var order []ref
	add := func(runs []record.ChunkRun, side int) {
		for _, r := range runs {
			if len(r.Calls) == 0 {
				continue
			}
			k := ref{r.DocumentID, r.ChunkIndex}
			v, ok := calls[k]
			if !ok {
				order = append(order, k)
			}
			v[side] = r.Calls
			calls[k] = v
		}
	}
	add(runsA, 0)
	add(runsB, 1)
	if len(order) == 0 {
		return nil
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].doc != order[j].doc {
			return order[i].doc < order[j].doc
		}
		return order[i].idx < order[j].idx
	})
	p.HasCalls = true
	pick := order[0]
	for _, k := range order {
		val := fmt.Sprintf("%d:%d", k.doc, k.idx)
		p.Chunks = append(p.Chunks, web.CompareChunkOpt{Value: val, Label: fmt.Sprintf("document %d, chunk %d", k.doc, k.idx+1)})
		if val == chunk {
			pick = k
		}
	}
	p.Chunk = fmt.Sprintf("%d:%d", pick.doc, pick.idx)
	p.RawA = callViews(calls[pick][0])
	p.RawB = callViews(calls[pick][1])
	return nil
}

func callViews(calls []extract.CallRecord) []web.CompareCall {
	out := make([]web.CompareCall, len(calls))
	for i, c := range calls {
		tokens := fmt.Sprintf("%d in / %d out", c.PromptTokens, c.OutputTokens)
		if c.Cached {
			tokens += ", cached"
		}
		purpose := c.Purpose
		if purpose == "" {
			purpose = "call"
		}
		out[i] = web.CompareCall{Purpose: purpose, Model: c.Model, Tokens: tokens, Response: c.Response}
	}
	return out
}

func (h *Handler) compareRun(v record.Version) web.CompareRun {
	model := v.Config.Model
	if model == "" {
		model = string(v.Config.Provider)
	}
	return web.CompareRun{ID: v.ID, Label: v.Label(), Status: string(v.Status), Strategy: string(v.Config.Strategy), Model: model,
		Reference: v.Reference, Note: v.Note, Chunks: v.ChunksTotal, Nodes: v.Nodes, Edges: v.Edges,
		PromptTokens: v.PromptTokens, OutputTokens: v.OutputTokens, Calls: v.Calls, CachedCalls: v.CachedCalls,
		Elapsed: web.HumanDuration(v.Elapsed), Cost: h.app.Providers().CostOf(v)}
}

func compareTotals(t diff.Totals) web.CompareTotals {
	return web.CompareTotals{Before: t.Before, After: t.After, Added: t.Added, Removed: t.Removed, Changed: t.Changed, Unchanged: t.Unchanged}
}

// typeRows sorts per-type counts by the size of the change, then by name;
// limit > 0 keeps the first rows.
func typeRows(m map[string]diff.TypeCount, limit int) []web.CompareTypeRow {
	out := make([]web.CompareTypeRow, 0, len(m))
	for t, c := range m {
		name := t
		if name == "" {
			name = "(none)"
		}
		out = append(out, web.CompareTypeRow{Type: name, Before: c.Before, After: c.After, Delta: c.Delta})
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := abs(out[i].Delta), abs(out[j].Delta)
		if di != dj {
			return di > dj
		}
		if out[i].After != out[j].After {
			return out[i].After > out[j].After
		}
		return out[i].Type < out[j].Type
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func prfView(p diff.PRF) web.ComparePRF {
	return web.ComparePRF{Precision: fmt.Sprintf("%.3f", p.Precision), Recall: fmt.Sprintf("%.3f", p.Recall), F1: fmt.Sprintf("%.3f", p.F1)}
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	x := append([]int(nil), a...)
	y := append([]int(nil), b...)
	sort.Ints(x)
	sort.Ints(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// configRows lists the config fields of both runs side by side.
func configRows(a, b extract.Config) []web.CompareConfigRow {
	schema := func(c extract.Config) string {
		if c.SchemaName == "" {
			return "built-in types"
		}
		return fmt.Sprintf("%s@%d", c.SchemaName, c.SchemaVersion)
	}
	rows := [][3]string{
		{"strategy", string(a.Strategy), string(b.Strategy)},
		{"provider", string(a.Provider), string(b.Provider)},
		{"model", a.Model, b.Model},
		{"schema", schema(a), schema(b)},
		{"entity types", strings.Join(a.EntityTypes, ", "), strings.Join(b.EntityTypes, ", ")},
		{"language", a.Language, b.Language},
		{"chunk size", itoa(a.ChunkSize), itoa(b.ChunkSize)},
		{"overlap", itoa(a.Overlap), itoa(b.Overlap)},
		{"strict", strconv.FormatBool(a.Strict), strconv.FormatBool(b.Strict)},
		{"concurrency", itoa(a.Concurrency), itoa(b.Concurrency)},
		{"gleaning rounds", itoa(a.MaxGleaning), itoa(b.MaxGleaning)},
		{"description fragments", itoa(a.MaxFragments), itoa(b.MaxFragments)},
		{"temperature", strconv.FormatFloat(a.Temperature, 'g', -1, 64), strconv.FormatFloat(b.Temperature, 'g', -1, 64)},
		{"prompts", promptNames(a.Prompts), promptNames(b.Prompts)},
		{"official names", string(cmp.Or(a.OfficialNames, extract.OfficialRename)), string(cmp.Or(b.OfficialNames, extract.OfficialRename))},
		{"chunk nodes", strconv.FormatBool(a.ChunkNodes), strconv.FormatBool(b.ChunkNodes)},
	}
	// A version no run made (an import) has no settings to show.
	for side, c := range []extract.Config{a, b} {
		if c.Strategy != "" {
			continue
		}
		for i := range rows {
			rows[i][side+1] = ""
		}
		rows[0][side+1] = importedConfig
	}
	out := make([]web.CompareConfigRow, len(rows))
	for i, r := range rows {
		out[i] = web.CompareConfigRow{Field: r[0], A: r[1], B: r[2], Differs: r[1] != r[2]}
	}
	return out
}

// importedConfig is what a version no run made (an imported graph, whose
// config is empty) shows for its settings.
const importedConfig = "imported: no run"

func promptNames(m map[string]string) string {
	if len(m) == 0 {
		return "defaults"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// promptDiffs line-diffs every prompt either run set.
func promptDiffs(a, b map[string]string) []web.ComparePrompt {
	names := map[string]bool{}
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]web.ComparePrompt, 0, len(keys))
	for _, k := range keys {
		p := web.ComparePrompt{Name: k, Same: a[k] == b[k]}
		if !p.Same {
			p.Lines = lineViews(diff.Lines(a[k], b[k]))
		}
		out = append(out, p)
	}
	return out
}

// lineViews turns a line diff into the rows of a prompt diff.
func lineViews(segs []diff.Segment) []web.CompareLine {
	out := make([]web.CompareLine, len(segs))
	for i, s := range segs {
		out[i] = web.CompareLine{Op: s.Op, Text: s.Text}
	}
	return out
}

// nodeItems turns the union's nodes at the given positions into table
// rows; a changed type says what it was and what it became.
func nodeItems(u diff.Union, at []int) []web.CompareItem {
	out := make([]web.CompareItem, len(at))
	for i, j := range at {
		n := u.Nodes[j]
		fields := n.Fields
		if k := slices.Index(fields, "type"); k >= 0 && n.A != nil && n.B != nil {
			fields = slices.Clone(fields)
			fields[k] = "type " + n.A.Type + " → " + n.B.Type
		}
		out[i] = web.CompareItem{ID: n.ID, Name: n.Name, Type: n.Type, Status: string(n.Status), Fields: strings.Join(fields, ", ")}
	}
	return out
}

// edgeItems turns the union's edges at the given positions into table
// rows named as the view names them.
func edgeItems(v *app.CompareView, at []int) []web.CompareItem {
	out := make([]web.CompareItem, len(at))
	for i, j := range at {
		e := v.Union.Edges[j]
		out[i] = web.CompareItem{ID: e.ID, Name: v.EdgeNames[j], Type: e.Label, Status: string(e.Status), Fields: strings.Join(e.Fields, ", ")}
	}
	return out
}
