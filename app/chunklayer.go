package app

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/extract/export"
	"github.com/kgstudio/kgstudio/extract/record"
)

// addChunkLayer writes KAG's chunk layer into a version's graph when its
// run asks for it (Config.ChunkNodes): a Chunk node per chunk of its
// documents, entities or not, with the chunk's text, and a source edge
// from each node to every chunk it was extracted from (see
// export.ChunkLayer). The final job runs it after every other step that
// writes the graph; running it again adds nothing.
func (pl *pipeline) addChunkLayer(ctx context.Context, v record.Version) error {
	if !v.Config.ChunkNodes {
		return nil
	}
	g, err := pl.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return err
	}
	chunks, err := pl.versions.AllChunks(ctx, v)
	if err != nil {
		return err
	}
	layer := export.ChunkLayer(g, pl.documents.Namer(ctx), chunks)
	if len(layer.Nodes) == 0 && len(layer.Edges) == 0 {
		return nil
	}
	if err := pl.store.WriteGraph(ctx, v.ID, layer); err != nil {
		return err
	}
	return pl.noteOnce(ctx, v.ID, fmt.Sprintf("chunk layer: %d chunk node%s, %d source edge%s", len(layer.Nodes), plural(len(layer.Nodes)), len(layer.Edges), plural(len(layer.Edges))))
}
