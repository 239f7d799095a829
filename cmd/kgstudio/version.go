package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

const versionUsage = `usage:
  kgstudio version list [NAME] [--json]
  kgstudio version show NAME@V [--json]
  kgstudio version cancel NAME@V [--json]
  kgstudio version delete NAME@V
  kgstudio version delete NAME --all`

// cmdVersion handles "version list|show|cancel|delete".
func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(versionUsage)
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, versionUsage)
		return nil
	}
	fs, cfg := newFlagSet("version "+args[0], stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	all := fs.Bool("all", false, "delete: every version of the extraction, and the extraction")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "list", "show", "cancel", "delete":
	default:
		return fmt.Errorf("version: unknown subcommand %q\n%s", args[0], versionUsage)
	}
	runner, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer runner.Close()
	switch args[0] {
	case "list":
		if len(pos) > 1 {
			return errors.New(versionUsage)
		}
		return printVersions(ctx, runner, pos, *asJSON, stdout)
	case "show", "cancel":
		if len(pos) != 1 {
			return errors.New(versionUsage)
		}
		v, err := cfg.versionByRef(ctx, runner, pos[0])
		if err != nil {
			return err
		}
		if args[0] == "cancel" {
			return cancelVersion(ctx, runner, v, *asJSON, stdout)
		}
		return showVersion(ctx, runner, v, *asJSON, stdout)
	case "delete":
		if len(pos) != 1 {
			return errors.New(versionUsage)
		}
		return deleteVersion(ctx, cfg, runner, pos[0], *all, stdout)
	}
	return fmt.Errorf("version: unknown subcommand %q\n%s", args[0], versionUsage)
}

// printVersions lists the versions of every extraction, or of the one
// named, as a table or JSON.
func printVersions(ctx context.Context, runner *app.App, pos []string, asJSON bool, stdout io.Writer) error {
	exs, err := runner.Versions.Extractions(ctx, 0)
	if err != nil {
		return err
	}
	var out []app.VersionJSON
	for _, ex := range exs {
		if len(pos) == 1 && ex.Name != pos[0] {
			continue
		}
		for _, v := range ex.Versions {
			out = append(out, app.VersionJSONOf(v))
		}
	}
	if len(pos) == 1 && len(out) == 0 {
		return extract.Errorf(extract.KindNotFound, "no extraction named %q", pos[0])
	}
	if asJSON {
		if out == nil {
			out = []app.VersionJSON{}
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATUS\tSTRATEGY\tNODES\tEDGES\tCHUNKS\tCREATED")
	for _, v := range out {
		chunks, strategy := fmt.Sprintf("%d/%d", v.ChunksDone, v.ChunksTotal), v.Config.Strategy
		if v.ChunksTotal == 0 && v.Status == record.StatusDone {
			chunks = "-" // made from a graph (an edit, a merge, an import), not extracted
		}
		if strategy == "" {
			strategy = "-"
		}
		fmt.Fprintf(tw, "%s@%d\t%s\t%s\t%d\t%d\t%s\t%s\n", v.Extraction, v.Version, v.Status, strategy,
			v.Nodes, v.Edges, chunks, v.CreatedAt.Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// showVersion prints a version with its jobs, as text or JSON.
func showVersion(ctx context.Context, runner *app.App, v record.Version, asJSON bool, stdout io.Writer) error {
	vj, err := runner.Versions.WithJobs(ctx, v)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(vj)
	}
	j, jobs := vj.VersionJSON, vj.Jobs
	fmt.Fprintf(stdout, "%s@%d (id %d)\nstatus:    %s\nnodes:     %d\nedges:     %d\nchunks:    %d/%d\ncalls:     %d (%d cached)\ntokens:    %d in, %d out\ndocuments: %s\nconfig:\n%s",
		j.Extraction, j.Version, j.ID, j.Status, j.Nodes, j.Edges, j.ChunksDone, j.ChunksTotal, j.Calls, j.CachedCalls,
		j.PromptTokens, j.OutputTokens, intList(j.DocumentIDs), configLines(j.Config))
	if e := j.Embedding; e != nil {
		fmt.Fprintf(stdout, "vectors:   %d of %s (%s, %d dimensions)\nembedding: %d calls, %d tokens, %d cached, cost %s\n",
			e.Vectors, e.Model, e.Embedder, e.Dimensions, e.Calls, e.Tokens, e.Cached, e.Cost)
	}
	if j.Error != "" {
		fmt.Fprintf(stdout, "error:     %s\n", j.Error)
	}
	for _, line := range strings.Split(strings.TrimSpace(j.Note), "\n") {
		if line != "" {
			fmt.Fprintf(stdout, "note:      %s\n", line)
		}
	}
	if j.Injected > 0 || j.MergesApplied > 0 || j.NotSameApplied > 0 {
		fmt.Fprintf(stdout, "curation:  %d injected, %d merges applied, %d not-the-same applied\n", j.Injected, j.MergesApplied, j.NotSameApplied)
	}
	for i, e := range j.Edits {
		fmt.Fprintf(stdout, "edit %d:    %s\n", i+1, e)
	}
	c := jobs.JobCounts
	fmt.Fprintf(stdout, "jobs:      %d queued, %d running, %d retried, %d failed, %d completed\n", c.Queued, c.Running, c.Retried, c.Failed, c.Completed)
	for _, e := range jobs.Errors {
		fmt.Fprintf(stdout, "  chunk %d of document %d (%s after %d attempts): %s\n", e.Chunk, e.DocumentID, e.State, e.Attempts, e.Error)
	}
	return nil
}

// deleteVersion deletes the version ref names (NAME@V), or with all
// the whole extraction ref names.
func deleteVersion(ctx context.Context, cfg *Config, runner *app.App, ref string, all bool, stdout io.Writer) error {
	if all {
		if strings.Contains(ref, "@") {
			return errors.New("version delete --all takes an extraction NAME, not NAME@V")
		}
		n, err := runner.Versions.DeleteExtraction(ctx, ref)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted extraction %s (%d versions)\n", ref, n)
		return nil
	}
	if !strings.Contains(ref, "@") {
		return fmt.Errorf("version delete: name one version as NAME@V, or the whole extraction with %s --all", ref)
	}
	v, err := cfg.versionByRef(ctx, runner, ref)
	if err != nil {
		return err
	}
	if err := runner.Versions.Delete(ctx, v.ID); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deleted %s\n", v.Label())
	return nil
}

// cancelVersion cancels a queued or running version and prints it.
func cancelVersion(ctx context.Context, runner *app.App, v record.Version, asJSON bool, stdout io.Writer) error {
	v, err := runner.Runs.CancelVersion(ctx, v)
	if err != nil {
		return err
	}
	if asJSON {
		vj, err := runner.Versions.WithJobs(ctx, v)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(vj)
	}
	fmt.Fprintf(stdout, "canceled %s after %d of %d chunks\n", v.Label(), v.ChunksDone, v.ChunksTotal)
	return nil
}

func intList(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}

// configShown is the longest config value version show prints whole.
const configShown = 72

// configLines prints a run's config a setting a line ("  strategy: nlp"),
// nested settings by their dotted path; a long or multi-line value (a
// prompt) is shown by its first line and its size (--json prints it
// whole).
func configLines(cfg any) string {
	b, err := json.Marshal(cfg)
	if err != nil {
		return "  (unreadable: " + err.Error() + ")\n"
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return "  (unreadable: " + err.Error() + ")\n"
	}
	var lines []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(strings.TrimPrefix(prefix+"."+k, "."), x[k])
			}
			return
		case string:
			first, _, multi := strings.Cut(x, "\n")
			if multi || len(x) > configShown {
				if r := []rune(first); len(r) > configShown {
					first = string(r[:configShown]) + "…"
				}
				lines = append(lines, fmt.Sprintf("  %s: %s… (%d characters; --json shows it whole)", prefix, first, len(x)))
			} else {
				lines = append(lines, fmt.Sprintf("  %s: %s", prefix, x))
			}
			return
		}
		j, _ := json.Marshal(v)
		lines = append(lines, fmt.Sprintf("  %s: %s", prefix, j))
	}
	walk("", m)
	return strings.Join(lines, "\n") + "\n"
}
