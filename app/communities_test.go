package app

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/curate"
)

// TestCommunities_StoredWithTheVersion: a run's final job stores the
// version's communities, an edit stores its new version's, and what is
// listed is what was stored.
func TestCommunities_StoredWithTheVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, st, d := testApp(t, "marley.txt", "Marley was dead. Scrooge signed it. Scrooge and Marley were partners in London. Bob Cratchit worked for Scrooge.")
	v, g := mustRun(t, a, RunRequest{Extraction: "m", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}})
	data, ok, err := st.Communities(ctx, v.ID)
	if err != nil || !ok {
		t.Fatalf("no communities stored after the run (%v)", err)
	}
	var stored community.Result
	if err := json.Unmarshal([]byte(data), &stored); err != nil || stored.Levels == 0 {
		t.Fatalf("stored %q (%v)", data, err)
	}
	if want := community.Detect(g, community.Options{}); len(want.Communities) != len(stored.Communities) {
		t.Fatalf("stored %d communities, the graph has %d", len(stored.Communities), len(want.Communities))
	}
	list, err := a.Communities.List(ctx, v, 0)
	if err != nil || len(list.Communities) != len(stored.Level(0)) {
		t.Fatalf("listed %d, stored %d at level 0 (%v)", len(list.Communities), len(stored.Level(0)), err)
	}
	if v, err = st.Version(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	nv, err := a.Curation.Edit(ctx, v, []curate.Edit{{Op: curate.OpDeleteNode, Key: g.Nodes[0].Key}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Communities(ctx, nv.ID); err != nil || !ok {
		t.Fatalf("no communities stored with the edited version (%v)", err)
	}
}

// Communities and the members of communities not stored read the whole
// graph: heavy requests, refused as busy while the gate is full, answered
// once a slot frees.
func TestCommunities_HeavyRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, d := testApp(t, "marley.txt", "Marley was dead. Scrooge and Marley were partners in London. Bob Cratchit worked for Scrooge.")
	v, _ := mustRun(t, a, RunRequest{Extraction: "m", Config: extract.DefaultConfig(), DocumentIDs: []int{d.ID}})
	a.heavy = NewGate(1, 0, time.Millisecond)
	a.Communities.heavy = a.heavy
	_, release, err := a.Heavy().Enter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Communities.List(ctx, v, 0); !IsBusy(err) {
		t.Fatalf("communities with the gate full: %v", err)
	}
	release()
	if out, err := a.Communities.List(ctx, v, 0); err != nil || out.Version != v.Label() {
		t.Fatalf("communities: %+v, %v", out, err)
	}
}
