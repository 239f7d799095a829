package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// cmdImport stores a graph file as a new version of the named extraction.
func cmdImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("import", stderr)
	format := fs.String("format", "", "graph format: json, graphml or csv (default: from the file's extension; csv for a folder)")
	asJSON := fs.Bool("json", false, "print the new version as JSON")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return errors.New("usage: kgstudio import NAME FILE|FOLDER [--format json|graphml|csv]")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	info, err := os.Stat(rest[1])
	if err != nil {
		return extract.Errorf(extract.KindInvalid, "import: %v", err)
	}
	if info.IsDir() && *format != "" && *format != "csv" {
		return extract.Errorf(extract.KindInvalid, "import: %s is a folder: only a neo4j CSV export (--format csv) or KAG's nodes.json and edges.json are read from one", rest[1])
	}
	var data []byte
	if !info.IsDir() {
		if data, err = os.ReadFile(rest[1]); err != nil {
			return extract.Errorf(extract.KindInvalid, "import: %v", err)
		}
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	var v record.Version
	if info.IsDir() {
		v, err = a.Curation.ImportGraphDir(ctx, rest[0], rest[1])
	} else {
		v, err = a.Curation.ImportGraph(ctx, rest[0], rest[1], data, *format)
	}
	if err != nil {
		return err
	}
	storeIndexes(ctx, a, v, *asJSON, stderr)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(app.VersionJSONOf(v))
	}
	fmt.Fprintf(stdout, "%s: %d nodes, %d edges (%s)\n", v.Label(), v.Nodes, v.Edges, v.Note)
	if v.Number > 1 {
		fmt.Fprintf(stderr, "note: %s already had versions; this import is its version %d (compare it with %s@%d)\n", v.Extraction, v.Number, v.Extraction, v.Number-1)
	}
	return nil
}
