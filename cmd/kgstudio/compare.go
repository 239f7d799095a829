package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
)

// cmdCompare compares two versions, or imports a gold file as a reference
// version with --import-gold.
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("compare", stderr)
	asJSON := fs.Bool("json", false, "print the diff as JSON (the same as GET /api/compare)")
	ignoreType := fs.Bool("ignore-type", false, "match nodes by name only")
	undirected := fs.Bool("undirected", false, "match edges regardless of direction")
	ignoreLabels := fs.Bool("ignore-labels", false, "match edges by their endpoints only (labels ignored)")
	ignoreDescriptions := fs.Bool("ignore-descriptions", false, "a description-only change counts as unchanged")
	gold := fs.String("import-gold", "", "import a gold FILE as a reference version instead of comparing")
	format := fs.String("format", "", "gold file format: webnlg or docred (with --import-gold)")
	name := fs.String("name", "", "extraction name of the imported gold set (with --import-gold)")
	relations := fs.String("relations", "", "DocRED rel_info.json naming the relation codes (with --import-gold)")
	limit := fs.Int("limit", 0, "import only the first N entries (with --import-gold)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if *gold == "" && len(pos) != 2 {
		return errors.New("usage: kgstudio compare NAME@V1 NAME@V2 [--json] [--ignore-type] [--undirected] [--ignore-labels] [--ignore-descriptions]")
	}
	ap, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer ap.Close()
	if *gold != "" {
		return importGoldFile(ctx, ap, stdout, *gold, *format, *name, *relations, *limit, cfg.MaxUpload)
	}
	a, err := cfg.versionByRef(ctx, ap, pos[0])
	if err != nil {
		return err
	}
	b, err := cfg.versionByRef(ctx, ap, pos[1])
	if err != nil {
		return err
	}
	opts := diff.Options{IgnoreType: *ignoreType, Undirected: *undirected, IgnoreLabels: *ignoreLabels, IgnoreDescriptions: *ignoreDescriptions}
	cmp, err := ap.Comparisons.Compare(ctx, a.ID, b.ID, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cmp.JSON())
	}
	printComparison(stdout, cmp)
	return nil
}

// printComparison writes a short human summary.
func printComparison(w io.Writer, cmp app.Comparison) {
	r := cmp.Result
	fmt.Fprintf(w, "%s -> %s\n", cmp.A.Label(), cmp.B.Label())
	line := func(what string, t diff.Totals) {
		fmt.Fprintf(w, "%-6s %d -> %d: +%d added, -%d removed, ~%d changed, %d unchanged\n",
			what+":", t.Before, t.After, t.Added, t.Removed, t.Changed, t.Unchanged)
	}
	line("nodes", r.Summary.Nodes)
	line("edges", r.Summary.Edges)
	if r.Score != nil {
		ref, scored := cmp.A.Label(), cmp.B.Label()
		if cmp.Options.Reference == diff.RefB {
			ref, scored = scored, ref
		}
		fmt.Fprintf(w, "score of %s against the reference %s:\n", scored, ref)
		prf := func(what string, p diff.PRF) {
			fmt.Fprintf(w, "  %-18s P %.3f R %.3f F1 %.3f\n", what, p.Precision, p.Recall, p.F1)
		}
		prf("nodes", r.Score.Nodes)
		// Both edge scores when they differ, the one the options chose first.
		first, second := "edges (labelled)", "edges (unlabelled)"
		a, b := r.Score.Labelled, r.Score.Unlabelled
		if cmp.Options.IgnoreLabels {
			first, second, a, b = second, first, b, a
		}
		prf(first, a)
		if a != b {
			prf(second, b)
		}
	}
	types := make([]string, 0, len(r.Summary.NodeTypes))
	for t, c := range r.Summary.NodeTypes {
		if c.Delta != 0 {
			types = append(types, t)
		}
	}
	sort.Slice(types, func(i, j int) bool {
		di, dj := r.Summary.NodeTypes[types[i]].Delta, r.Summary.NodeTypes[types[j]].Delta
		if di*di != dj*dj {
			return di*di > dj*dj
		}
		return types[i] < types[j]
	})
	if len(types) > 0 {
		parts := make([]string, 0, len(types))
		for _, t := range types[:min(len(types), 8)] {
			c := r.Summary.NodeTypes[t]
			parts = append(parts, fmt.Sprintf("%s %d -> %d", t, c.Before, c.After))
		}
		fmt.Fprintf(w, "types: %s\n", strings.Join(parts, ", "))
	}
	printChanges(w, cmp)
}

// shownChanges is how many added, removed and changed nodes and edges the
// human summary names of each kind (--json lists them all).
const shownChanges = 10

// printChanges names the first added, removed and changed nodes and
// edges, one a line: "+" added, "-" removed, "~" changed with its fields.
func printChanges(w io.Writer, cmp app.Comparison) {
	r := cmp.Result
	namesA, namesB := nodeNames(cmp.GA), nodeNames(cmp.GB)
	list := func(what string, n int, line func(i int) string) {
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "%s:\n", what)
		for i := range min(n, shownChanges) {
			fmt.Fprintf(w, "  %s\n", line(i))
		}
		if n > shownChanges {
			fmt.Fprintf(w, "  ... and %d more (--json lists them all)\n", n-shownChanges)
		}
	}
	edge := func(sign string, e diff.EdgeItem, names map[string]string) string {
		return fmt.Sprintf("%s %q -%s-> %q", sign, nameOr(names, e.Source), e.Label, nameOr(names, e.Target))
	}
	list("nodes added", len(r.Nodes.Added), func(i int) string {
		n := r.Nodes.Added[i]
		return fmt.Sprintf("+ %q (%s)", n.Name, n.Type)
	})
	list("nodes removed", len(r.Nodes.Removed), func(i int) string {
		n := r.Nodes.Removed[i]
		return fmt.Sprintf("- %q (%s)", n.Name, n.Type)
	})
	list("nodes changed", len(r.Nodes.Changed), func(i int) string {
		c := r.Nodes.Changed[i]
		name := fmt.Sprintf("%q", c.NameA)
		if c.NameA != c.NameB {
			name += fmt.Sprintf(" -> %q", c.NameB)
		}
		typ := c.TypeA
		if c.TypeA != c.TypeB {
			typ += " -> " + c.TypeB
		}
		return fmt.Sprintf("~ %s (%s): %s", name, typ, strings.Join(c.Fields, ", "))
	})
	list("edges added", len(r.Edges.Added), func(i int) string { return edge("+", r.Edges.Added[i], namesB) })
	list("edges removed", len(r.Edges.Removed), func(i int) string { return edge("-", r.Edges.Removed[i], namesA) })
	list("edges changed", len(r.Edges.Changed), func(i int) string {
		c := r.Edges.Changed[i]
		return edge("~", c.B, namesB) + ": " + strings.Join(c.Fields, ", ")
	})
}

// nodeNames maps a graph's node keys to their names.
func nodeNames(g extract.Graph) map[string]string {
	m := make(map[string]string, len(g.Nodes))
	for _, n := range g.Nodes {
		m[n.Key] = n.Name
	}
	return m
}

// nameOr is the name of the node with key k, or k when there is none.
func nameOr(names map[string]string, k string) string {
	if n, ok := names[k]; ok {
		return n
	}
	return k
}

// importGoldFile imports a gold file as a reference version.
func importGoldFile(ctx context.Context, ap *app.App, stdout io.Writer, path, format, name, relations string, limit, maxBytes int) error {
	if format == "" || name == "" {
		return errors.New("compare --import-gold: --format (webnlg or docred) and --name are required")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rel []byte
	if relations != "" {
		if rel, err = os.ReadFile(relations); err != nil {
			return err
		}
	}
	imp, err := ap.Curation.ImportGold(ctx, name, app.GoldFormat(format), data, rel, limit, maxBytes)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d entries as %s (reference): %d nodes, %d edges; document %d %q\n",
		imp.Entries, imp.Reference.Label(), imp.Reference.Nodes, imp.Reference.Edges, imp.Document.ID, imp.Document.Name)
	return nil
}
