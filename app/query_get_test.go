package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// A retrieval-only query (a GET) on a version vectorized by a provider
// makes no embedding call: 25 of them make none; it ranks without
// vectors until the question has been embedded by a POST, and with the
// cached vector after.
func TestQuery_GetSpendsNothing(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		var data []map[string]any
		for i, in := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": embed.Offline{}.Vector(in)[:64]})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "usage": map[string]int{"prompt_tokens": len(req.Input)}})
	}))
	defer srv.Close()
	a := sqliteApp(t, Providers{OpenAIBaseURL: srv.URL + "/v1", OpenAIEmbedModel: "local-embed"}, nil)
	ctx := context.Background()
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOpenAI
	if err := a.Runs.Prepare(ctx, &cfg, ""); err != nil {
		t.Fatal(err)
	}
	d, err := ReadDocument(t.Context(), "marley.txt", []byte("Marley was dead: to begin with. Scrooge signed the register of his burial. "+
		"Scrooge and Marley were partners for many years. Scrooge was his sole executor and his sole friend."), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err = a.store.AddDocument(ctx, d); err != nil {
		t.Fatal(err)
	}
	v, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "emb", Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Runs.Run(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	if v, err = a.store.Version(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	after := calls.Load()
	if after == 0 {
		t.Fatal("the run embedded nothing")
	}
	get := QueryInput{Question: "Who was Scrooge's partner?", Provider: "none", Mode: "mix", RetrievalOnly: true}
	for range 25 {
		res, err := a.Queries.Ask(ctx, v, get)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Chunks) == 0 || res.Embedder != "" || !strings.Contains(res.Note, "without vectors") {
			t.Fatalf("GET: %d chunks, embedder %q, note %q", len(res.Chunks), res.Embedder, res.Note)
		}
	}
	if n := calls.Load() - after; n != 0 {
		t.Fatalf("25 GETs made %d embedding calls", n)
	}
	post := get
	post.RetrievalOnly = false
	if res, err := a.Queries.Ask(ctx, v, post); err != nil || res.Embedder != "local-embed" {
		t.Fatalf("POST: embedder %q, %v", res.Embedder, err)
	}
	if calls.Load() == after {
		t.Fatal("the POST embedded nothing")
	}
	paid := calls.Load()
	res, err := a.Queries.Ask(ctx, v, get)
	if err != nil || res.Embedder != "local-embed" || calls.Load() != paid {
		t.Fatalf("GET after the POST: embedder %q, %d more calls, %v", res.Embedder, calls.Load()-paid, err)
	}
}

// Within gives exactly the nodes within 1 and 2 steps of a node, as a
// walk over the whole graph finds them, with their descriptions, and
// only edges among them.
func TestGraphs_Within(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, st, d := testApp(t, "marley.txt", "Marley was dead. Scrooge signed the register of his burial. Scrooge and Marley were partners in London. "+
		"Bob Cratchit worked for Scrooge in London. Fred, Scrooge's nephew, visited him on Christmas Eve. Fezziwig taught Scrooge in London.")
	v, _ := mustRun(t, a, RunRequest{Extraction: "m", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}})
	g, err := st.LoadGraph(ctx, v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	adj := map[string][]string{}
	for _, e := range g.Edges {
		adj[e.Source] = append(adj[e.Source], e.Target)
		adj[e.Target] = append(adj[e.Target], e.Source)
	}
	ring := func(key string, depth int) map[string]bool {
		seen := map[string]bool{key: true}
		front := []string{key}
		for range depth {
			var next []string
			for _, k := range front {
				for _, n := range adj[k] {
					if !seen[n] {
						seen[n] = true
						next = append(next, n)
					}
				}
			}
			front = next
		}
		return seen
	}
	checked := 0
	for _, n := range g.Nodes {
		for _, depth := range []int{1, 2} {
			got, err := a.Graphs.Within(ctx, v.ID, n.Key, depth)
			if err != nil {
				t.Fatal(err)
			}
			want := ring(n.Key, depth)
			keys := map[string]bool{}
			for _, m := range got.Nodes {
				keys[m.Key] = true
			}
			if len(keys) != len(want) {
				t.Fatalf("%s at depth %d: %d nodes, want %d", n.Key, depth, len(keys), len(want))
			}
			for k := range want {
				if !keys[k] {
					t.Fatalf("%s at depth %d lacks %s", n.Key, depth, k)
				}
			}
			for _, e := range got.Edges {
				if !keys[e.Source] || !keys[e.Target] {
					t.Fatalf("edge %s-%s leaves the ring", e.Source, e.Target)
				}
			}
			checked++
		}
	}
	if checked < 8 {
		t.Fatalf("only %d rings checked", checked)
	}
	if scrooge, _ := a.Graphs.Within(ctx, v.ID, "scrooge", 1); len(scrooge.Nodes) == 0 || scrooge.Nodes[0].Description == "" {
		t.Fatalf("no description: %+v", scrooge.Nodes)
	}
	if none, err := a.Graphs.Within(ctx, v.ID, "nobody", 1); err != nil || len(none.Nodes) != 0 {
		t.Fatalf("an unknown key: %v, %v", none, err)
	}
}

// A node's panel shows its properties bounded: long text cut, and past
// maxShownProperties the rest counted.
func TestShownProperties(t *testing.T) {
	props := map[string]any{"long": strings.Repeat("x", 3*maxShownValue), "n": 3}
	for i := range maxShownProperties + 10 {
		props[fmt.Sprintf("p%04d", i)] = "v"
	}
	got := shownProperties(props)
	if len(got) != maxShownProperties+1 || !strings.Contains(fmt.Sprint(got["…"]), "12 more properties") {
		t.Fatalf("%d shown, … = %v", len(got), got["…"])
	}
	if s, _ := got["long"].(string); len(s) > maxShownValue+4 {
		t.Fatalf("a long value shown at %d bytes", len(s))
	}
	if shownProperties(nil) != nil {
		t.Fatal("nil properties became some")
	}
}
