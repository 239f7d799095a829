package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// cmdCommunities lists a version's communities at a level with their
// reports: kgstudio communities NAME@V [--level N] [--json].
func cmdCommunities(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("communities", stderr)
	level := fs.Int("level", 0, "the level to list (0 is the coarsest)")
	asJSON := fs.Bool("json", false, "print JSON (the same as GET /api/versions/ID/communities)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: kgstudio communities NAME@V [--level N] [--json]")
	}
	a, v, err := cfg.openVersion(ctx, pos[0], cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	out, err := a.Queries.Communities(ctx, v, *level)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "%s: %d levels; level %d has %d communities, modularity %.3f\n", out.Version, out.Levels, out.Level, len(out.Communities), out.Modularity)
	for _, c := range out.Communities {
		fmt.Fprintf(stdout, "%d\t%d nodes\t%s\n", c.ID, c.Size, c.Title)
	}
	return nil
}
