package csvmap_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
)

// chunked maps every document in row chunks of rows and folds the
// chunks' graphs into one, as a run's merges do; it returns the graph,
// the failures and the chunks of each document.
func chunked(t *testing.T, docs []extract.Document, opts csvmap.Options, rows int) (extract.Graph, []extract.ParseFailure, [][]extract.Chunk) {
	t.Helper()
	tables, err := csvmap.NewTables(docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var g extract.Graph
	var fails []extract.ParseFailure
	var all [][]extract.Chunk
	for _, d := range docs {
		chunks := csvmap.RowChunks(d, rows)
		all = append(all, chunks)
		for _, ch := range chunks {
			r := tables.Map(d, ch)
			for _, n := range r.Graph.Nodes {
				for _, m := range n.Mentions {
					if m.ChunkIndex != ch.Index || m.Start < ch.Start || m.End > ch.End {
						t.Fatalf("%s chunk %d [%d,%d): node %q has mention %+v outside it", d.Name, ch.Index, ch.Start, ch.End, n.Key, m)
					}
				}
			}
			extract.MergeGraph(&g, r.Graph, 8)
			fails = append(fails, r.Failures...)
		}
	}
	return g, fails, all
}

// shape lists a graph's nodes (key, name, type, mention count,
// properties but the merge's count of types) and edges (key, weight,
// mention count), sorted.
func shape(g extract.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		props := maps.Clone(n.Properties)
		delete(props, extract.PropTypeCounts)
		out = append(out, fmt.Sprintf("N %s|%s|%s|%d|%v", n.Key, n.Name, n.Type, len(n.Mentions), props))
	}
	for _, e := range g.Edges {
		out = append(out, fmt.Sprintf("E %s|%s|%s|%g|%d", e.Source, e.Label, e.Target, e.Weight, len(e.Mentions)))
	}
	slices.Sort(out)
	return out
}

func lines(fs []extract.ParseFailure) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Line+" "+f.Reason)
	}
	slices.Sort(out)
	return out
}

// TestRowChunks_MapAsWhole maps a run of a node table and a triples table
// naming its rows, whole and in chunks of 3 rows: the same nodes, edges,
// weights, mentions and failures (a short row and a repeated id in a
// later chunk among them, with their lines), and chunks that cover each
// table at record boundaries, a quoted cell across lines included.
func TestRowChunks_MapAsWhole(t *testing.T) {
	people := "\ufeffid,name,city\n" +
		"p1,Ada Lovelace,London\n" +
		"p2,Charles Babbage,London\n" +
		"p3,Mary Somerville,\"Jed\nburgh\"\n" +
		"p4,Michael Faraday\n" + // a short row, line 6
		"p5,John Herschel,Slough\n" +
		"p1,Ada King,Ockham\n" + // id p1 again, line 8, in a later chunk
		"p6,Augustus De Morgan,London\n"
	triples := "subject,predicate,object\n" +
		"Ada Lovelace,knew,Charles Babbage\n" +
		"Charles Babbage,knew,John Herschel\n" +
		"Ada Lovelace,knew,Charles Babbage\n" +
		"Ada Lovelace,tutored by,Augustus De Morgan\n" +
		"Charles Babbage,knew,John Herschel\n" +
		"Mary Somerville,tutored,Ada Lovelace\n" +
		"Ada Lovelace,wrote,Notes on the Analytical Engine\n"
	docs := []extract.Document{
		{ID: 1, Name: "Person.csv", Kind: extract.DocCSV, Content: people},
		{ID: 2, Name: "facts.csv", Kind: extract.DocCSV, Content: triples},
	}
	whole, err := csvmap.MapAll(docs, csvmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wholeFails []extract.ParseFailure
	for _, r := range whole {
		wholeFails = append(wholeFails, r.Failures...)
	}
	g, fails, all := chunked(t, docs, csvmap.Options{}, 3)
	if got, want := shape(g), shape(merged(whole)); !slices.Equal(got, want) {
		t.Errorf("chunks of 3 rows:\n%s\nwhole:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := lines(fails), lines(wholeFails); !slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("failures in chunks %q, whole %q; want the short row and the repeated id", got, want)
	}
	for i, chunks := range all {
		if len(chunks) != 3 {
			t.Errorf("%s: %d chunks of 3 rows, want 3 (7 rows)", docs[i].Name, len(chunks))
		}
		var text strings.Builder
		for k, ch := range chunks {
			if ch.Index != k || ch.Text != docs[i].Content[ch.Start:ch.End] || k > 0 && ch.Start != chunks[k-1].End {
				t.Errorf("%s chunk %d = %+v: not the next span of the table", docs[i].Name, k, ch)
			}
			text.WriteString(ch.Text)
		}
		if text.String() != docs[i].Content {
			t.Errorf("%s: the chunks do not cover the table", docs[i].Name)
		}
	}
	// The repeated id keeps its first row's values in any chunk.
	for _, n := range g.Nodes {
		if n.Name == "Ada King" || n.Properties["city"] == "Ockham" {
			t.Errorf("node %q %v took the repeated row's values", n.Name, n.Properties)
		}
	}
	if one := csvmap.RowChunks(docs[1], 0); len(one) != 1 || one[0].Text != triples {
		t.Errorf("RowChunks(0) = %d chunks, want the table as one", len(one))
	}
	if one := csvmap.RowChunks(docs[1], 7); len(one) != 1 {
		t.Errorf("RowChunks(7) of 7 rows = %d chunks, want 1", len(one))
	}
	if l := csvmap.LayoutOf(docs[1], csvmap.Options{}); !strings.HasPrefix(l, "triples") {
		t.Errorf("LayoutOf(triples) = %q", l)
	}
}
