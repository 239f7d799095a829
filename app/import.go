package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/export"
	"github.com/kgstudio/kgstudio/extract/record"
)

// ImportGraph stores a graph file (this program's JSON export, GraphML,
// or a neo4j CSV export as one file or a zip) as a new, done version of
// the named extraction. format is "json", "graphml", "csv" or "" for the
// file name's extension. No run made the version: it names no documents
// and its config is empty (no strategy, provider or model), so nothing
// suggests an extraction that never ran; mentions in the file are dropped.
// A file that is not a graph of the format is invalid. An import is a
// heavy request (see Gate): when the gate stays full, the error says the
// server is busy (IsBusy).
func (c *Curation) ImportGraph(ctx context.Context, name, fileName string, data []byte, format string) (record.Version, error) {
	ctx, release, err := c.heavy.Enter(ctx)
	if err != nil {
		return record.Version{}, err
	}
	defer release()
	if format == "" {
		format = export.FormatOf(fileName)
	}
	if format == "" {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "%s: its extension names no graph format: give the format (json, graphml or csv)", filepath.Base(fileName))
	}
	g, err := export.Read(data, format)
	if err != nil {
		return record.Version{}, extract.Errorf(extract.KindOf(err), "%s: %s", filepath.Base(fileName), extract.MessageOf(err))
	}
	return c.saveImported(ctx, name, filepath.Base(fileName), format, g)
}

// ImportGraphDir stores the graph in a folder as a new version of the
// named extraction, as ImportGraph does: KAG's domain KG when the folder
// holds nodes.json (and edges.json), else the neo4j CSV export of its
// .csv files (neo4j-admin node and relationship files, or apoc's single
// file). It is a heavy request, as ImportGraph is.
func (c *Curation) ImportGraphDir(ctx context.Context, name, dir string) (record.Version, error) {
	ctx, release, err := c.heavy.Enter(ctx)
	if err != nil {
		return record.Version{}, err
	}
	defer release()
	if nodes, err := os.ReadFile(filepath.Join(dir, "nodes.json")); err == nil {
		edges, err := os.ReadFile(filepath.Join(dir, "edges.json"))
		if err != nil && !os.IsNotExist(err) {
			return record.Version{}, extract.Wrap(extract.KindInvalid, err, "import %s", dir)
		}
		g, err := export.ReadKAG(nodes, edges)
		if err != nil {
			return record.Version{}, extract.Errorf(extract.KindOf(err), "%s: %s", filepath.Base(dir), extract.MessageOf(err))
		}
		return c.saveImported(ctx, name, filepath.Base(dir)+"/", "kag", g)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return record.Version{}, extract.Wrap(extract.KindInvalid, err, "import %s", dir)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".csv") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		names = append(names, e.Name())
	}
	if len(names) == 0 {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "%s: no .csv files in the folder", filepath.Base(dir))
	}
	sort.Strings(names)
	g, err := export.ReadCSVFS(os.DirFS(dir), names)
	if err != nil {
		return record.Version{}, extract.Errorf(extract.KindOf(err), "%s/%s", filepath.Base(dir), extract.MessageOf(err))
	}
	return c.saveImported(ctx, name, filepath.Base(dir)+"/", "csv", g)
}

// saveImported stores an imported graph as a version with no documents and
// an empty config.
func (c *Curation) saveImported(ctx context.Context, name, from, format string, g extract.Graph) (v record.Version, err error) {
	defer func() { c.written(v, err) }()
	note := fmt.Sprintf("imported from %s (%s)", from, format)
	v, err = c.store.SaveGraphVersion(ctx, name, extract.Config{}, nil, note, 0, g)
	if err != nil {
		return record.Version{}, err
	}
	c.communities.keepCommunities(ctx, v, &g)
	c.log.Info("graph imported", "version_id", v.ID, "format", format, "nodes", v.Nodes, "edges", v.Edges)
	return v, nil
}
