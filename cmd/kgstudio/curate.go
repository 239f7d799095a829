package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/curate"
)

// cmdDuplicates lists the likely duplicate node pairs of NAME@V, best
// first, with their names, keys and reasons.
func cmdDuplicates(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("duplicates", stderr)
	asJSON := fs.Bool("json", false, "print the pairs as JSON")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return errors.New("usage: kgstudio duplicates NAME@V [--json]")
	}
	a, v, err := cfg.openVersion(ctx, rest[0], cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	cs, err := a.Curation.Duplicates(ctx, v)
	if err != nil {
		return err
	}
	if *asJSON {
		if cs == nil {
			cs = []curate.Candidate{}
		}
		return json.NewEncoder(stdout).Encode(cs)
	}
	if len(cs) == 0 {
		fmt.Fprintf(stdout, "%s: no duplicate candidates\n", v.Label())
		return nil
	}
	for _, c := range cs {
		var why []string
		for _, r := range c.Reasons {
			why = append(why, r.Detail)
		}
		fmt.Fprintf(stdout, "%.3f  %s [%s]  <-  %s [%s]  (%s)\n", c.Score, c.Keep.Name, c.Keep.Key, c.Drop.Name, c.Drop.Key, strings.Join(why, "; "))
	}
	return nil
}

// cmdMerge folds the DROP nodes of NAME@V into KEEP, as a new version.
func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("merge", stderr)
	asJSON := fs.Bool("json", false, "print the new version as JSON")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) < 3 {
		return errors.New("usage: kgstudio merge NAME@V KEEP DROP [DROP ...]")
	}
	a, v, err := cfg.openVersion(ctx, rest[0], cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	nv, err := a.Curation.Merge(ctx, v, rest[1], rest[2:])
	if err != nil {
		return err
	}
	storeIndexes(ctx, a, nv, *asJSON, stderr)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(app.VersionJSONOf(nv))
	}
	fmt.Fprintf(stdout, "%s: %d nodes, %d edges (%s)\n", nv.Label(), nv.Nodes, nv.Edges, nv.Note)
	return nil
}

// cmdEdit applies the edits of a JSON file (or "-" for standard input) to
// NAME@V, as a new version carrying them as its edit log.
func cmdEdit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("edit", stderr)
	asJSON := fs.Bool("json", false, "print the new version as JSON")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return errors.New("usage: kgstudio edit NAME@V EDITS.json|- [--json]")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	var data []byte
	if rest[1] == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(rest[1])
	}
	if err != nil {
		return fmt.Errorf("read edits: %w", err)
	}
	edits, err := curate.ParseEdits(data)
	if err != nil {
		return err
	}
	a, v, err := cfg.openVersion(ctx, rest[0], cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	nv, err := a.Curation.Edit(ctx, v, edits)
	if err != nil {
		return err
	}
	storeIndexes(ctx, a, nv, *asJSON, stderr)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(app.VersionJSONOf(nv))
	}
	fmt.Fprintf(stdout, "%s: %d nodes, %d edges (%s)\n", nv.Label(), nv.Nodes, nv.Edges, nv.Note)
	return nil
}
