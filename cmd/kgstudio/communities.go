package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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
	out, err := a.Communities.List(ctx, v, *level)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "%s: %s; level %d has %s, modularity %.3f\n", out.Version, plural(out.Levels, "level"), out.Level,
		plural(len(out.Communities), "community"), out.Modularity)
	if out.ModelReports > 0 || out.ReportFallbacks > 0 {
		fmt.Fprintf(stdout, "reports: %d by the model, %d reported offline because the model's answer could not be had\n", out.ModelReports, out.ReportFallbacks)
	}
	for _, c := range out.Communities {
		fmt.Fprintf(stdout, "%d\t%s\t%s\n", c.ID, plural(c.Size, "node"), c.Title)
	}
	return nil
}

// plural is n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
