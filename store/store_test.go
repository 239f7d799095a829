package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// backend is one database the store tests run on.
type backend struct {
	name string
	// db creates an empty database and returns the options that open it.
	db func(tb testing.TB) store.Options
}

// open opens a migrated store on a fresh database.
func (b backend) open(tb testing.TB) *store.Store {
	tb.Helper()
	return MustOpen(tb, b.db(tb))
}

// backends returns SQLite always and PostgreSQL when
// KGSTUDIO_TEST_POSTGRES_URL is set.
func backends(tb testing.TB) []backend {
	bs := []backend{{"sqlite", sqliteDB}}
	if testkit.PostgresURL(tb) != "" {
		bs = append(bs, backend{"postgres", postgresDB})
	}
	return bs
}

// MustOpen opens and migrates a store and closes it at cleanup.
func MustOpen(tb testing.TB, opts store.Options) *store.Store {
	tb.Helper()
	s, err := store.Open(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// sqliteDB returns the options of a fresh SQLite file.
func sqliteDB(tb testing.TB) store.Options {
	return store.Options{DataDir: tb.TempDir()}
}

// postgresDB creates a database of its own on the test server, returns the
// options that open it and drops it at cleanup.
func postgresDB(tb testing.TB) store.Options {
	tb.Helper()
	return store.Options{URL: testkit.PostgresDB(tb, "test")}
}

func forEachDB(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { fn(t, b.open(t)) })
	}
}

func mustDoc(t *testing.T, s *store.Store, name, content string) extract.Document {
	t.Helper()
	d, err := extract.ReadDocument(name, []byte(content), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err = s.AddDocument(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestOpen_Errors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("UnreachablePostgresMasksPassword", func(t *testing.T) {
		_, err := store.Open(ctx, store.Options{URL: "postgres://bob:s3cretpw@127.0.0.1:1/db?sslmode=disable&connect_timeout=2"})
		if err == nil {
			t.Fatal("want error")
		}
		if strings.Contains(err.Error(), "s3cretpw") {
			t.Fatalf("password leaked: %v", err)
		}
		if !strings.Contains(err.Error(), "cannot reach database") || extract.KindOf(err) != extract.KindUnavailable {
			t.Fatalf("unexpected error: %v", err)
		}
	})
	t.Run("MalformedURLMasksPassword", func(t *testing.T) {
		for _, u := range []string{"postgres://user:hunter2@host:notaport/db", "postgres://u:hunter2@[bad/x"} {
			_, err := store.Open(ctx, store.Options{URL: u})
			if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "xxxxx") {
				t.Fatalf("%s: %v", u, err)
			}
		}
	})
	t.Run("UnsupportedScheme", func(t *testing.T) {
		_, err := store.Open(ctx, store.Options{URL: "mysql://u:pw@host/db"})
		if err == nil || extract.KindOf(err) != extract.KindInvalid || strings.Contains(err.Error(), ":pw@") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("DataDirNotCreatable", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := store.Open(ctx, store.Options{DataDir: filepath.Join(f, "sub")})
		if err == nil || !strings.Contains(err.Error(), "cannot create data dir") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestStore_AddDocument(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d, _ := extract.ReadDocument("a.txt", []byte("Alice met Bob in Paris."), extract.DefaultMaxBytes)
		first, created, err := s.AddDocument(ctx, d)
		if err != nil || !created || first.ID == 0 {
			t.Fatalf("first add: %v %v %+v", err, created, first)
		}
		again, created, err := s.AddDocument(ctx, d)
		if err != nil || created || again.ID != first.ID {
			t.Fatalf("identical content stored twice: %v %v %d != %d", err, created, again.ID, first.ID)
		}
		docs, err := s.ListDocuments(ctx, 0)
		if err != nil || len(docs) != 1 {
			t.Fatalf("list: %v %d", err, len(docs))
		}
		got, err := s.Document(ctx, first.ID)
		if err != nil || got.Content != d.Content {
			t.Fatalf("load: %v %q", err, got.Content)
		}
		if _, err := s.Document(ctx, 9999); extract.KindOf(err) != extract.KindNotFound {
			t.Fatalf("missing document: %v", err)
		}
	})
}

func TestStore_NewVersion(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "a.txt", "Alice met Bob.")
		cfg := extract.DefaultConfig()
		for want := 1; want <= 3; want++ {
			v, err := s.NewVersion(ctx, "people", cfg, []int{d.ID}, "")
			if err != nil {
				t.Fatal(err)
			}
			if v.Number != want || v.Status != record.StatusQueued || v.Config.Strategy != "nlp" {
				t.Fatalf("version %d: %+v", want, v)
			}
		}
		if _, err := s.NewVersion(ctx, "", cfg, []int{d.ID}, ""); extract.KindOf(err) != extract.KindInvalid {
			t.Fatalf("empty name: %v", err)
		}
		v, err := s.VersionByLabel(ctx, "people", 0)
		if err != nil || v.Number != 3 {
			t.Fatalf("latest: %v %d", err, v.Number)
		}
		// NAME alone that names no extraction says so, not "NAME@0".
		if _, err := s.VersionByLabel(ctx, "nobody", 0); extract.KindOf(err) != extract.KindNotFound || extract.MessageOf(err) != `no extraction named "nobody"` {
			t.Errorf("unknown name: %v", err)
		}
		if _, err := s.VersionByLabel(ctx, "people", 9); extract.MessageOf(err) != "version people@9 not found" {
			t.Errorf("unknown number: %v", err)
		}
		if err := s.SetReference(ctx, v.ID, true); err != nil {
			t.Fatal(err)
		}
		v1, _ := s.VersionByLabel(ctx, "people", 1)
		if err := s.SetReference(ctx, v1.ID, true); err != nil {
			t.Fatal(err)
		}
		v, _ = s.Version(ctx, v.ID)
		if v.Reference {
			t.Fatal("two references in one extraction")
		}
	})
}

func sampleGraph(docID int) extract.Graph {
	m := func(i int) []extract.Mention {
		return []extract.Mention{{DocumentID: docID, ChunkIndex: 0, Start: i, End: i + 5, Text: "x"}}
	}
	return extract.Graph{
		Nodes: []extract.Node{
			{Key: "alice", Name: "Alice", Type: "Person", Description: "Alice met Bob.", Mentions: m(0)},
			{Key: "bob", Name: "Bob", Type: "Person", Description: "Alice met Bob.", Mentions: m(10)},
			{Key: "paris", Name: "Paris", Type: "Location", Properties: map[string]any{"country": "France"}, Mentions: m(20)},
		},
		Edges: []extract.Edge{
			{Source: "alice", Target: "bob", Label: "met", Weight: 1, Mentions: m(0)},
			{Source: "alice", Target: "paris", Label: "in", Weight: 2},
		},
	}
}

func TestStore_WriteGraph(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "a.txt", "Alice met Bob in Paris.")
		v, err := s.NewVersion(ctx, "g", extract.DefaultConfig(), []int{d.ID}, "")
		if err != nil {
			t.Fatal(err)
		}
		g := sampleGraph(d.ID)
		for i := 0; i < 2; i++ { // the replay must add nothing
			if err := s.WriteGraph(ctx, v.ID, g); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.LoadGraph(ctx, v.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Nodes) != 3 || len(got.Edges) != 2 {
			t.Fatalf("got %d nodes %d edges", len(got.Nodes), len(got.Edges))
		}
		if got.Nodes[2].Properties["country"] != "France" {
			t.Fatalf("properties lost: %+v", got.Nodes[2])
		}
		if len(got.Nodes[0].Mentions) != 1 || len(got.Edges[0].Mentions) != 1 {
			t.Fatalf("mentions: %+v %+v", got.Nodes[0].Mentions, got.Edges[0].Mentions)
		}
		v, _ = s.Version(ctx, v.ID)
		if v.Nodes != 3 || v.Edges != 2 {
			t.Fatalf("counts %d %d", v.Nodes, v.Edges)
		}
	})
}

func TestStore_Sink(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "a.txt", "Alice met Bob in Paris. Alice left.")
		v, err := s.NewVersion(ctx, "sink", extract.DefaultConfig(), []int{d.ID}, "")
		if err != nil {
			t.Fatal(err)
		}
		sink := s.Sink(v.ID, 8)
		r0 := extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: d.ID, Index: 0}, Graph: sampleGraph(d.ID),
			Calls: []extract.CallRecord{{Key: "k", PromptTokens: 10, OutputTokens: 5}}}
		r1 := extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: d.ID, Index: 1}, Graph: extract.Graph{
			Nodes: []extract.Node{{Key: "alice", Name: "Alice", Type: "Person", Description: "Alice left.",
				Mentions: []extract.Mention{{DocumentID: d.ID, ChunkIndex: 1, Start: 24, End: 29}}}},
		}, Failures: []extract.ParseFailure{{Line: "junk", Reason: "no delimiter"}}}
		for _, r := range []extract.ChunkResult{r0, r1, r0, r1} { // replays add nothing
			if err := sink.WriteChunk(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		done, err := sink.Finished(ctx)
		if err != nil || len(done) != 2 || !done[extract.ChunkRef{DocumentID: d.ID, Index: 1}] {
			t.Fatalf("finished: %v %v", err, done)
		}
		g, err := s.LoadGraph(ctx, v.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Nodes) != 3 || len(g.Edges) != 2 {
			t.Fatalf("got %d nodes %d edges", len(g.Nodes), len(g.Edges))
		}
		var alice extract.Node
		for _, n := range g.Nodes {
			if n.Key == "alice" {
				alice = n
			}
		}
		if !strings.Contains(alice.Description, "Alice met Bob.") || !strings.Contains(alice.Description, "Alice left.") {
			t.Fatalf("descriptions not merged: %q", alice.Description)
		}
		if len(alice.Mentions) != 2 {
			t.Fatalf("alice mentions: %+v", alice.Mentions)
		}
		v, _ = s.Version(ctx, v.ID)
		if v.ChunksDone != 2 || v.Nodes != 3 || v.Edges != 2 || v.PromptTokens != 10 || v.ParseFailures != 1 {
			t.Fatalf("version counters: %+v", v)
		}
		runs, err := s.ChunkRuns(ctx, v.ID)
		if err != nil || len(runs) != 2 || len(runs[0].Calls) != 1 || len(runs[1].ParseErrors) != 1 {
			t.Fatalf("chunk runs: %v %+v", err, runs)
		}
		sums, err := s.ChunkRunSummaries(ctx, v.ID)
		if err != nil || len(sums) != 2 || sums[0].PromptTokens != 10 || sums[0].Calls != nil {
			t.Fatalf("summaries: %v %+v", err, sums)
		}
		one, ok, err := s.ChunkRunAt(ctx, v.ID, d.ID, 1)
		if err != nil || !ok || len(one.ParseErrors) != 1 {
			t.Fatalf("chunk run at 1: %v %v %+v", err, ok, one)
		}
		if _, ok, err := s.ChunkRunAt(ctx, v.ID, d.ID, 7); err != nil || ok {
			t.Fatalf("a chunk that never ran: %v %v", err, ok)
		}
	})
}

func TestStore_Calls(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, ok, err := s.GetCall(ctx, "nope"); err != nil || ok {
			t.Fatalf("miss: %v %v", ok, err)
		}
		rec := extract.CallRecord{Key: "abc", Provider: "gemini", Model: "m", Request: "{}", Response: "out", PromptTokens: 3}
		for i := 0; i < 2; i++ {
			if err := s.PutCall(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		got, ok, err := s.GetCall(ctx, "abc")
		if err != nil || !ok || got.Response != "out" || got.PromptTokens != 3 {
			t.Fatalf("hit: %v %v %+v", ok, err, got)
		}
	})
}
