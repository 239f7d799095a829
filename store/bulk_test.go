package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/ent/edge"
	"github.com/kgstudio/kgstudio/ent/node"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// TestStore_WriteGraphBulk writes a graph larger than one batch, with
// duplicate keys and awkward text, then replays it with new values: the
// replay adds no rows, every row takes the new values and the graph loads
// back in the order it was written.
func TestStore_WriteGraphBulk(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "bulk.txt", "bulk write test")
		v, err := s.NewVersion(ctx, "bulk", extract.DefaultConfig(), []int{d.ID}, "")
		if err != nil {
			t.Fatal(err)
		}
		const n = 11000 // more than one batch on either database
		build := func(desc string, weight float64) extract.Graph {
			g := synthGraph(n)
			for i := range g.Nodes {
				g.Nodes[i].Description = fmt.Sprintf("%s %d: 'quoted' \"double\" ; -- é 中文", desc, i)
				g.Nodes[i].Mentions = []extract.Mention{{DocumentID: d.ID, ChunkIndex: i % 7, Start: i, End: i + 3, Text: "abc"}}
			}
			g.Nodes[5].Properties = map[string]any{"k": "v"}
			for i := range g.Edges {
				g.Edges[i].Weight = weight
				g.Edges[i].Description = desc
			}
			g.Edges[0].Mentions = []extract.Mention{{DocumentID: d.ID, ChunkIndex: 0, Start: 1, End: 2, Text: "x"}}
			// A duplicate key: the last one wins.
			g.Nodes = append(g.Nodes, extract.Node{Key: "n3", Name: "Node 3", Type: "Place", Description: desc + " last"})
			return g
		}
		if err := s.WriteGraph(ctx, v.ID, build("first", 1)); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteGraph(ctx, v.ID, build("second", 2.5)); err != nil {
			t.Fatal(err)
		}
		g, err := s.LoadGraph(ctx, v.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Nodes) != n || len(g.Edges) != n {
			t.Fatalf("got %d nodes %d edges, want %d each", len(g.Nodes), len(g.Edges), n)
		}
		// A graph loads back in the order it was written.
		for i := 0; i < n; i++ {
			if g.Nodes[i].Key != fmt.Sprintf("n%d", i) || g.Edges[i].Source != fmt.Sprintf("n%d", i) {
				t.Fatalf("order: node %d is %q, edge %d is from %q", i, g.Nodes[i].Key, i, g.Edges[i].Source)
			}
		}
		byKey := map[string]extract.Node{}
		mentions := 0
		for _, nd := range g.Nodes {
			byKey[nd.Key] = nd
			mentions += len(nd.Mentions)
		}
		if mentions != n {
			t.Fatalf("node mentions = %d, want %d (replay must add none)", mentions, n)
		}
		if got := byKey["n3"]; got.Type != "Place" || got.Description != "second last" {
			t.Fatalf("duplicate key: %+v", got)
		}
		if got := byKey["n42"].Description; got != "second 42: 'quoted' \"double\" ; -- é 中文" {
			t.Fatalf("description not replaced: %q", got)
		}
		if byKey["n5"].Properties["k"] != "v" {
			t.Fatalf("properties: %+v", byKey["n5"].Properties)
		}
		for _, e := range g.Edges {
			if e.Weight != 2.5 || e.Description != "second" {
				t.Fatalf("edge not replaced: %+v", e)
			}
		}
		if len(g.Edges[0].Mentions) != 1 {
			t.Fatalf("edge mentions: %+v", g.Edges[0].Mentions)
		}
		v, _ = s.Version(ctx, v.ID)
		if v.Nodes != n || v.Edges != n {
			t.Fatalf("counts %d %d", v.Nodes, v.Edges)
		}
	})
}

// TestStore_SinkMergesStoredEdges checks that a chunk merges into the edges
// earlier chunks stored (weights add up, descriptions join) and that an
// edge new to the version is counted once.
func TestStore_SinkMergesStoredEdges(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "edges.txt", "Alice met Bob. Alice met Bob again. Bob met Carol.")
		v, err := s.NewVersion(ctx, "edges", extract.DefaultConfig(), []int{d.ID}, "")
		if err != nil {
			t.Fatal(err)
		}
		sink := s.Sink(v.ID, 8)
		chunk := func(i int, desc string, edges ...extract.Edge) extract.ChunkResult {
			return extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: d.ID, Index: i}, Graph: extract.Graph{
				Nodes: []extract.Node{{Key: "alice", Name: "Alice", Type: "Person", Description: desc},
					{Key: "bob", Name: "Bob", Type: "Person"}, {Key: "carol", Name: "Carol", Type: "Person"}},
				Edges: edges,
			}}
		}
		met := func(src, tgt, desc string) extract.Edge {
			return extract.Edge{Source: src, Target: tgt, Label: "met", Weight: 1, Description: desc}
		}
		rs := []extract.ChunkResult{
			chunk(0, "Alice met Bob.", met("alice", "bob", "Alice met Bob.")),
			chunk(1, "Alice met Bob again.", met("alice", "bob", "Alice met Bob again."), met("alice", "bob", "Twice.")),
			chunk(2, "", met("bob", "carol", "Bob met Carol."), extract.Edge{Source: "alice", Target: "bob", Label: "knows", Weight: 1}),
		}
		for _, r := range append(rs, rs...) { // replays add nothing
			if err := sink.WriteChunk(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		g, err := s.LoadGraph(ctx, v.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Nodes) != 3 || len(g.Edges) != 3 {
			t.Fatalf("got %d nodes %d edges", len(g.Nodes), len(g.Edges))
		}
		var ab extract.Edge
		for _, e := range g.Edges {
			if e.Source == "alice" && e.Label == "met" {
				ab = e
			}
		}
		if ab.Weight != 3 {
			t.Fatalf("alice met bob weight = %v, want 3: %+v", ab.Weight, ab)
		}
		for _, frag := range []string{"Alice met Bob.", "Alice met Bob again.", "Twice."} {
			if !strings.Contains(ab.Description, frag) {
				t.Fatalf("description %q lacks %q", ab.Description, frag)
			}
		}
		v, _ = s.Version(ctx, v.ID)
		if v.ChunksDone != 3 || v.Nodes != 3 || v.Edges != 3 {
			t.Fatalf("version counters: %+v", v)
		}
	})
}

// TestStore_LargeChunkKeepsForeignKeys writes a chunk large enough for the
// bulk path (on SQLite a connection of its own that stops enforcing
// foreign keys for the transaction): the rows are written, every pooled
// connection enforces foreign keys again afterwards (so deleting the
// version still removes its rows), and a chunk for a version that does not
// exist is refused as not found with nothing written.
func TestStore_LargeChunkKeepsForeignKeys(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "large.txt", "a large chunk")
		v, err := s.NewVersion(ctx, "large", extract.DefaultConfig(), []int{d.ID}, "")
		if err != nil {
			t.Fatal(err)
		}
		g := randomKeyGraph(12000)
		for i := range g.Nodes {
			g.Nodes[i].Mentions = []extract.Mention{{DocumentID: d.ID, ChunkIndex: 0, Start: i, End: i + 1}}
		}
		res := extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: d.ID}, Graph: g}
		if err := s.Sink(v.ID, 8).WriteChunk(ctx, res); err != nil {
			t.Fatal(err)
		}
		if v, _ = s.Version(ctx, v.ID); v.Nodes != 12000 || v.Edges != 12000 {
			t.Fatalf("version holds %d nodes, %d edges; want 12000, 12000", v.Nodes, v.Edges)
		}
		if s.Dialect == "sqlite3" {
			// Hold every connection the pool may open at once, so the
			// one that wrote the chunk is among them.
			db := store.DB(s)
			conns := make([]*sql.Conn, db.Stats().MaxOpenConnections)
			for i := range conns {
				if conns[i], err = db.Conn(ctx); err != nil {
					t.Fatal(err)
				}
				defer conns[i].Close()
				var on int
				if err := conns[i].QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on); err != nil || on != 1 {
					t.Fatalf("connection %d: foreign_keys = %d (%v), want 1", i, on, err)
				}
			}
			for _, c := range conns {
				c.Close()
			}
		}
		missing := v.ID + 1000
		res.Chunk.Index = 1
		err = s.Sink(missing, 8).WriteChunk(ctx, res)
		if extract.KindOf(err) != extract.KindNotFound || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("chunk for a missing version: %v, want not found", err)
		}
		ec := store.EntClient(s)
		if n, err := ec.Node.Query().Where(node.VersionID(missing)).Count(ctx); err != nil || n != 0 {
			t.Fatalf("missing version has %d nodes (%v)", n, err)
		}
		if err := s.FinishVersion(ctx, v.ID, record.StatusDone, 0, ""); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteVersion(ctx, v.ID); err != nil {
			t.Fatal(err)
		}
		for what, q := range map[string]func() (int, error){
			"nodes": func() (int, error) { return ec.Node.Query().Where(node.VersionID(v.ID)).Count(ctx) },
			"edges": func() (int, error) { return ec.Edge.Query().Where(edge.VersionID(v.ID)).Count(ctx) },
		} {
			if n, err := q(); err != nil || n != 0 {
				t.Fatalf("deleted version keeps %d %s (%v)", n, what, err)
			}
		}
	})
}
