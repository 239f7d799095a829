package handlers

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// tableLimit is the page size of the node and edge tables.
const tableLimit = 300

// showVersion renders a version: progress, stats, nodes, edges and chunks.
func (h *Handler) showVersion(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	v, err := h.appOf(c).Versions.Get(ctx, id)
	if err != nil {
		return err
	}
	// The chunks extracted, also while the final job merges them.
	ph, err := h.appOf(c).Runs.Phase(ctx, v)
	if err != nil {
		return err
	}
	v.ChunksDone = ph.ChunksDone
	g, err := h.appOf(c).Graphs.Load(ctx, id, false)
	if err != nil {
		return err
	}
	mentions, err := h.appOf(c).Graphs.MentionCounts(ctx, id)
	if err != nil {
		return err
	}
	p := web.VersionPage{V: versionRow(v), Note: v.Note, Error: v.Error, Active: v.Active(),
		Config: versionConfigRows(v), PromptTokens: v.PromptTokens, OutputTokens: v.OutputTokens, Calls: v.Calls,
		CachedCalls: v.CachedCalls, CachedTokens: v.CachedPromptTokens + v.CachedOutputTokens, OffSchema: v.OffSchema, ParseFailures: v.ParseFailures,
		Cost:       h.appOf(c).Providers().CostOf(v),
		TypeFilter: c.QueryParam("type"), OffSchemaOnly: c.QueryParam("off") == "1", Query: strings.TrimSpace(c.QueryParam("q")), Sort: c.QueryParam("sort"),
		SelfURL:  c.Request().URL.RequestURI(),
		Injected: v.Injected, MergesApplied: v.MergesApplied, NotSameApplied: v.NotSameApplied,
	}
	for _, e := range v.Edits {
		p.Edits = append(p.Edits, e.String())
	}
	if !v.Active() {
		if est, ok := h.appOf(c).Runs.EstimateOf(ctx, v); ok {
			p.Estimate = [][3]string{
				{"model calls", itoa(est.Calls), fmt.Sprintf("%d (%d from the cache)", v.Calls, v.CachedCalls)},
				{"input tokens", itoa(est.InputTokens), itoa(v.PromptTokens)},
				{"output tokens", itoa(est.OutputTokens), itoa(v.OutputTokens)},
				{"cost", fmt.Sprintf("$%.4f", est.Cost), p.Cost},
			}
		}
	}
	if e, err := h.appOf(c).Queries.Embedding(ctx, v.ID); err != nil {
		return err
	} else if e != nil {
		p.Embedding = &web.EmbeddingStats{Embedder: string(e.Embedder), Model: e.Model, Dimensions: e.Dimensions, Vectors: e.Vectors,
			Calls: e.Calls, Tokens: e.Tokens, Cached: e.Cached, Cost: e.Cost}
	}
	docs, err := h.appOf(c).Runs.DocKinds(ctx, v)
	if err != nil {
		return err
	}
	p.Dialogue = app.IsDialogueRun(v.Config, docs)
	if v.Number > 1 {
		if prev, err := h.appOf(c).Versions.ByLabel(ctx, v.Extraction, v.Number-1); err == nil {
			p.PrevID = prev.ID
		}
	}
	fillRetry(ctx, h.appOf(c).Versions, &p, v)
	jobs, jobErrs, err := h.jobsView(ctx, v.ID)
	if err != nil {
		return err
	}
	p.Jobs, p.ChunkErrors = jobs, failureRows(v, jobErrs, docs)
	fillGraphTables(&p, g, mentions, c.Request().URL.Query())
	if p.Chunks, err = h.chunkRows(ctx, v, docs); err != nil {
		return err
	}
	// A long version lists its first chunks (each has a page of its own,
	// linked from its graph, its failures and Ask's passages).
	if len(p.Chunks) > web.MaxChunkRows {
		p.ChunksMore = len(p.Chunks) - web.MaxChunkRows
		p.Chunks = p.Chunks[:web.MaxChunkRows]
	}
	return h.page(c, "extractions", v.Label(), web.VersionView(p))
}

// fillRetry sets what the page says about repairs and the version a retry
// came from, and which of retry and resume it offers.
func fillRetry(ctx context.Context, versions *app.Versions, p *web.VersionPage, v record.Version) {
	p.Repairs, p.Violations = v.Repairs, v.Violations
	if v.ParentID > 0 {
		p.ParentID = v.ParentID
		if pv, err := versions.Get(ctx, v.ParentID); err == nil {
			p.ParentLabel = pv.Label()
		}
	}
	finished := !v.Active()
	p.CanResume = v.Status == record.StatusFailed || v.Status == record.StatusCanceled
	// Unparsed answers are worth asking again only of a model: an
	// offline extractor reads a chunk the same way every time.
	asked := v.Config.Strategy != extract.StrategyNLP && !extract.Offline(v.Config.Provider)
	p.CanRetry = finished && (v.ParseFailures > 0 && asked || v.ChunksDone < v.ChunksTotal || v.Status == record.StatusFailed)
	p.CanGrow = v.Status == record.StatusDone && v.ChunksTotal > 0
}

// versionConfigRows lists the config snapshot for display.
func versionConfigRows(v record.Version) []web.KV {
	c := v.Config
	if c.Strategy == "" {
		return []web.KV{{Key: "strategy", Value: importedConfig}}
	}
	rows := []web.KV{{Key: "strategy", Value: string(c.Strategy)}}
	if !extract.Offline(c.Provider) {
		rows = append(rows, web.KV{Key: "provider", Value: string(c.Provider)}, web.KV{Key: "model", Value: c.Model})
	}
	if c.SchemaName != "" {
		rows = append(rows, web.KV{Key: "schema", Value: fmt.Sprintf("%s@%d", c.SchemaName, c.SchemaVersion)})
	}
	if c.Strategy != extract.StrategyDialogue {
		rows = append(rows, web.KV{Key: "chunking", Value: fmt.Sprintf("%d chars, overlap %d, strict %t", c.ChunkSize, c.Overlap, c.Strict)})
	}
	rows = append(rows, web.KV{Key: "concurrency", Value: fmt.Sprint(c.Concurrency)})
	if c.Strategy == extract.StrategyTuple {
		rows = append(rows, web.KV{Key: "gleaning", Value: fmt.Sprint(c.MaxGleaning)})
	}
	if c.Language != "" {
		rows = append(rows, web.KV{Key: "language", Value: c.Language})
	}
	if len(c.Prompts) > 0 {
		rows = append(rows, web.KV{Key: "prompts", Value: fmt.Sprintf("%d templates (see the run form)", len(c.Prompts))})
	}
	if c.OfficialNames == extract.OfficialNode {
		rows = append(rows, web.KV{Key: "official names", Value: "official-name nodes with OfficialName edges"})
	}
	if c.NoDecisions {
		rows = append(rows, web.KV{Key: "curation", Value: "remembered merges not applied (a retry changes only what failed)"})
	}
	if c.ChunkNodes {
		rows = append(rows, web.KV{Key: "chunk nodes", Value: "a Chunk node per chunk, with source edges"})
	}
	rows = append(rows, web.KV{Key: "documents", Value: fmt.Sprint(len(v.DocumentIDs))})
	return rows
}

// fillGraphTables computes counts by type and the filtered, sorted tables.
// The tables page through every row: ?page= for nodes, ?epage= for edges,
// with the filter and sort kept in the page links.
func fillGraphTables(p *web.VersionPage, g extract.Graph, mentions map[string]int, query url.Values) {
	degree := map[string]int{}
	labels := map[string]int{}
	for _, e := range g.Edges {
		degree[e.Source]++
		degree[e.Target]++
		labels[e.Label]++
	}
	types := map[string]int{}
	names := map[string]string{}
	for _, n := range g.Nodes {
		types[n.Type]++
		names[n.Key] = n.Name
	}
	p.NodeTypes, p.EdgeLabels = sortedCounts(types), sortedCounts(labels)
	for _, t := range p.NodeTypes {
		p.Types = append(p.Types, t.Type)
	}
	sort.Strings(p.Types)
	q := strings.ToLower(p.Query)
	var rows []web.NodeRow
	for _, n := range g.Nodes {
		if p.TypeFilter != "" && n.Type != p.TypeFilter {
			continue
		}
		if p.OffSchemaOnly && !offSchema(n.Properties) {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(n.Name), q) {
			continue
		}
		rows = append(rows, web.NodeRow{Key: n.Key, Name: n.Name, Type: n.Type, Description: extract.Clip(n.Description, 240),
			Degree: degree[n.Key], Mentions: mentions[n.Key]})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch p.Sort {
		case "name":
			return strings.ToLower(a.Name) < strings.ToLower(b.Name)
		case "type":
			return a.Type < b.Type || a.Type == b.Type && a.Name < b.Name
		case "mentions":
			return a.Mentions > b.Mentions
		default:
			return a.Degree > b.Degree
		}
	})
	p.NodesShown = len(rows)
	from, to := 0, 0
	p.NodePager, from, to = pageOf(query, "page", len(rows), tableLimit, "#nodes")
	p.Nodes = rows[from:to]
	var edges []extract.Edge
	for _, e := range g.Edges {
		if !p.OffSchemaOnly || offSchema(e.Properties) {
			edges = append(edges, e)
		}
	}
	sort.SliceStable(edges, func(i, j int) bool { return edges[i].Weight > edges[j].Weight })
	p.EdgesShown = len(edges)
	p.EdgePager, from, to = pageOf(query, "epage", len(edges), tableLimit, "#edges")
	for _, e := range edges[from:to] {
		p.Edges = append(p.Edges, web.EdgeRow{Source: nameOr(names, e.Source), Target: nameOr(names, e.Target),
			Label: e.Label, Description: extract.Clip(e.Description, 200), Weight: e.Weight})
	}
}

// pageOf reads the page number param of a table of total rows and returns
// its pager (links keep the other query parameters) and the row range.
func pageOf(query url.Values, param string, total, size int, anchor string) (web.Pager, int, int) {
	pages := max(1, (total+size-1)/size)
	page, err := strconv.Atoi(query.Get(param))
	if err != nil || page < 1 {
		page = 1
	}
	page = min(page, pages)
	from, to := (page-1)*size, min(page*size, total)
	pg := web.Pager{Page: page, Pages: pages, From: from + 1, To: to, Total: total}
	link := func(n int) string {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Set(param, strconv.Itoa(n))
		return "?" + q.Encode() + anchor
	}
	if page > 1 {
		pg.PrevURL = link(page - 1)
	}
	if page < pages {
		pg.NextURL = link(page + 1)
	}
	return pg, from, to
}

func nameOr(names map[string]string, key string) string {
	if n, ok := names[key]; ok && n != "" {
		return n
	}
	return key
}

func sortedCounts(m map[string]int) []web.TypeCount {
	out := make([]web.TypeCount, 0, len(m))
	for k, v := range m {
		if k == "" {
			k = "(none)"
		}
		out = append(out, web.TypeCount{Type: k, Count: v})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Count > out[j].Count || out[i].Count == out[j].Count && out[i].Type < out[j].Type
	})
	return out
}

// chunkRows lists the chunks of a version's documents with their results.
func (h *Handler) chunkRows(ctx context.Context, v record.Version, docs []extract.Document) ([]web.ChunkRow, error) {
	runs, err := h.appIn(ctx).Versions.ChunkRunSummaries(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	byRef := map[extract.ChunkRef]record.ChunkRun{}
	for _, r := range runs {
		byRef[extract.ChunkRef{DocumentID: r.DocumentID, Index: r.ChunkIndex}] = r
	}
	var rows []web.ChunkRow
	for _, d := range docs {
		docID := d.ID
		chunks, err := h.appIn(ctx).Documents.Chunks(ctx, docID, app.ChunkSetFor(v.Config, d))
		if err != nil {
			return nil, err
		}
		for _, ch := range chunks {
			row := web.ChunkRow{DocumentID: docID, Document: d.Name, Index: ch.Index, Chars: len([]rune(ch.Text)),
				Preview: extract.Clip(strings.Join(strings.Fields(ch.Text), " "), 90)}
			if r, ok := byRef[ch.Ref()]; ok {
				row.Done, row.Nodes, row.Edges, row.Failures = true, r.Nodes, r.Edges, r.Failures
				row.Tokens, row.Elapsed = r.PromptTokens+r.OutputTokens, web.HumanDuration(r.Elapsed)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// showChunk renders one chunk with its mentions highlighted and the
// inspector of the model calls that produced it.
func (h *Handler) showChunk(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	docID, err := intParam(c, "doc")
	if err != nil {
		return err
	}
	index := nonNegParam(c, "index")
	if index < 0 {
		return extract.Errorf(extract.KindInvalid, "chunk index must be a number")
	}
	v, err := h.appOf(c).Versions.Get(ctx, id)
	if err != nil {
		return err
	}
	chunks, err := h.appOf(c).Versions.Chunks(ctx, v, docID)
	if err != nil {
		return err
	}
	if index >= len(chunks) {
		return extract.Errorf(extract.KindNotFound, "chunk %d of document %d not found in this version", index, docID)
	}
	ch := chunks[index]
	d, err := h.appOf(c).Documents.Info(ctx, docID)
	if err != nil {
		return err
	}
	ms, err := h.appOf(c).Graphs.ChunkMentions(ctx, id, docID, index)
	if err != nil {
		return err
	}
	g, err := h.appOf(c).Graphs.Nodes(ctx, id, mentionKeys(ms))
	if err != nil {
		return err
	}
	p := web.ChunkPage{V: versionRow(v), Document: d.Name, DocID: docID, Index: index, Start: ch.Start, End: ch.End,
		PrevIndex: index - 1, NextIndex: -1}
	if index+1 < len(chunks) {
		p.NextIndex = index + 1
	}
	p.Spans, p.Entities = highlight(ch, ms, g)
	r, done, err := h.appOf(c).Versions.ChunkRunAt(ctx, id, docID, index)
	if err != nil {
		return err
	}
	if done {
		p.Done, p.Elapsed = true, web.HumanDuration(r.Elapsed)
		seen := map[string]bool{}
		for _, call := range r.Calls {
			cv := web.CallView{Purpose: call.Purpose, Request: requestText(call.Request),
				Response: call.Response, PromptTokens: call.PromptTokens, OutputTokens: call.OutputTokens,
				Latency: web.HumanDuration(call.Latency), Cached: call.Cached}
			if v.Config.Strategy == extract.StrategyTuple {
				cv.Parsed = parsedItems(call.Response, seen)
			}
			p.Calls = append(p.Calls, cv)
		}
		for _, f := range r.ParseErrors {
			p.Failures = append(p.Failures, web.FailureView{Round: f.Round, Line: f.Line, Reason: f.Reason})
		}
		p.Violations = r.Violations
		for _, k := range slices.Sorted(maps.Keys(r.Repairs)) {
			p.Repairs = append(p.Repairs, web.KV{Key: k, Value: fmt.Sprint(r.Repairs[k])})
		}
	}
	return h.page(c, "extractions", fmt.Sprintf("%s chunk %d", d.Name, index), web.ChunkView(p))
}

// offSchema reports whether the schema strategy marked an item as outside
// the schema.
func offSchema(props map[string]any) bool {
	v, _ := props["off_schema"].(bool)
	return v
}
