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
)

// cmdImport stores a graph file as a new version of the named extraction.
func cmdImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("import", stderr)
	format := fs.String("format", "", "graph format: json or graphml (default: from the file's extension)")
	asJSON := fs.Bool("json", false, "print the new version as JSON")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return errors.New("usage: kgstudio import NAME FILE [--format json|graphml]")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	data, err := os.ReadFile(rest[1])
	if err != nil {
		return extract.Errorf(extract.KindInvalid, "import: %v", err)
	}
	st, err := cfg.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := app.New(st, cfg.logger(stderr), cfg.Providers).ImportGraph(ctx, rest[0], rest[1], data, *format)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(app.VersionJSONOf(v))
	}
	fmt.Fprintf(stdout, "%s: %d nodes, %d edges (%s)\n", v.Label(), v.Nodes, v.Edges, v.Note)
	return nil
}
