package app

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// An nlp run pinned to a schema uses the schema's types where they fit (by
// name or alias) and flags, and counts, the nodes of kinds it has no type
// for.
func TestApp_NLPWithSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, st, d := testApp(t, "film.txt", "Greta Gerwig directed the film in Sacramento, California. Greta Gerwig met Noah Baumbach in New York in 2010.")
	sc, err := schema.ParseJSON([]byte(`{"name":"films","types":[
		{"name":"Film","kind":"entity"},
		{"name":"Human","alias":"People","kind":"entity"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.SaveSchema(ctx, "films", 0, sc, ""); err != nil {
		t.Fatal(err)
	}
	v, g := mustRun(t, a, RunRequest{Extraction: "films", Config: extract.DefaultConfig(), SchemaRef: "films", DocumentIDs: []int{d.ID}})
	people, off := 0, 0
	for _, n := range g.Nodes {
		switch {
		case n.Properties["off_schema"] == true:
			off++
			if n.Type == "Human" || n.Type == "Film" {
				t.Errorf("%s is flagged off-schema with the schema's type %s", n.Name, n.Type)
			}
		case n.Type == "Human":
			people++
		default:
			t.Errorf("%s has type %q, neither the schema's nor flagged", n.Name, n.Type)
		}
	}
	v, err = st.Version(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if people == 0 || off == 0 || v.OffSchema < off {
		t.Fatalf("people %d, flagged %d, version off-schema %d: %+v", people, off, v.OffSchema, g.Nodes)
	}
}
