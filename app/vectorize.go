package app

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// embedderName is a config's embedder: the one it names, else the
// configured default (Providers.Embedder), else DefaultEmbedder.
func (m *Models) embedderName(cfg extract.Config) extract.EmbedderName {
	return cmp.Or(cfg.Embedder, m.providers.Embedder, DefaultEmbedder)
}

// DefaultEmbedder is the embedder of a config that names none: the
// sentence encoder run offline, shipped in the binary.
const DefaultEmbedder = extract.EmbedderUSELite

// checkEmbedder refuses an embedder whose provider is not configured.
func (m *Models) checkEmbedder(cfg extract.Config) error {
	// The gemini and openai embedders are their providers'.
	switch name := m.embedderName(cfg); name {
	case extract.EmbedderGemini, extract.EmbedderOpenAI:
		if !m.providers.Has(extract.Provider(name)) {
			return extract.Errorf(extract.KindInvalid, "the %s embedder needs %s", name, needs(extract.Provider(name)))
		}
	case extract.EmbedderOffline, extract.EmbedderUSELite:
		// Run in the process: nothing to configure.
	}
	return nil
}

// localVectorCache bounds the sentence encoder's cache of vectors: about
// 40 MB of 512-dimension vectors.
const localVectorCache = 20_000

// embedder builds the embedder a config asks for: offline (no calls), or
// Gemini or an OpenAI-compatible server behind the model policy (retries,
// rate limits, concurrency; shared by every run on the same model) and the
// embedding cache, so unchanged text is never embedded twice.
func (m *Models) embedder(ctx context.Context, cfg extract.Config) (extract.Embedder, error) {
	name := m.embedderName(cfg)
	switch name {
	case extract.EmbedderOffline:
		return embed.Offline{}, nil
	case extract.EmbedderUSELite:
		// The sentence encoder costs nothing but time: texts it embedded
		// lately (a curation, edit or grow re-vectorizes a graph that is
		// mostly its parent's; a conversation's query corpus embeds its
		// sides) are answered from memory.
		// One encoder and cache for every workspace: a hit needs the text.
		return shared(m.models, m.models.embedders, "embed/"+string(name), func() (extract.Embedder, error) {
			return embed.CachedSplit(embed.USELite{}, embed.NewMemoryStoreLimit(localVectorCache), 0), nil
		})
	case extract.EmbedderGemini, extract.EmbedderOpenAI:
		// A provider's, below.
	}
	if err := m.checkEmbedder(cfg); err != nil {
		return nil, err
	}
	p := m.providers
	key := "embed/" + string(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.embedders[key]; ok {
		return e, nil
	}
	// The limited embedder is every workspace's; the cache of
	// embeddings over it, this workspace's database.
	limited, err := shared(m.models, m.models.embedders, key, func() (extract.Embedder, error) {
		return newProviderEmbedder(ctx, name, p)
	})
	if err != nil {
		return nil, err
	}
	e := embed.Cached(limited, m.store, 0)
	if m.embedders == nil {
		m.embedders = map[string]extract.Embedder{}
	}
	m.embedders[key] = e
	return e, nil
}

// newProviderEmbedder is a provider's embedder behind the model policy
// (retries, rate limits, concurrency).
func newProviderEmbedder(ctx context.Context, name extract.EmbedderName, p Providers) (extract.Embedder, error) {
	var base extract.Embedder
	switch name {
	case extract.EmbedderGemini:
		g, err := llm.NewGeminiEmbedder(ctx, llm.GeminiConfig{APIKey: p.GeminiAPIKey, Model: p.GeminiEmbedModel, BaseURL: p.GeminiBaseURL}, 0)
		if err != nil {
			return nil, err
		}
		base = g
	case extract.EmbedderOpenAI:
		o, err := llm.NewOpenAIEmbedder(llm.OpenAIEmbedConfig{BaseURL: p.OpenAIBaseURL, APIKey: p.OpenAIAPIKey, Model: p.OpenAIEmbedModel})
		if err != nil {
			return nil, err
		}
		base = o
	default:
		return nil, extract.Errorf(extract.KindInvalid, "unknown embedder %q (use use-lite, offline, gemini or openai)", name)
	}
	pol := llm.DefaultPolicy()
	if p.Timeout > 0 {
		pol.Timeout = p.Timeout
	}
	pol.Concurrency = max(p.Concurrency, 1)
	pol.RequestsPerMinute, pol.TokensPerMinute = p.RequestsPerMinute, p.TokensPerMinute
	return llm.WithEmbedPolicy(base, pol), nil
}

// vectorize is the vectorizer step of a run: it embeds the version's
// chunks, nodes, edges and community reports (the schema's
// vector-indexed properties join the node text) and stores the vectors
// with the calls, tokens and cached texts it took. It embeds and stores
// vectorBatchTexts texts at a time, so it holds one batch of vectors,
// not the version's; the search index is built on the version's first
// search (vectorIndex), not here: a run nobody queries pays nothing for
// it.
//
// The offline embedder's vectors are not stored: they are a hash of the
// text, computed faster than they are read back, so a version records only
// their count, and its first search computes them again (derivedIndex).
func (vz *vectorizer) vectorize(ctx context.Context, v record.Version, have versionRead) error {
	emb, err := vz.models.embedder(ctx, v.Config)
	if err != nil {
		return err
	}
	props, err := vz.vectorProps(ctx, v.Config)
	if err != nil {
		return err
	}
	var items []vectorText
	derived := 0
	if derivedEmbedder(emb) {
		// Only counted: a million-row table's texts are not listed.
		err = vz.eachVectorText(ctx, v, have, func(vectorText) { derived++ })
	} else {
		// Only what is worth embedding is listed (a million-row table's
		// names are not: their list took 100 MB to be thrown away).
		f := meaningfulFilter{props: props}
		if f.tables, err = vz.tableDocuments(ctx, v); err != nil {
			return err
		}
		f.allTables = len(f.tables) == len(v.DocumentIDs)
		err = vz.eachVectorText(ctx, v, have, func(t vectorText) {
			if f.keep(t) {
				items = append(items, t)
			}
		})
	}
	if err != nil {
		return err
	}
	w, err := vz.store.WriteVectors(ctx, v.ID, emb.Model())
	if err != nil {
		return err
	}
	var use extract.EmbedUsage
	if derivedEmbedder(emb) {
		w.Derived(derived)
	}
	texts := make([]string, 0, vectorBatchTexts)
	batch := make([]store.VectorItem, 0, vectorBatchTexts)
	for lo := 0; lo < len(items); lo += vectorBatchTexts {
		hi := min(lo+vectorBatchTexts, len(items))
		texts = texts[:0]
		for _, it := range items[lo:hi] {
			texts = append(texts, it.text(props))
		}
		vecs, other, u, err := embed.EmbedSplit(ctx, emb, texts)
		use = use.Add(u)
		if err != nil {
			return fmt.Errorf("vectorize: %w", err)
		}
		batch = batch[:0]
		for j, it := range items[lo:hi] {
			item := store.VectorItem{Kind: it.kind, Key: it.key, Vector: vecs[j]}
			if other != nil && other[j] {
				item.Model = emb.(extract.SplitEmbedder).Fallback().Model()
			}
			batch = append(batch, item)
		}
		if err := w.Add(ctx, batch); err != nil {
			return err
		}
	}
	st := record.VectorStats{Embedder: vz.models.embedderName(v.Config), Model: emb.Model(), Dimensions: emb.Dimensions(),
		Calls: use.Calls, Tokens: use.Tokens, Cached: use.Cached}
	if err := w.Close(ctx, st); err != nil {
		return err
	}
	vz.log.Info("vectorized", "version_id", v.ID, "embedder", st.Embedder, "model", st.Model, "vectors", len(items), "calls", use.Calls, "cached", use.Cached)
	return nil
}

// meaningfulFilter leaves out what a sentence encoder or a model would embed
// at full cost for nothing the name index lacks: the chunks of tables
// mapped row by row (tables, by document: a table is no prose), and in a
// version made of tables alone (allTables) its nodes and edges of names
// alone (a CSV triple's ends and its label: no description, keywords or
// vector-indexed property) and, when no node has more, the community
// reports, which then list names. A 60,000-row triples table embedded
// 80,000 names, 1,700 such reports and its megabyte of cells as one text
// (150 CPU-seconds; now 4 for the whole run).
//
// It takes one text at a time, in eachVectorText's order (every node
// before the reports).
type meaningfulFilter struct {
	props     query.VectorProps
	tables    map[int]bool
	allTables bool
	// described says a node seen so far has more than its name.
	described bool
}

// namesOnly reports a node or edge of a version of tables alone that is
// a name and nothing more.
func (f *meaningfulFilter) namesOnly(it vectorText) bool {
	switch {
	case !f.allTables:
		return false
	case it.node != nil:
		return it.node.Description == "" && !hasProps(*it.node, f.props[it.node.Type])
	case it.edge != nil:
		return it.edge.Description == "" && it.edge.Keywords == ""
	}
	return false
}

// keep reports whether the text is embedded.
func (f *meaningfulFilter) keep(it vectorText) bool {
	names := f.namesOnly(it)
	if it.node != nil && !names {
		f.described = true
	}
	switch {
	case it.kind == store.VectorReport && !f.described && f.allTables:
	case it.chunk != nil && f.tables[it.chunk.DocumentID]:
	case names:
	default:
		return true
	}
	return false
}

// hasProps reports whether a node has a value for any of props.
func hasProps(n extract.Node, props []string) bool {
	for _, p := range props {
		if v, ok := n.Properties[p]; ok && v != nil {
			return true
		}
	}
	return false
}

// tableDocuments are the documents of a version read as tables (the CSV
// track), by id.
func (vz *vectorizer) tableDocuments(ctx context.Context, v record.Version) (map[int]bool, error) {
	docs, err := docKinds(ctx, vz.store, v)
	if err != nil {
		return nil, err
	}
	out := map[int]bool{}
	for _, d := range docs {
		if TrackOf(v.Config, d) == TrackCSV {
			out[d.ID] = true
		}
	}
	return out, nil
}

// derivedEmbedder says an embedder's vectors are computed again when searched
// rather than stored: the offline embedder's, a hash of the text.
func derivedEmbedder(emb extract.Embedder) bool {
	_, ok := emb.(embed.Offline)
	return ok
}

// vectorTexts lists what a version's vectors embed, in query.Vectorize's
// order (chunks, then each node key once, then each distinct edge text
// once, query.EdgeVectorKey), then the reports of the communities global
// search reads (query.ReportedCommunities, keyed by community id), and the
// schema's vector-indexed properties that join a node's text. What have
// holds is not read again.
func (vz *vectorizer) vectorTexts(ctx context.Context, v record.Version, have versionRead) ([]vectorText, query.VectorProps, error) {
	props, err := vz.vectorProps(ctx, v.Config)
	if err != nil {
		return nil, nil, err
	}
	var items []vectorText
	err = vz.eachVectorText(ctx, v, have, func(t vectorText) { items = append(items, t) })
	return items, props, err
}

// eachVectorText gives each text vectorTexts lists to visit, in order.
func (vz *vectorizer) eachVectorText(ctx context.Context, v record.Version, have versionRead, visit func(vectorText)) error {
	if have.wait != nil {
		if err := have.wait(); err != nil {
			return err
		}
	}
	g := have.graph
	if g == nil {
		loaded, err := vz.store.LoadGraph(ctx, v.ID, false)
		if err != nil {
			return err
		}
		g = &loaded
	}
	chunks := have.chunks
	if chunks == nil {
		var err error
		if chunks, err = vz.versionChunks(ctx, v); err != nil {
			return err
		}
		defer clear(chunks) // ours: the list below holds them
	}
	list := slices.SortedFunc(maps.Values(chunks), func(x, y extract.Chunk) int {
		return cmp.Or(cmp.Compare(x.DocumentID, y.DocumentID), cmp.Compare(x.Index, y.Index))
	})
	for i, c := range list {
		visit(vectorText{kind: store.VectorChunk, key: fmt.Sprintf("%d:%d", c.DocumentID, c.Index), chunk: &list[i]})
	}
	seen := make(map[string]struct{}, len(g.Nodes))
	for i, n := range g.Nodes {
		if _, ok := seen[n.Key]; !ok {
			seen[n.Key] = struct{}{}
			visit(vectorText{kind: store.VectorNode, key: n.Key, node: &g.Nodes[i]})
		}
	}
	nodes := len(seen)
	seen = nil
	// Edges next, one vector per text: by the text's hash, not its key
	// (a million edges' keys took some 100 MB in a set).
	texts := make(map[uint64]struct{}, len(g.Edges))
	for i, e := range g.Edges {
		if h := query.EdgeVectorHash(e); !has(texts, h) {
			texts[h] = struct{}{}
			visit(vectorText{kind: store.VectorEdge, key: query.EdgeVectorKeyOf(h), edge: &g.Edges[i]})
		}
	}
	texts = nil
	// The reports of the communities global search reads.
	var r community.Result
	if have.comms != nil {
		r = *have.comms
	} else {
		r = vz.communities.communitiesOf(ctx, v, *g)
	}
	cs := query.ReportedCommunities(r, nodes)
	for i, rep := range r.ReportsOf(cs, *g) {
		visit(vectorText{kind: store.VectorReport, key: strconv.Itoa(cs[i].ID), report: query.ReportText(rep)})
	}
	return nil
}

// versionRead is what a caller has read of a version already, its graph
// as stored and its chunks, for the vector steps to use rather than read
// again; a nil field is read. When wait is set, graph is being read and
// is there once wait returns (nil when the read failed).
type versionRead struct {
	graph  *extract.Graph
	wait   func() error
	chunks map[extract.ChunkRef]extract.Chunk
	// comms are the version's communities, as a final job just stored
	// them.
	comms *community.Result
}

// vectorBatchTexts is how many texts the vectorizer embeds and stores at
// a time.
const vectorBatchTexts = 512

// vectorText is one text the vectorizer embeds: a chunk, a node, an
// edge or a community report of the version.
type vectorText struct {
	kind   store.VectorKind
	key    string
	chunk  *extract.Chunk
	node   *extract.Node
	edge   *extract.Edge
	report string
}

func (t vectorText) text(props query.VectorProps) string {
	switch {
	case t.kind == store.VectorReport:
		return t.report
	case t.node != nil:
		return query.NodeText(*t.node, props[t.node.Type])
	case t.edge != nil:
		return query.EdgeText(*t.edge)
	}
	return t.chunk.Text
}

// has reports whether set holds k.
func has[K comparable](set map[K]struct{}, k K) bool {
	_, ok := set[k]
	return ok
}

// versionChunks loads a version's chunks by reference.
func (vz *vectorizer) versionChunks(ctx context.Context, v record.Version) (map[extract.ChunkRef]extract.Chunk, error) {
	byDoc, err := vz.versions.chunksByDocument(ctx, v)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, cs := range byDoc {
		n += len(cs)
	}
	chunks := make(map[extract.ChunkRef]extract.Chunk, n)
	for _, cs := range byDoc {
		for _, ch := range cs {
			chunks[ch.Ref()] = ch
		}
	}
	return chunks, nil
}

// AllChunks returns a version's chunks in document and index order, for
// exports that write chunk nodes.
func (s *Versions) AllChunks(ctx context.Context, v record.Version) ([]extract.Chunk, error) {
	byDoc, err := s.chunksByDocument(ctx, v)
	if err != nil {
		return nil, err
	}
	var out []extract.Chunk
	for _, id := range v.DocumentIDs {
		out = append(out, byDoc[id]...)
	}
	return out, nil
}

// chunksByDocument reads the chunks of every document of a version, each
// under the chunk settings the version's run gave it (ChunkSetFor), a
// batch of documents at a query.
func (s *Versions) chunksByDocument(ctx context.Context, v record.Version) (map[int][]extract.Chunk, error) {
	infos, err := s.st.DocumentInfos(ctx, v.DocumentIDs)
	if err != nil {
		return nil, err
	}
	settings := make(map[int]string, len(infos))
	for id, d := range infos {
		settings[id] = ChunkSetFor(v.Config, extract.Document{ID: d.ID, Name: d.Name, Kind: d.Kind})
	}
	return s.st.ChunksOf(ctx, v.DocumentIDs, settings)
}

// vectorProps lists, per type, the properties the version's schema marks
// `index: Vector` or `index: TextAndVector`.
func (vz *vectorizer) vectorProps(ctx context.Context, cfg extract.Config) (query.VectorProps, error) {
	if cfg.SchemaName == "" {
		return nil, nil
	}
	sc, _, err := vz.store.SchemaVersion(ctx, cfg.SchemaName, cfg.SchemaVersion)
	if err != nil {
		return nil, err
	}
	return VectorPropsOf(*sc), nil
}

// VectorPropsOf lists, per type name, the properties of a schema indexed
// as Vector or TextAndVector.
func VectorPropsOf(sc schema.Schema) query.VectorProps {
	out := query.VectorProps{}
	for _, t := range sc.Types {
		for _, p := range t.Properties {
			if strings.Contains(strings.ToLower(p.Index), "vector") {
				out[t.Name] = append(out[t.Name], p.Name)
			}
		}
	}
	return out
}

// vectorCacheSize is how many versions' vector indexes stay in memory.
const vectorCacheSize = 8

// indexKey names a version's vector index: the version and the record
// it was built from (a different record, the version vectorized again,
// misses).
type indexKey struct {
	versionID int
	stats     record.VectorStats
}

// vectorIndexStamp names what a finished version's vector index is built
// from: the version as it finished (its content does not change after)
// and its vectorizer record. A version that is not finished has none:
// its index is not stored. "v2": one stored before its arrays were
// padded and its postings kept apart is built and stored once more, so
// it is read in place and its postings as questions need them.
func vectorIndexStamp(v record.Version, st record.VectorStats) string {
	if v.Status != record.StatusDone || v.FinishedAt == nil {
		return ""
	}
	return fmt.Sprintf("v2 %d %d %d %d %d|%s|%s|%d|%d", v.ID, v.CreatedAt.UnixNano(), v.FinishedAt.UnixNano(), v.Nodes, v.Edges,
		st.Embedder, st.Model, st.Dimensions, st.Vectors)
}

// vectorIndex returns a version's vector index (exact for small versions,
// HNSW past embed.ExactLimit) and its vectorizer record, both nil when
// the version has none. Indexes are built on first use, once however many
// searches ask at the same time, and kept for the versions searched last,
// so HNSW graphs are built once per version and process.
// What have holds (the caller's reading of the version) is used to derive
// vectors rather than read again.
func (q *Queries) vectorIndex(ctx context.Context, v record.Version, have versionRead) (*query.VectorIndex, *record.VectorStats, error) {

	st, ok, err := q.store.VectorStatsOf(ctx, v.ID)
	if err != nil || !ok {
		return nil, nil, err
	}
	key := indexKey{v.ID, st}
	vi, err := q.indexes.Get(ctx, key, func() (*query.VectorIndex, error) {
		// An index of an older record of the version is of no more use.
		q.indexes.DeleteFunc(func(k indexKey) bool { return k.versionID == v.ID && k != key })
		// A finished version's index is built once and stored: every
		// process (a fresh query, an MCP server, a replica) reads it.
		stamp := vectorIndexStamp(v, st)
		if stamp != "" {
			var vi *query.VectorIndex
			var bad error
			ok, err := q.store.ReadVersionIndex(ctx, v.ID, store.IndexVectors, stamp, func(data []byte) error {
				// data is this read's own: the index keeps its arrays in it.
				vi, bad = query.ReadVectorIndex(data)
				return nil
			})
			if err != nil {
				return nil, err
			}
			if ok && bad == nil {
				// Its postings are read as questions need them.
				vi.SetLoader(func(ctx context.Context, names []string) (map[string][]byte, error) {
					return q.store.ReadVersionIndexApart(ctx, v.ID, store.IndexVectors, stamp, names)
				})
				return vi, nil
			}
			if ok {
				q.log.
					Warn("stored vector index unreadable, building it again", "version_id", v.ID, "err", bad)
			}
		}
		vi, err := q.vectors.newVectorIndex(ctx, st, v, have)
		if err != nil {
			return nil, err
		}
		if vi.Approximate() {
			q.log.
				Info("vector index built", "version_id", v.ID, "vectors", vi.Len())
		}
		if stamp != "" && vi != nil {
			// Best effort: a version whose index cannot be stored is
			// answered all the same, and built again next time.
			// Sparse vectors' postings apart, by dimension: a later
			// process reads those of its question's dimensions alone.
			data, apart := vi.AppendApart(nil)
			if err := q.store.SaveVersionIndexApart(context.WithoutCancel(ctx), v.ID, store.IndexVectors, stamp, data, apart); err != nil {
				q.log.
					Warn("vector index not stored", "version_id", v.ID, "err", err)
			}
		}
		return vi, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return vi, &st, nil
}

// newVectorIndex builds a version's vector index from its stored
// vectors or, for the offline embedder, whose vectors are counted but not
// stored, from its texts a kind at a time (the dense vectors of one kind
// are held while it is indexed, not those of all of them).
func (vz *vectorizer) newVectorIndex(ctx context.Context, st record.VectorStats, v record.Version, have versionRead) (*query.VectorIndex, error) {
	if st.Embedder == extract.EmbedderOffline && st.Vectors > 0 {
		stored, err := vz.store.HasVectors(ctx, v.ID)
		if err != nil {
			return nil, err
		}
		if !stored {
			return vz.derivedIndex(ctx, st, v, have)
		}
	}
	vecs, err := vz.loadVectors(ctx, st, v)
	if err != nil {
		return nil, err
	}
	return query.NewVectorIndex(vecs), nil
}

// derivedIndex is newVectorIndex for the offline embedder's vectors,
// computed again from the texts vectorize counted.
func (vz *vectorizer) derivedIndex(ctx context.Context, st record.VectorStats, v record.Version, have versionRead) (*query.VectorIndex, error) {
	items, props, err := vz.vectorTexts(ctx, v, have)
	if err != nil {
		return nil, err
	}
	// ofKind returns the keys of one kind, sorted, and their texts (a
	// key listed twice has its last text).
	ofKind := func(kind store.VectorKind) (keys, texts []string) {
		last := map[string]int{}
		for i, it := range items {
			if it.kind == kind {
				last[it.key] = i
			}
		}
		keys = slices.Sorted(maps.Keys(last))
		texts = make([]string, len(keys))
		for i, k := range keys {
			texts[i] = items[last[k]].text(props)
		}
		return keys, texts
	}
	// indexKind embeds one kind's texts straight into its index.
	indexKind := func(kind store.VectorKind) func(int) ([]string, *embed.Index, error) {
		return func(limit int) ([]string, *embed.Index, error) {
			keys, texts := ofKind(kind)
			var w embed.OfflineWriter
			var err error
			ix := embed.NewSparseIndex(len(keys), embed.OfflineDimensions, limit, func(i int, v []float32) {
				if i%256 == 0 && err == nil {
					err = ctx.Err()
				}
				w.Vector(texts[i], v)
			})
			return keys, ix, err
		}
	}
	return query.NewVectorIndexOf(st.Model, func() (map[extract.ChunkRef][]float32, error) {
		keys, texts := ofKind(store.VectorChunk)
		vecs, _, err := embed.Offline{}.Embed(ctx, texts)
		out := make(map[extract.ChunkRef][]float32, len(keys))
		for i, k := range keys {
			if ref, ok := chunkRefOf(k); ok && err == nil {
				out[ref] = vecs[i]
			}
		}
		return out, err
	}, indexKind(store.VectorNode), indexKind(store.VectorEdge))
}

// chunkRefOf reads a chunk vector's key ("DOC:INDEX").
func chunkRefOf(key string) (extract.ChunkRef, bool) {
	d, i, ok := strings.Cut(key, ":")
	doc, err1 := strconv.Atoi(d)
	idx, err2 := strconv.Atoi(i)
	return extract.ChunkRef{DocumentID: doc, Index: idx}, ok && err1 == nil && err2 == nil
}

// loadVectors returns a version's stored vectors in the form search uses.
func (vz *vectorizer) loadVectors(ctx context.Context, st record.VectorStats, v record.Version) (*query.Vectors, error) {
	items, err := vz.store.Vectors(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	newVectors := func(model string) *query.Vectors {
		return &query.Vectors{Model: model, Chunks: map[extract.ChunkRef][]float32{}, Nodes: map[string][]float32{}, Edges: map[string][]float32{}}
	}
	top := newVectors(st.Model)
	for _, it := range items {
		// A split embedder's fallback vectors form an index of their own.
		out := top
		if it.Model != "" && it.Model != st.Model {
			if top.Other == nil {
				top.Other = newVectors(it.Model)
			}
			out = top.Other
		}
		switch it.Kind {
		case store.VectorChunk:
			if ref, ok := chunkRefOf(it.Key); ok {
				out.Chunks[ref] = it.Vector
			}
		case store.VectorNode:
			out.Nodes[it.Key] = it.Vector
		case store.VectorEdge:
			out.Edges[it.Key] = it.Vector
		case store.VectorReport:
			// Read with the communities, by global search (reportVectors).
		}
	}
	return top, nil
}

// vectorizeChild gives a version made from parent by an edit or a merge
// vectors of its own when parent has them, with parent's embedder (a model
// embedder embeds only the texts its cache has not seen). A failure is
// logged, not returned: the new version is saved either way, and queries
// on it rank without vectors.
func (vz *vectorizer) vectorizeChild(ctx context.Context, parent, child record.Version) {
	if _, ok, err := vz.store.VectorStatsOf(ctx, parent.ID); err != nil || !ok {
		return
	}
	if err := vz.vectorize(ctx, child, versionRead{}); err != nil {
		vz.log.Warn("vectors not made", "version_id", child.ID, "err", extract.MessageOf(err))
	}
}
