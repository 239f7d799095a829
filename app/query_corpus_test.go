package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
	"github.com/kgstudio/kgstudio/store"
)

// A finished version's lexical, community and walk indexes and its graph
// are stored with its first question; a new app (a restart, another process) reads them and
// answers every mode exactly as the one that built them; a damaged stored
// index is built again and stored again whole.
func TestApp_LexicalIndexStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	text := "Marley was dead. Scrooge signed the register of his burial. Scrooge and Marley were partners in a counting-house in London. " +
		"Bob Cratchit was Scrooge's clerk. Fred, Scrooge's nephew, invited him to dinner in London. Belle was engaged to Scrooge."
	a, st, d := testApp(t, "carol.txt", text)
	v := runConfig(t, a, st, "carol", extract.DefaultConfig(), d.ID)
	answers := func(app *App) map[query.Mode]string {
		t.Helper()
		out := map[query.Mode]string{}
		for _, mode := range query.Modes {
			res, err := app.Queries.Ask(ctx, v, QueryInput{Question: "Who was Scrooge's partner in London?", Mode: mode, RetrievalOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			out[mode] = string(b)
		}
		return out
	}
	built := answers(a)
	stamp := lexicalStamp(v)
	lex, ok, err := st.VersionIndex(ctx, v.ID, store.IndexLexical, stamp)
	if err != nil || !ok || len(lex) == 0 {
		t.Fatalf("the lexical index was not stored (%t, %v)", ok, err)
	}
	_, sum, ok := a.Communities.storedCommunitiesSum(ctx, v)
	if !ok {
		t.Fatal("the run stored no communities")
	}
	if comm, ok, err := st.VersionIndex(ctx, v.ID, store.IndexCommunities, stamp+" "+sum); err != nil || !ok || len(comm) == 0 {
		t.Fatalf("the community index was not stored (%t, %v)", ok, err)
	}
	fresh := answers(newApp(st, a.log, Providers{Embedder: extract.EmbedderOffline}))
	for mode, want := range built {
		if fresh[mode] != want {
			t.Fatalf("%s after a restart:\n%s\nwant\n%s", mode, fresh[mode], want)
		}
	}
	gstamp := graphStamp(v, query.GraphProps)
	if g, ok, err := st.VersionIndex(ctx, v.ID, store.IndexGraph, gstamp); err != nil || !ok || len(g) == 0 {
		t.Fatalf("the graph was not stored (%t, %v)", ok, err)
	}
	if w, ok, err := st.VersionIndex(ctx, v.ID, store.IndexWalk, stamp); err != nil || !ok || len(w) == 0 {
		t.Fatalf("the walk graph was not stored (%t, %v)", ok, err)
	}
	for _, part := range []store.IndexPart{store.IndexLexical, store.IndexCommunities, store.IndexGraph, store.IndexWalk} {
		s := stamp
		switch part {
		case store.IndexCommunities:
			s += " " + sum
		case store.IndexGraph:
			s = gstamp
		}
		data, _, _ := st.VersionIndex(ctx, v.ID, part, s)
		if err := st.SaveVersionIndex(ctx, v.ID, part, s, data[:len(data)/2]); err != nil {
			t.Fatal(err)
		}
		again := answers(newApp(st, a.log, Providers{Embedder: extract.EmbedderOffline}))
		for mode, want := range built {
			if again[mode] != want {
				t.Fatalf("%s from a damaged %s index:\n%s\nwant\n%s", mode, part, again[mode], want)
			}
		}
		if stored, _, _ := st.VersionIndex(ctx, v.ID, part, s); len(stored) != len(data) {
			t.Fatalf("the damaged %s index was stored again with %d bytes, want %d", part, len(stored), len(data))
		}
	}
}

// A follow-up that refers back and names nothing ("When was it built?")
// is searched with the question before it; one that names something of
// its own, or comes first, is read on its own.
func TestQueries_FollowUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, st, d := testApp(t, "engine.txt", "The Analytical Engine was designed by Charles Babbage in London. It was never finished; a part of it was built in 1910 by his son.")
	e := addDoc(t, st, "tower.txt", "The Eiffel Tower was built in 1889 in Paris. It was built by Gustave Eiffel's company.")
	v := runConfig(t, a, st, "machines", extract.DefaultConfig(), d.ID, e.ID)
	history := []llm.Message{{Role: "user", Content: "What did Charles Babbage design?"}, {Role: "assistant", Content: "The Analytical Engine."}}
	top := func(q string, h []llm.Message) (QueryResult, string) {
		t.Helper()
		res, err := a.Queries.Ask(ctx, v, QueryInput{Question: q, Mode: "mix", History: h, RetrievalOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Chunks) == 0 {
			t.Fatalf("%q: no passage", q)
		}
		return res, res.Chunks[0].Document
	}
	alone, first := top("When was it built?", nil)
	if first != "tower.txt" {
		t.Fatalf("alone, %s ranks first: the texts no longer tell whether the history is read", first)
	}
	if alone.FollowUpOf != "" {
		t.Fatalf("a first question read as a follow-up of %q", alone.FollowUpOf)
	}
	res, doc := top("When was it built?", history)
	if res.FollowUpOf != history[0].Content || doc != "engine.txt" {
		t.Fatalf("follow-up of %q ranks %s first (alone: %s)", res.FollowUpOf, doc, first)
	}
	if res, _ := top("When was the Eiffel Tower built?", history); res.FollowUpOf != "" {
		t.Fatalf("a question naming its own subject read as a follow-up of %q", res.FollowUpOf)
	}
}

// A person named in a triples CSV and in the run's text is one node, of
// the text's type: a triple's ends no table defines are keyed by name.
func TestApp_TriplesJoinTheText(t *testing.T) {
	t.Parallel()
	a, st, d := testApp(t, "bio.txt", "Marie Curie was born in Warsaw. Pierre Curie married Marie Curie in Paris.")
	csv := addDoc(t, st, "facts.csv", "subject,predicate,object\nMarie Curie,award received,Nobel Prize in Physics\nPierre Curie,spouse,Marie Curie\n")
	v := runConfig(t, a, st, "curies", extract.DefaultConfig(), d.ID, csv.ID)
	g, err := st.LoadGraph(context.Background(), v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string][]string{}
	for _, n := range g.Nodes {
		named[n.Name] = append(named[n.Name], n.Key+" "+n.Type)
	}
	for _, who := range []string{"Marie Curie", "Pierre Curie"} {
		if len(named[who]) != 1 || !strings.HasSuffix(named[who][0], " Person") {
			t.Errorf("%s: %v, want one Person node", who, named[who])
		}
	}
	if len(named["Nobel Prize in Physics"]) != 1 {
		t.Errorf("the triple's object: %v", named["Nobel Prize in Physics"])
	}
}

// A question nothing in the graph matches gets LightRAG's fail response
// in its own language, with a model configured or not, and the model is
// not asked.
func TestQueries_FailResponse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: `{"high_level_keywords": [], "low_level_keywords": []}`}}})
	a, st := llmTestApp(t, srv, 2)
	d := addDoc(t, st, "marley.txt", "Marley was dead, to begin with. Scrooge signed the register of his burial.")
	v := runConfig(t, a, st, "carol", extract.DefaultConfig(), d.ID)
	before := srv.Count()
	res, err := a.Queries.Ask(ctx, v, QueryInput{Question: "Xylophones quarks zeppelins?", Provider: extract.ProviderOpenAI, Keywords: KeywordsOffline, Mode: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer == nil || !strings.HasSuffix(res.Answer.Text, "[no-context]") || srv.Count() != before {
		t.Fatalf("answer %+v, %d model calls", res.Answer, srv.Count()-before)
	}
	zh, err := a.Queries.Ask(ctx, v, QueryInput{Question: "量子计算机是什么？", Provider: extract.ProviderNone})
	if err != nil {
		t.Fatal(err)
	}
	if zh.Answer == nil || !strings.Contains(zh.Answer.Text, "无法回答") {
		t.Fatalf("a Chinese question's fail response: %+v", zh.Answer)
	}
}

// A serving worker (serve, kgstudio worker) writes a finished version's
// query indexes with its run, before any question; a foreground run
// leaves them to the first question.
func TestApp_ServingWorkerStoresIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	text := "Marley was dead. Scrooge and Marley were partners in a counting-house in London. Bob Cratchit was Scrooge's clerk."
	stored := func(t *testing.T, st *store.Store, v record.Version) bool {
		t.Helper()
		v, err := st.Version(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := st.VersionIndex(ctx, v.ID, store.IndexLexical, lexicalStamp(v))
		if err != nil {
			t.Fatal(err)
		}
		_, walk, err := st.VersionIndex(ctx, v.ID, store.IndexWalk, lexicalStamp(v))
		if err != nil {
			t.Fatal(err)
		}
		return ok && walk
	}
	t.Run("Foreground", func(t *testing.T) {
		a, st, d := testApp(t, "carol.txt", text)
		v := runConfig(t, a, st, "carol", extract.DefaultConfig(), d.ID)
		if stored(t, st, v) {
			t.Fatal("a foreground run stored the query indexes: its command waited for them")
		}
	})
	t.Run("ServingWorker", func(t *testing.T) {
		a, st, d := testApp(t, "carol.txt", text)
		cfg := extract.DefaultConfig()
		if err := a.Runs.Prepare(ctx, &cfg, ""); err != nil {
			t.Fatal(err)
		}
		v, err := st.NewVersion(ctx, "carol", cfg, []int{d.ID}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Runs.StartWorker(ctx, WorkerOptions{Concurrency: 2}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Runs.Shutdown(context.Background()) })
		if _, err := a.Runs.Enqueue(ctx, v); err != nil {
			t.Fatal(err)
		}
		testkit.Eventually(t, 60*time.Second, func() error {
			if !stored(t, st, v) {
				return errors.New("the query indexes are not stored yet")
			}
			return nil
		})
	})
}
