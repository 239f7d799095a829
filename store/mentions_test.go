package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// TestSink_MentionsInOrderGiven writes a chunk whose nodes and edges carry
// mentions (some repeated, a node listed twice, one node with more than a
// short run of them, keys in random order) and reads each node's and
// edge's mentions back in the order given, each place once, on both
// databases.
func TestSink_MentionsInOrderGiven(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v := mustVersion(t, s, "mentions")
		doc := v.DocumentIDs[0]
		r := rand.New(rand.NewPCG(7, 8))
		at := func(start int) extract.Mention {
			return extract.Mention{DocumentID: doc, Start: start, End: start + 3, Text: fmt.Sprintf("m%d", start)}
		}
		var g extract.Graph
		for i := 0; i < 40; i++ {
			n := extract.Node{Key: fmt.Sprintf("%08x", r.Uint32()), Name: fmt.Sprint(i), Type: "T"}
			for j := 0; j < 1+i%4; j++ {
				n.Mentions = append(n.Mentions, at(r.IntN(1000)))
			}
			g.Nodes = append(g.Nodes, n)
		}
		// A hub with 100 mentions, every fifth a place it had already.
		hub := &g.Nodes[3]
		for j := 0; j < 100; j++ {
			if j%5 == 4 {
				hub.Mentions = append(hub.Mentions, hub.Mentions[r.IntN(len(hub.Mentions))])
				continue
			}
			hub.Mentions = append(hub.Mentions, at(2000+j))
		}
		// The same node again, with one place it had and one new.
		again := g.Nodes[7]
		again.Mentions = []extract.Mention{g.Nodes[7].Mentions[0], at(5000)}
		g.Nodes = append(g.Nodes, again)
		for i := 0; i < 30; i++ {
			e := extract.Edge{Source: g.Nodes[r.IntN(40)].Key, Target: g.Nodes[r.IntN(40)].Key, Label: fmt.Sprintf("l%d", i), Weight: 1,
				Mentions: []extract.Mention{at(6000 + i), at(6000 + i), at(7000 - i)}}
			g.Edges = append(g.Edges, e)
		}
		if err := s.Sink(v.ID, 0).WriteChunk(ctx, extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: doc}, Graph: g}); err != nil {
			t.Fatal(err)
		}

		// What each key should read back: its mentions in the order given,
		// each place once.
		want := map[string][]extract.Mention{}
		keep := func(key string, ms []extract.Mention) {
			for _, m := range ms {
				if !slices.Contains(want[key], m) {
					want[key] = append(want[key], m)
				}
			}
		}
		for _, n := range g.Nodes {
			keep("node "+n.Key, n.Mentions)
		}
		for _, e := range g.Edges {
			keep("edge "+e.Key(), e.Mentions)
		}
		if n := len(want["node "+hub.Key]); n < 80 {
			t.Fatalf("the hub should keep at least 80 places, the test has %d", n)
		}
		check := func(when string) {
			t.Helper()
			loaded, err := s.LoadGraph(ctx, v.ID, true)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]extract.Mention{}
			for _, n := range loaded.Nodes {
				got["node "+n.Key] = n.Mentions
				one, err := s.NodeMentions(ctx, v.ID, n.Key)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(one, n.Mentions) {
					t.Errorf("%s: node %s: NodeMentions %v, LoadGraph %v", when, n.Key, one, n.Mentions)
				}
			}
			for _, e := range loaded.Edges {
				got["edge "+e.Key()] = e.Mentions
				one, err := s.EdgeByKey(ctx, v.ID, e.Source, e.Label, e.Target)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(one.Mentions, e.Mentions) {
					t.Errorf("%s: edge %s: EdgeByKey %v, LoadGraph %v", when, e.Key(), one.Mentions, e.Mentions)
				}
			}
			if !reflect.DeepEqual(got, want) {
				for k := range want {
					if !reflect.DeepEqual(got[k], want[k]) {
						t.Errorf("%s: %s: got %v\nwant %v", when, k, got[k], want[k])
					}
				}
			}
		}
		check("after the chunk")
		// Writing the graph again into the version (which has rows now)
		// adds only the mentions it does not hold: one new place.
		g.Nodes[5].Mentions = append(g.Nodes[5].Mentions, at(9000))
		keep("node "+g.Nodes[5].Key, []extract.Mention{at(9000)})
		if err := s.WriteGraph(ctx, v.ID, g); err != nil {
			t.Fatal(err)
		}
		check("after writing the graph again")
	})
}
