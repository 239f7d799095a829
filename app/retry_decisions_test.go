package app

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// A retry changes only what failed: a merge decided after the version was
// made is not applied to the retry of a version that applied none, while
// a new run of the extraction applies it.
func TestRetry_AppliesNoNewDecisions(t *testing.T) {
	t.Parallel()
	good := func(a, b string) string {
		return "entity<|#|>" + a + "<|#|>person<|#|>" + a + ".\nentity<|#|>" + b + "<|#|>person<|#|>" + b + ".\n" +
			"entity<|#|>Ebenezer Scrooge<|#|>person<|#|>The same miser.\n" +
			"relation<|#|>" + a + "<|#|>" + b + "<|#|>partner<|#|>Partners.\n<|COMPLETE|>"
	}
	chunkA := "Jacob Marley was the partner of Scrooge." + strings.Repeat(" z", 60)
	chunkB := "Bob Cratchit was the clerk of Ebenezer Scrooge." + strings.Repeat(" y", 60)
	srv := fakellm.New(t, fakellm.Options{Queue: []string{good("Jacob Marley", "Scrooge"), "Sorry, I cannot help.", good("Bob Cratchit", "Scrooge")}})
	a := sqliteApp(t, Providers{OpenAIBaseURL: srv.OpenAIURL(), OpenAIModel: "local", Concurrency: 1}, nil)
	ctx := context.Background()
	v := newTupleRun(t, a, chunkA+"\n\n"+chunkB, len(chunkA)+10)
	if err := a.Runs.Run(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	v, err := a.store.Version(ctx, v.ID)
	if err != nil || v.ParseFailures != 1 {
		t.Fatalf("first run: %d parse failures, %v", v.ParseFailures, err)
	}
	// Scrooge and Ebenezer Scrooge are one: decided on the first version.
	if _, err := a.Curation.Merge(ctx, v, "Scrooge", []string{"Ebenezer Scrooge"}); err != nil {
		t.Fatal(err)
	}
	nv, err := a.Runs.Retry(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Runs.Run(ctx, nv, nil); err != nil {
		t.Fatal(err)
	}
	nv, _ = a.store.Version(ctx, nv.ID)
	g, err := a.store.LoadGraph(ctx, nv.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, n := range g.Nodes {
		names[n.Name] = true
	}
	if nv.MergesApplied != 0 || !names["Ebenezer Scrooge"] || !names["Bob Cratchit"] || !nv.Config.NoDecisions {
		t.Errorf("retry: %d merges applied, nodes %v, no_decisions %t", nv.MergesApplied, names, nv.Config.NoDecisions)
	}
	// A new run (every answer from the cache) applies the decision.
	again := newTupleRun(t, a, chunkA+"\n\n"+chunkB, len(chunkA)+10)
	if err := a.Runs.Run(ctx, again, nil); err != nil {
		t.Fatal(err)
	}
	if again, _ = a.store.Version(ctx, again.ID); again.MergesApplied != 1 {
		t.Errorf("a new run applied %d merges, want 1", again.MergesApplied)
	}
}
