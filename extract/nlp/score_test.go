package nlp

import (
	"os"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
)

// TestExtractor_ScoreReDocRED scores the extractor on Re-DocRED with
// extract/eval: entity precision, recall and F1 over the node types the
// gold file annotates (eval.DocREDTypes), and typed accuracy, for the
// default options and with parts switched off. Each fails when PER/ORG/LOC
// recall drops below 0.6; the default also when precision drops below 0.5.
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
	docs := make([]extract.Document, len(entries))
	for i, en := range entries {
		if docs[i], err = extract.ReadDocument(en.ID, []byte(en.Text), 0); err != nil {
			t.Fatal(err)
		}
		docs[i].ID = i + 1
	}
	for _, tc := range []struct {
		name          string
		opts          Options
		noCorrections bool
		minPrecision  float64
	}{
		{"Default", Options{}, false, 0.5},
		{"SkipNER", Options{SkipNER: true}, false, 0},
		{"NoCorrections", Options{}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustNew(t, tc.opts)
			e.skipCorrections = tc.noCorrections
			graphs := make([]extract.Graph, len(docs))
			for i, d := range docs {
				graphs[i] = extractDoc(t, e, d)
			}
			ent := eval.Score(entries, graphs, eval.DocREDTypes).Entities
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
			if ent.Precision < tc.minPrecision {
				t.Errorf("entity precision %.3f < %.1f", ent.Precision, tc.minPrecision)
			}
		})
	}
}
