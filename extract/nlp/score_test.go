package nlp

import (
	"os"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
)

// TestExtractor_ScoreReDocRED scores the default extractor on Re-DocRED
// with extract/eval: entity precision, recall and F1 over the node types
// the gold file annotates (eval.DocREDTypes), and typed accuracy. It fails
// when PER/ORG/LOC recall drops below 0.6 or precision below 0.5.
func TestExtractor_ScoreReDocRED(t *testing.T) {
	f, err := os.Open(sharedPath(t, "gold/redocred_dev_revised_first100.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := eval.ReadDocRED(f)
	if err != nil {
		t.Fatal(err)
	}
	e := mustNew(t, Options{})
	graphs := make([]extract.Graph, len(entries))
	for i, en := range entries {
		doc, err := extract.ReadDocument(en.ID, []byte(en.Text), 0)
		if err != nil {
			t.Fatal(err)
		}
		doc.ID = i + 1
		graphs[i] = extractDoc(t, e, doc)
	}
	r := eval.Score(entries, graphs, eval.DocREDTypes)
	ent := r.Entities
	t.Logf("entities: P %.3f R %.3f F1 %.3f (scored %d of %d nodes, correct %d; gold %d, found %d)",
		ent.Precision, ent.Recall, ent.F1, ent.Scored, ent.Extracted, ent.Correct, ent.Gold, ent.Found)
	if ent.Typed != nil {
		t.Logf("typed:    P %.3f R %.3f F1 %.3f", ent.Typed.Precision, ent.Typed.Recall, ent.Typed.F1)
	}
	found, gold := 0, 0
	for _, typ := range []string{"PER", "ORG", "LOC", "TIME", "NUM", "MISC"} {
		tr := ent.ByType[typ]
		t.Logf("recall %-4s %.3f (%d/%d)", typ, tr.Recall, tr.Found, tr.Gold)
		if typ == "PER" || typ == "ORG" || typ == "LOC" {
			found += tr.Found
			gold += tr.Gold
		}
	}
	if gold == 0 {
		t.Fatal("no PER/ORG/LOC gold entities read")
	}
	if rec := float64(found) / float64(gold); rec < 0.6 {
		t.Errorf("PER/ORG/LOC recall %.3f < 0.6", rec)
	}
	if ent.Precision < 0.5 {
		t.Errorf("entity precision %.3f < 0.5", ent.Precision)
	}
}
