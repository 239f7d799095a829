package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/export"
	"github.com/kgstudio/kgstudio/store"
)

// ImportGraph stores a graph file (this program's JSON export or GraphML)
// as a new, done version of the named extraction. format is "json",
// "graphml" or "" for the file name's extension. The version's document
// is a short text naming the file and its size, since the graph has no
// source text here; mentions in the file are dropped. A file that is not
// a graph of the format is invalid.
func (a *App) ImportGraph(ctx context.Context, name, fileName string, data []byte, format string) (store.Version, error) {
	if format == "" {
		format = export.FormatOf(fileName)
	}
	if format == "" {
		return store.Version{}, extract.Errorf(extract.KindInvalid, "%s: name the graph format with --format json|graphml (the extension says neither)", filepath.Base(fileName))
	}
	g, err := export.Read(data, format)
	if err != nil {
		return store.Version{}, extract.Errorf(extract.KindOf(err), "%s: %s", filepath.Base(fileName), extract.MessageOf(err))
	}
	text := fmt.Sprintf("Graph imported from %s (%s): %d nodes, %d edges.\n", filepath.Base(fileName), format, len(g.Nodes), len(g.Edges))
	doc, err := extract.ReadDocument(filepath.Base(fileName)+" (imported graph).txt", []byte(text), extract.DefaultMaxBytes)
	if err != nil {
		return store.Version{}, err
	}
	if doc, _, err = a.store.AddDocument(ctx, doc); err != nil {
		return store.Version{}, err
	}
	cfg := extract.DefaultConfig()
	note := fmt.Sprintf("imported from %s (%s)", filepath.Base(fileName), format)
	v, err := a.store.SaveGraphVersion(ctx, name, cfg, []int{doc.ID}, note, 0, g)
	if err != nil {
		return store.Version{}, err
	}
	a.log.Info("graph imported", "version_id", v.ID, "format", format, "nodes", v.Nodes, "edges", v.Edges)
	return v, nil
}
