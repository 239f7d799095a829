package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/export"
)

// A run with chunk nodes holds KAG's chunk layer: a Chunk node for each
// chunk, the one nothing was extracted from too, with its text, and a
// source edge from each node to the chunks it was extracted from; the
// final job run again adds nothing.
func TestApp_ChunkNodes(t *testing.T) {
	t.Parallel()
	text := "Ada Lovelace worked with Charles Babbage in London on the Analytical Engine.\n\n" +
		strings.Repeat("and then it rained and rained over the quiet fields. ", 4)
	a, st, d := testApp(t, "ada.txt", text)
	cfg := extract.DefaultConfig()
	cfg.Embedder, cfg.ChunkSize, cfg.Overlap, cfg.ChunkNodes = extract.EmbedderOffline, 120, 0, true
	v, g := mustRun(t, a, RunRequest{Extraction: "layer", Config: cfg, DocumentIDs: []int{d.ID}})
	chunks, err := a.Versions.AllChunks(context.Background(), v)
	if err != nil || len(chunks) < 2 {
		t.Fatalf("%d chunks, %v", len(chunks), err)
	}
	var layer []string
	content := map[string]any{}
	for _, n := range g.Nodes {
		if n.Type == export.ChunkType {
			layer = append(layer, n.Key)
			content[n.Key] = n.Properties["content"]
		}
	}
	slices.Sort(layer)
	var want []string
	for _, c := range chunks {
		want = append(want, export.ChunkKey(c.DocumentID, c.Index))
	}
	slices.Sort(want)
	if !slices.Equal(layer, want) {
		t.Fatalf("chunk nodes %q; want one per chunk %q", layer, want)
	}
	last := export.ChunkKey(d.ID, chunks[len(chunks)-1].Index)
	if content[last] != chunks[len(chunks)-1].Text {
		t.Errorf("the last chunk's node holds %q", content[last])
	}
	sources := map[string]bool{}
	for _, e := range g.Edges {
		if e.Label == export.SourceLabel {
			sources[e.Source+" "+e.Target] = true
		}
	}
	ada := ""
	for _, n := range g.Nodes {
		if n.Name == "Ada Lovelace" {
			ada = n.Key
		}
	}
	if !sources[ada+" "+export.ChunkKey(d.ID, 0)] {
		t.Errorf("no source edge from %s to chunk 0: %v", ada, sources)
	}
	for s := range sources {
		if strings.HasSuffix(s, " "+last) {
			t.Errorf("a source edge to the chunk nothing was extracted from: %s", s)
		}
	}
	cur, err := st.Version(context.Background(), v.ID)
	if err != nil || !strings.Contains(cur.Note, fmt.Sprintf("chunk layer: %d chunk nodes", len(chunks))) {
		t.Errorf("note %q, %v", cur.Note, err)
	}
	if err := a.Runs.pipe.addChunkLayer(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	again, _ := st.LoadGraph(context.Background(), v.ID, false)
	if len(again.Nodes) != len(g.Nodes) || len(again.Edges) != len(g.Edges) {
		t.Errorf("run again: %d nodes, %d edges; had %d, %d", len(again.Nodes), len(again.Edges), len(g.Nodes), len(g.Edges))
	}
}
