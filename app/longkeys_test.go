package app

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// A CSV whose names and predicates are longer than an index entry may be
// (4,000 characters; PostgreSQL's btree limit is 2,704 bytes) finishes on
// both databases, the long keys clipped the same way, distinct ones kept
// apart.
func TestStore_LongKeys(t *testing.T) {
	long := noise(4000, 1)
	longer := long + " the younger"
	label := strings.ReplaceAll(noise(4000, 2), " ", "_")
	backends(t, Providers{Concurrency: 2, Prices: DefaultPrices(), Embedder: extract.EmbedderOffline}, func(t *testing.T, a *App, s *store.Store) {
		ctx := context.Background()
		var ids []int
		for _, d := range []struct{ name, text string }{
			{"People.csv", "id,name\n1," + long + "\n2," + longer + "\n3,Jacob Marley\n"},
			{"facts.csv", "S,P,O\n" + strings.ReplaceAll(long, " ", "_") + "," + label + ",Jacob_Marley\n"},
		} {
			doc, err := extract.ReadDocument(d.name, []byte(d.text), extract.DefaultMaxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if doc, _, err = s.AddDocument(ctx, doc); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, doc.ID)
		}
		cfg := extract.DefaultConfig()
		if err := a.Runs.Prepare(ctx, &cfg, ""); err != nil {
			t.Fatal(err)
		}
		v, err := s.NewVersion(ctx, "long", cfg, ids, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Runs.Run(ctx, v, nil); err != nil {
			t.Fatalf("run: %v", err)
		}
		if v, err = s.Version(ctx, v.ID); err != nil || v.Status != "done" {
			t.Fatalf("version %s (%s), %v", v.Status, v.Error, err)
		}
		g, err := s.LoadGraph(ctx, v.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		var longNames int
		for _, n := range g.Nodes {
			if len(n.Key) > store.MaxIndexedBytes {
				t.Errorf("node key of %d bytes stored", len(n.Key))
			}
			keys[n.Key] = true
			if len(n.Name) >= 4000 {
				longNames++
			}
		}
		if longNames < 2 {
			t.Errorf("%d nodes keep their whole long name, want the two people", longNames)
		}
		if len(g.Nodes) < 3 {
			t.Fatalf("%d nodes, want the two long names kept apart and Marley", len(g.Nodes))
		}
		var clipped int
		for _, e := range g.Edges {
			if len(e.Label) > store.MaxIndexedBytes || len(e.Source) > store.MaxIndexedBytes {
				t.Errorf("edge part of %d/%d bytes stored", len(e.Source), len(e.Label))
			}
			if !keys[e.Source] || !keys[e.Target] {
				t.Errorf("edge %q -> %q names a node that is not stored", e.Source[:20], e.Target)
			}
			if strings.Contains(e.Label, "#") {
				clipped++
			}
		}
		if clipped != 1 {
			t.Errorf("%d clipped edge labels, want 1 (edges %d)", clipped, len(g.Edges))
		}
	})
}

// noise returns n bytes of words that do not compress (PostgreSQL compresses
// index entries, so a repeated phrase would fit its limit).
func noise(n int, seed uint32) string {
	var b strings.Builder
	x := seed
	for i := 0; b.Len() < n; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		if i%7 == 6 {
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(byte('a' + x%26))
	}
	return "X" + b.String()[1:n]
}
