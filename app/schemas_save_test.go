package app

import (
	"context"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// Saving validates a schema once, in app: a refused schema's error is of
// kind invalid, names the problem and lists every problem; nothing is
// stored.
func TestSchemas_SaveValidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, _ := testApp(t, "a.txt", "text")
	bad := schema.Default()
	bad.Types[0].Relations = append(bad.Types[0].Relations, schema.Relation{Name: "knows", Target: "Nowhere"})
	_, _, err := a.Schemas.Save(ctx, "bad", 0, bad, "")
	if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "Nowhere") {
		t.Fatalf("invalid schema saved or wrongly refused: %v", err)
	}
	if ps := schema.ProblemsOf(err); len(ps) == 0 || !strings.Contains(ps[0].Message, "Nowhere") {
		t.Fatalf("problems %+v", ps)
	}
	if _, _, err := a.Schemas.Get(ctx, "bad", 0); extract.KindOf(err) != extract.KindNotFound {
		t.Fatalf("the refused schema was stored: %v", err)
	}
	if v, created, err := a.Schemas.Save(ctx, "good", 0, schema.Default(), ""); err != nil || !created || v != 1 {
		t.Fatalf("a valid schema: %d %v %v", v, created, err)
	}
}
