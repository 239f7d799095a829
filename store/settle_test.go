package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// settleChunks is a run's chunk results whose merge depends on the order:
// every chunk names the same hub with its own description, and links it
// to a node of its own and to the next chunk's.
func settleChunks(doc, n int) []extract.ChunkResult {
	out := make([]extract.ChunkResult, n)
	for k := range out {
		own := fmt.Sprintf("node-%03d", k)
		next := fmt.Sprintf("node-%03d", k+1)
		out[k] = extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: doc, Index: k}, Graph: extract.Graph{
			Nodes: []extract.Node{
				{Key: "hub", Name: "Hub", Type: "T", Description: fmt.Sprintf("Said in chunk %d.", k),
					Mentions: []extract.Mention{{DocumentID: doc, ChunkIndex: k, Start: 0, End: 3, Text: "Hub"}}},
				{Key: own, Name: own, Type: "T", Description: fmt.Sprintf("Own %d.", k)},
				{Key: next, Name: next, Type: "T", Description: fmt.Sprintf("Next of %d.", k)},
			},
			Edges: []extract.Edge{
				{Source: "hub", Target: own, Label: "has", Weight: 1, Description: fmt.Sprintf("Chunk %d.", k)},
				{Source: own, Target: next, Label: "next", Weight: 1},
			},
		}}
	}
	return out
}

// TestStore_SettleChunkOutOfOrder settles a run's chunks in a shuffled
// order, each merged when it is next or staged until it is (drained by
// the settle that makes it next), and finds the graph, counts and chunk
// runs the in-order sink writes; a chunk settled twice adds nothing, a
// chunk failed for good stops the merge until it is settled done, and a
// settle of a canceled version is refused. On both databases.
func TestStore_SettleChunkOutOfOrder(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const n = 24
		want := mustVersion(t, s, "in-order")
		doc := want.DocumentIDs[0]
		chunks := settleChunks(doc, n)
		sink := s.Sink(want.ID, 5)
		for _, c := range chunks {
			if err := sink.WriteChunk(ctx, c); err != nil {
				t.Fatal(err)
			}
		}

		got, err := s.NewVersion(ctx, "settled", extract.DefaultConfig(), []int{doc}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.QueueVersion(ctx, got.ID, n, 0); err != nil {
			t.Fatal(err)
		}
		// Jobs of one to three consecutive chunks, settled in a shuffled
		// order; chunk 5 fails for good first, so nothing after it
		// merges.
		failed := 5
		jobs := settleJobs(n, failed)
		if _, err := s.SettleChunks(ctx, got.ID, 5, n, []store.ChunkOutcome{{Ref: chunks[failed].Chunk, Seq: failed, Attempts: 4,
			Error: extract.ChunkError{Status: "unavailable", Message: "HTTP 500: down"}, Final: true}}, nil); err != nil {
			t.Fatal(err)
		}
		// The failure reads back as written: its kind apart, a message
		// holding ": " whole.
		if fc, err := s.FailedChunks(ctx, got.ID); err != nil || len(fc) != 1 || fc[0].Status != "unavailable" || fc[0].Message != "HTTP 500: down" {
			t.Fatalf("failed chunks %+v (%v)", fc, err)
		}
		settleJobsInTurn(t, ctx, s, got.ID, n, chunks, jobs)
		if merged, _ := s.MergedChunks(ctx, got.ID); merged != failed {
			t.Fatalf("%d chunks merged past a failed one; want the %d before it", merged, failed)
		}
		if fc, err := s.FailedChunks(ctx, got.ID); err != nil || len(fc) != 1 || fc[0].Index != failed || fc[0].Status != "unavailable" {
			t.Fatalf("failed chunks %+v (%v)", fc, err)
		}
		// Resumed: the failed chunk is asked again and settles done; the
		// chunks after it merge in order.
		if _, err := s.ReopenChunks(ctx, got.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.QueueVersion(ctx, got.ID, n, n-1); err != nil {
			t.Fatal(err)
		}
		res := chunks[failed]
		st, err := s.SettleChunks(ctx, got.ID, 5, 1, []store.ChunkOutcome{{Ref: res.Chunk, Seq: failed, Attempts: 1, Result: &res}}, nil)
		if err != nil || !st.All || !st.Drain {
			t.Fatalf("settle of the failed chunk asked again: %+v (%v)", st, err)
		}
		if _, err := s.DrainChunks(ctx, got.ID, 5); err != nil {
			t.Fatal(err)
		}

		checkSettledAsInOrder(t, ctx, s, want.ID, got.ID, n)

		// A canceled version takes no more chunks.
		if err := s.FinishVersion(ctx, got.ID, record.StatusCanceled, 0, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SettleChunks(ctx, got.ID, 5, n, []store.ChunkOutcome{{Ref: res.Chunk, Seq: 0, Result: &res}}, nil); err != store.ErrNotActive {
			t.Errorf("settle of a canceled version: %v", err)
		}
	})
}

// settleJobs returns n chunks' jobs of one to three consecutive chunks, none across failed, shuffled.
func settleJobs(n, failed int) [][]int {
	var jobs [][]int
	for k := 0; k < n; {
		size := 1 + k%3
		if k < failed && k+size > failed {
			size = failed - k
		}
		var job []int
		for i := k; i < min(k+size, n); i++ {
			if i != failed {
				job = append(job, i)
			}
		}
		if len(job) > 0 {
			jobs = append(jobs, job)
		}
		k += size
	}
	r := rand.New(rand.NewPCG(3, 4))
	r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	return jobs
}

// settleJobsInTurn settles the jobs in turn, draining when told, some twice, and checks the last saw all.
func settleJobsInTurn(t *testing.T, ctx context.Context, s *store.Store, id, n int, chunks []extract.ChunkResult, jobs [][]int) {
	t.Helper()
	all := false
	var st store.Settled
	for i, job := range jobs {
		var outs []store.ChunkOutcome
		for _, k := range job {
			outs = append(outs, store.ChunkOutcome{Ref: chunks[k].Chunk, Seq: k, Attempts: 1, Result: &chunks[k]})
		}
		var err error
		st, err = s.SettleChunks(ctx, id, 5, n, outs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Drain {
			if _, err := s.DrainChunks(ctx, id, 5); err != nil {
				t.Fatal(err)
			}
		}
		// Settling the same chunks again changes nothing.
		if i%4 == 0 {
			if _, err := s.SettleChunks(ctx, id, 5, n, outs, nil); err != nil {
				t.Fatal(err)
			}
		}
		all = st.All
	}
	if !all {
		t.Error("the last settle did not see every chunk settled")
	}
}

// checkSettledAsInOrder checks that version got has the graph, counts and n chunk runs of version want.
func checkSettledAsInOrder(t *testing.T, ctx context.Context, s *store.Store, want, got, n int) {
	t.Helper()
	wg, err := s.LoadGraph(ctx, want, true)
	if err != nil {
		t.Fatal(err)
	}
	gg, err := s.LoadGraph(ctx, got, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(wg, gg) {
		t.Errorf("graphs differ:\nin order: %+v\nsettled:  %+v", wg.Nodes[:3], gg.Nodes[:3])
	}
	wv, _ := s.Version(ctx, want)
	gv, _ := s.Version(ctx, got)
	if wv.Nodes != gv.Nodes || wv.Edges != gv.Edges || gv.ChunksDone != n || gv.MergeNext != n {
		t.Errorf("in order %d nodes, %d edges; settled %d nodes, %d edges, %d chunks done, merge_next %d",
			wv.Nodes, wv.Edges, gv.Nodes, gv.Edges, gv.ChunksDone, gv.MergeNext)
	}
	if merged, _ := s.MergedChunks(ctx, got); merged != n {
		t.Errorf("%d chunk runs, want %d", merged, n)
	}
}

// TestStore_NumberChunks: chunks staged without their place in the run's
// order (rows of an earlier release) are numbered by NumberChunks and then
// merged in order after the first, as the in-order sink writes them.
func TestStore_NumberChunks(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const n = 6
		want := mustVersion(t, s, "in-order")
		doc := want.DocumentIDs[0]
		chunks := settleChunks(doc, n)
		for _, c := range chunks {
			if err := s.Sink(want.ID, 5).WriteChunk(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.NewVersion(ctx, "numbered", extract.DefaultConfig(), []int{doc}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.QueueVersion(ctx, got.ID, n, 0); err != nil {
			t.Fatal(err)
		}
		for k := n - 1; k >= 1; k-- {
			if _, err := s.SettleChunks(ctx, got.ID, 5, n, []store.ChunkOutcome{{Ref: chunks[k].Chunk, Seq: 99, Result: &chunks[k]}}, nil); err != nil {
				t.Fatal(err)
			}
		}
		refs := make([]extract.ChunkRef, n)
		for k := range refs {
			refs[k] = chunks[k].Chunk
		}
		if err := s.NumberChunks(ctx, got.ID, refs); err != nil {
			t.Fatal(err)
		}
		st, err := s.SettleChunks(ctx, got.ID, 5, n, []store.ChunkOutcome{{Ref: chunks[0].Chunk, Seq: 0, Result: &chunks[0]}}, nil)
		if err != nil || !st.All || !st.Drain {
			t.Fatalf("settle of the first chunk: %+v (%v)", st, err)
		}
		if merged, err := s.DrainChunks(ctx, got.ID, 5); err != nil || merged != n-1 {
			t.Fatalf("drained %d chunks (%v), want %d", merged, err, n-1)
		}
		wg, _ := s.LoadGraph(ctx, want.ID, true)
		gg, _ := s.LoadGraph(ctx, got.ID, true)
		if !reflect.DeepEqual(wg, gg) {
			t.Error("the numbered chunks merged into another graph than the in-order sink's")
		}
	})
}
