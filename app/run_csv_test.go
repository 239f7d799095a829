package app

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
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
	_, _, err := a.NewRun(ctx, RunRequest{Extraction: "big", Config: cfg, DocumentIDs: []int{d.ID}})
	if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), "people.csv line 100002: the tables of the run have more than 100000 rows in all") {
		t.Fatalf("a table of %d rows: err = %v, want it refused naming the table and line", csvmap.MaxRows+1, err)
	}
	if v, err := st.VersionByLabel(ctx, "big", 1); err == nil {
		t.Errorf("the refused run made a version: %+v", v)
	}
	small := addDoc(t, st, "small.csv", "id,name\na,A\n")
	if _, _, err := a.NewRun(ctx, RunRequest{Extraction: "small", Config: cfg, DocumentIDs: []int{small.ID}}); err != nil {
		t.Fatalf("a table of one row: %v", err)
	}
}
