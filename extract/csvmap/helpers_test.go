package csvmap_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// kagOptions parses a KAG schema of the shared data and converts it.
func kagOptions(tb testing.TB, file string) csvmap.Options {
	tb.Helper()
	sc, err := schema.ParseKAGString(string(testkit.Read(tb, "kag-schemas/"+file)))
	if err != nil {
		tb.Fatal(err)
	}
	return csvmap.FromSchema(sc)
}

// corpus reads every CSV of a shared corpus folder as documents, in name
// order, with ids from 1.
func corpus(tb testing.TB, folder string) []extract.Document {
	tb.Helper()
	dir := testkit.Path(tb, "corpora/"+folder)
	names, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no CSV in %s: %v", dir, err)
	}
	sort.Strings(names)
	var docs []extract.Document
	for i, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		d, err := extract.ReadDocument(filepath.Base(n), data, 0)
		if err != nil {
			tb.Fatal(err)
		}
		if d.Kind != extract.DocCSV {
			tb.Fatalf("%s read as %s", n, d.Kind)
		}
		d.ID = i + 1
		docs = append(docs, d)
	}
	return docs
}

// merged folds the per-document graphs of a run into one.
func merged(rs []csvmap.Result) extract.Graph {
	var g extract.Graph
	for _, r := range rs {
		extract.MergeGraph(&g, r.Graph, 8)
	}
	return g
}

func byType(g extract.Graph) map[string]int {
	m := map[string]int{}
	for _, n := range g.Nodes {
		m[n.Type]++
	}
	return m
}

func byLabel(g extract.Graph) map[string]int {
	m := map[string]int{}
	for _, e := range g.Edges {
		m[e.Label]++
	}
	return m
}
