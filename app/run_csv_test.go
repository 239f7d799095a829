package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
	"github.com/kgstudio/kgstudio/extract/record"
)

// A run whose CSV tables have more rows than a run maps is refused when
// it is asked, naming the table and line, and makes no version (it was
// made, then failed once its final job had read the tables).
func TestNewRun_TooManyTableRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, st, d := testApp(t, "people.csv", "id,name\n"+strings.Repeat("a,b\n", csvmap.MaxRows+1))
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	_, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "big", Config: cfg, DocumentIDs: []int{d.ID}})
	if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), fmt.Sprintf("people.csv line %d: the tables of the run have more than %d rows in all", csvmap.MaxRows+2, csvmap.MaxRows)) {
		t.Fatalf("a table of %d rows: err = %v, want it refused naming the table and line", csvmap.MaxRows+1, err)
	}
	if v, err := st.VersionByLabel(ctx, "big", 1); err == nil {
		t.Errorf("the refused run made a version: %+v", v)
	}
	small := addDoc(t, st, "small.csv", "id,name\na,A\n")
	if _, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "small", Config: cfg, DocumentIDs: []int{small.ID}}); err != nil {
		t.Fatalf("a table of one row: %v", err)
	}
}

// A table is mapped and merged a chunk of cfg.TableRows rows at a time:
// the version holds the graph a run of the table as one chunk holds (the
// same nodes, edges, weights and mention counts), its chunk view lists the
// row chunks, each mention names the chunk of its row, and a version made
// before (TableRows 0) still reads its one chunk.
func TestRun_TableInRowChunks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var rows strings.Builder
	rows.WriteString("subject,predicate,object\n")
	for i := range 25 {
		fmt.Fprintf(&rows, "Person %d,knows,Person %d\n", i%7, (i*3)%11)
	}
	a, st, d := testApp(t, "knows.csv", rows.String())
	shapeOf := func(v record.Version) []string {
		t.Helper()
		g, err := st.LoadGraph(ctx, v.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range g.Nodes {
			out = append(out, fmt.Sprintf("N %s %s %d", n.Key, n.Type, len(n.Mentions)))
		}
		for _, e := range g.Edges {
			out = append(out, fmt.Sprintf("E %s %g %d", e.Key(), e.Weight, len(e.Mentions)))
		}
		slices.Sort(out)
		return out
	}
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	cfg.TableRows = 10
	chunked := runConfig(t, a, st, "chunked", cfg, d.ID)
	cfg.TableRows = 0
	if err := a.Runs.Prepare(ctx, &cfg, ""); err != nil || cfg.TableRows != extract.DefaultTableRows {
		t.Fatalf("Prepare: table rows %d, %v; want the default %d", cfg.TableRows, err, extract.DefaultTableRows)
	}
	cfg.TableRows = 0 // as a version made before
	old, err := st.NewVersion(ctx, "whole", cfg, []int{d.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Runs.Run(ctx, old, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := shapeOf(chunked), shapeOf(old); !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("in chunks of 10 rows:\n%s\nas one chunk:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	chunks, err := a.Versions.Chunks(ctx, chunked, d.ID)
	if err != nil || len(chunks) != 3 || chunks[2].End != len(d.Content) {
		t.Fatalf("chunks of 25 rows by 10: %d, %v", len(chunks), err)
	}
	g, err := st.LoadGraph(ctx, chunked.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	used := map[int]bool{}
	for _, e := range g.Edges {
		for _, m := range e.Mentions {
			ch := chunks[m.ChunkIndex]
			if m.Start < ch.Start || m.End > ch.End {
				t.Fatalf("edge %s: mention %+v outside its chunk %+v", e.Key(), m, ch)
			}
			used[m.ChunkIndex] = true
		}
	}
	if len(used) != 3 {
		t.Errorf("edges mention chunks %v, want all three", used)
	}
	if one, err := a.Versions.Chunks(ctx, old, d.ID); err != nil || len(one) != 1 || one[0].Text != d.Content {
		t.Errorf("a version made before: %d chunks, %v; want the table as one", len(one), err)
	}
}
