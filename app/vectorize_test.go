package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// testApp opens a fresh SQLite store and an app over it, both closed at
// cleanup, with a document of the given text stored.
func testApp(t *testing.T, name, text string) (*App, *store.Store, extract.Document) {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d, err := extract.ReadDocument(name, []byte(text), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err = st.AddDocument(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline}), st, d
}

// mustRun creates and runs a version to the end and returns it with its
// graph.
func mustRun(t *testing.T, a *App, req RunRequest) (record.Version, extract.Graph) {
	t.Helper()
	ctx := context.Background()
	v, _, err := a.Runs.NewRun(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Runs.Run(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	g, err := a.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	return v, g
}

// runConfig prepares cfg, makes a version of name over docIDs and runs it
// to the end.
func runConfig(t *testing.T, a *App, st *store.Store, name string, cfg extract.Config, docIDs ...int) record.Version {
	t.Helper()
	ctx := context.Background()
	if err := a.Runs.Prepare(ctx, &cfg, ""); err != nil {
		t.Fatal(err)
	}
	v, err := st.NewVersion(ctx, name, cfg, docIDs, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Runs.Run(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	// As it finished.
	if v, err = st.Version(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	return v
}

// A version's vector index is built once and reused by later searches; a
// new vectorizer record (the version vectorized again) builds it anew.
func TestApp_VectorIndexCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, st, d := testApp(t, "marley.txt", "Marley was dead. Scrooge signed it. Scrooge and Marley were partners.")
	v := runConfig(t, a, st, "carol", extract.DefaultConfig(), d.ID)
	first, stats, err := a.Queries.vectorIndex(ctx, v, versionRead{})
	if err != nil || first == nil || stats == nil || first.Len() != stats.Vectors || first.Approximate() {
		t.Fatalf("index %v, stats %+v, err %v", first, stats, err)
	}
	// The finished version's index is stored with the first search...
	stamp := vectorIndexStamp(v, *stats)
	data, ok, err := st.VersionIndex(ctx, v.ID, store.IndexVectors, stamp)
	if err != nil || !ok {
		t.Fatalf("the index was not stored: %v", err)
	}
	if stored, err := query.ReadVectorIndex(data); err != nil || stored.Len() != first.Len() || !stored.Apart() {
		t.Fatalf("the stored index: %v (its sparse postings apart: %t)", err, err == nil && stored.Apart())
	}
	// ... and a new app (a restart) reads it instead of building it.
	fresh := newApp(st, a.log, Providers{Embedder: extract.EmbedderOffline})
	rebuilt, _, err := fresh.Queries.vectorIndex(ctx, v, versionRead{})
	if err != nil || rebuilt == first || rebuilt.Len() != first.Len() {
		t.Fatalf("after a restart: %v (%v)", rebuilt, err)
	}
	// A damaged stored index is built again, and stored again whole.
	if err := st.SaveVersionIndex(ctx, v.ID, store.IndexVectors, stamp, data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	if again, _, err := newApp(st, a.log, Providers{Embedder: extract.EmbedderOffline}).Queries.vectorIndex(ctx, v, versionRead{}); err != nil || again.Len() != first.Len() {
		t.Fatalf("from a damaged stored index: %v", err)
	}
	if data, ok, _ := st.VersionIndex(ctx, v.ID, store.IndexVectors, stamp); !ok || len(data) == 0 {
		t.Fatal("the damaged index was not stored again")
	} else if _, err := query.ReadVectorIndex(data); err != nil {
		t.Fatalf("stored again: %v", err)
	}
	if again, _, _ := fresh.Queries.vectorIndex(ctx, v, versionRead{}); again != rebuilt {
		t.Fatal("the second search built the index again")
	}
	// The offline embedder's vectors are counted, not stored: the index
	// computes them again, as many as the record counts.
	if stored, err := st.Vectors(ctx, v.ID); err != nil || len(stored) != 0 {
		t.Fatalf("%d offline vectors stored (%v); want none", len(stored), err)
	}
	if counts, err := st.VectorCounts(ctx, v.ID); err != nil || counts[stats.Model] != stats.Vectors || stats.Vectors == 0 {
		t.Fatalf("vector counts %v (%v); want %d of %s", counts, err, stats.Vectors, stats.Model)
	}
	texts, props, err := a.vectors.vectorTexts(ctx, v, versionRead{})
	if err != nil || len(texts) != stats.Vectors {
		t.Fatalf("%d texts to derive vectors from (%v); want %d", len(texts), err, stats.Vectors)
	}
	vecs, _, err := embed.Offline{}.Embed(ctx, []string{texts[0].text(props)})
	if err != nil {
		t.Fatal(err)
	}
	// The store's record changes when the version is vectorized again.
	rec := *stats
	rec.Calls = 1
	if err := st.SaveVectors(ctx, v.ID, rec, []store.VectorItem{{Kind: texts[0].kind, Key: texts[0].key, Vector: vecs[0]}}); err != nil {
		t.Fatal(err)
	}
	if next, _, _ := fresh.Queries.vectorIndex(ctx, v, versionRead{}); next == rebuilt || next.Len() != 1 {
		t.Fatalf("a new vectorizer record kept the old index (%d vectors)", next.Len())
	}
}

// With no embedder named anywhere, a run vectorizes with the sentence
// encoder; the Chinese text it cannot serve goes to the hashed
// embedder's index, and a question in Chinese is searched there.
func TestVectorize_DefaultEncoderAndFallbackIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	text := "Ebenezer Scrooge kept a counting-house in London. His clerk Bob Cratchit worked there in the cold.\n\n" +
		"周杰伦是台湾著名歌手，出生于台北。他的音乐融合了中西风格。\n\n" +
		"Jacob Marley had been dead for seven years when his ghost visited Scrooge."
	a, st, d := testApp(t, "mixed.txt", text)
	a.Models.providers.Embedder = ""
	cfg := extract.DefaultConfig()
	cfg.ChunkSize, cfg.Overlap = 120, 0
	v := runConfig(t, a, st, "mixed", cfg, d.ID)
	stats, ok, err := st.VectorStatsOf(ctx, v.ID)
	if err != nil || !ok || stats.Embedder != extract.EmbedderUSELite || stats.Model != "universal-sentence-encoder-lite-2" || stats.Dimensions != 512 {
		t.Fatalf("stats %+v (%v, %v): want the sentence encoder by default", stats, ok, err)
	}
	emb, err := a.Queries.Embedding(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	counts := emb.Indexes
	if counts["universal-sentence-encoder-lite-2"] == 0 || counts["offline-hashed-ngrams-v1"] == 0 || len(counts) != 2 {
		t.Fatalf("vectors by model %v: want both indexes", counts)
	}
	v, err = st.Version(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ q, want, model string }{
		{"Who worked for the miser in the cold office?", "Cratchit", "universal-sentence-encoder-lite-2"},
		{"周杰伦出生在哪里？", "周杰伦", "offline-hashed-ngrams-v1"},
	} {
		res, err := a.Queries.Ask(ctx, v, QueryInput{Question: tc.q, Provider: "none", Mode: "naive", TopK: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Embedder != tc.model {
			t.Errorf("%q searched with %s, want %s", tc.q, res.Embedder, tc.model)
		}
		if len(res.Chunks) == 0 || !strings.Contains(res.Chunks[0].Text, tc.want) {
			t.Errorf("%q: chunks %+v, want the one about %s first", tc.q, res.Chunks, tc.want)
		}
	}
}

// The sentence encoder's vectors are kept in memory for a while: a second
// version of the same text (a curation, an edit, a rerun) takes every
// vector from there and embeds nothing again.
func TestVectorize_SentenceEncoderReusesVectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, st, d := testApp(t, "marley.txt", "Marley was dead. Scrooge signed it. Scrooge and Marley were partners.")
	a.Models.providers.Embedder = extract.EmbedderUSELite
	var stats []record.VectorStats
	for range 2 {
		cfg := extract.DefaultConfig()
		cfg.Embedder = extract.EmbedderUSELite
		v := runConfig(t, a, st, "carol", cfg, d.ID)
		s, ok, err := st.VectorStatsOf(ctx, v.ID)
		if err != nil || !ok {
			t.Fatalf("no vector record for %s: %v", v.Label(), err)
		}
		stats = append(stats, s)
	}
	if stats[0].Vectors == 0 || stats[1].Vectors != stats[0].Vectors || stats[1].Cached != stats[1].Vectors {
		t.Errorf("vector records %+v then %+v; want the second's vectors all cached", stats[0], stats[1])
	}
}

// A model embedder leaves out what has no meaning of its own: a table's
// chunk always, and in a version of tables alone the nodes and edges of
// names alone and, when no node has more, the community reports. A
// version with text keeps every node, edge and report.
func TestMeaningful(t *testing.T) {
	items := func() []vectorText {
		return []vectorText{
			{kind: store.VectorChunk, key: "1:0", chunk: &extract.Chunk{DocumentID: 1}},
			{kind: store.VectorChunk, key: "2:0", chunk: &extract.Chunk{DocumentID: 2}},
			{kind: store.VectorNode, key: "e1", node: &extract.Node{Key: "e1", Name: "e1"}},
			{kind: store.VectorNode, key: "e2", node: &extract.Node{Key: "e2", Name: "e2", Properties: map[string]any{"desc": "a city"}}},
			{kind: store.VectorEdge, key: "x", edge: &extract.Edge{Source: "e1", Label: "p5", Target: "e2"}},
			{kind: store.VectorEdge, key: "y", edge: &extract.Edge{Source: "e1", Label: "p5", Target: "e2", Description: "e1 met e2."}},
			{kind: store.VectorReport, key: "0", report: "e1, e2"},
		}
	}
	keys := func(its []vectorText) string {
		var ks []string
		for _, it := range its {
			ks = append(ks, string(it.kind)+":"+it.key)
		}
		return strings.Join(ks, " ")
	}
	tables := map[int]bool{1: true}
	// As vectorize filters them: one at a time, in eachVectorText's order.
	meaningful := func(its []vectorText, props query.VectorProps, tables map[int]bool, allTables bool) []vectorText {
		f := meaningfulFilter{props: props, tables: tables, allTables: allTables}
		var out []vectorText
		for _, it := range its {
			if f.keep(it) {
				out = append(out, it)
			}
		}
		return out
	}
	if got := keys(meaningful(items(), query.VectorProps{}, tables, false)); got != "chunk:2:0 node:e1 node:e2 edge:x edge:y report:0" {
		t.Errorf("with text: %s", got)
	}
	if got := keys(meaningful(items(), query.VectorProps{"": {"desc"}}, tables, true)); got != "chunk:2:0 node:e2 edge:y report:0" {
		t.Errorf("tables alone, a described node: %s", got)
	}
	if got := keys(meaningful(items(), query.VectorProps{}, tables, true)); got != "chunk:2:0 edge:y" {
		t.Errorf("tables alone, names alone: %s", got)
	}
}
