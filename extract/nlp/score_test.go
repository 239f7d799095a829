package nlp

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
)

// TestExtractor_ScoreReDocRED scores the extractor on Re-DocRED with
// extract/eval for the default options and with parts switched off. The
// default must reach the goals of the offline strategy: typed recall of
// PER and LOC at least 0.80 and of ORG at least 0.60 (the node's type must
// be the mapped gold type), one-to-one precision at least 0.80 (each gold
// entity credits one node at most) and unlabelled relation F1 at least
// 0.35. Every variant keeps untyped PER/ORG/LOC recall at 0.6 or more.
func TestExtractor_ScoreReDocRED(t *testing.T) {
	entries, docs := goldDocs(t, "gold/redocred_dev_revised_first100.json", eval.ReadDocRED)
	type goals struct {
		typed     map[string]float64 // gold type -> minimum typed recall
		oneToOne  float64
		relations float64
	}
	for _, tc := range []struct {
		name          string
		opts          Options
		noCorrections bool
		goals         goals
	}{
		{"Default", Options{}, false, goals{map[string]float64{"PER": 0.80, "LOC": 0.80, "ORG": 0.60}, 0.80, 0.35}},
		{"SkipNER", Options{SkipNER: true}, false, goals{}},
		{"NoCorrections", Options{}, true, goals{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := mustNew(t, tc.opts)
			e.skipCorrections = tc.noCorrections
			graphs := make([]extract.Graph, len(docs))
			for i, d := range docs {
				graphs[i] = extractDoc(t, e, d)
			}
			rep := eval.Score(entries, graphs, eval.DocREDTypes)
			ent := rep.Entities
			t.Logf("entities: P %.3f R %.3f F1 %.3f (scored %d of %d nodes, correct %d; gold %d, found %d)",
				ent.Precision, ent.Recall, ent.F1, ent.Scored, ent.Extracted, ent.Correct, ent.Gold, ent.Found)
			t.Logf("one-to-one: P %.3f R %.3f F1 %.3f", ent.OneToOne.Precision, ent.OneToOne.Recall, ent.OneToOne.F1)
			if ent.Typed != nil {
				t.Logf("typed:    P %.3f R %.3f F1 %.3f", ent.Typed.Precision, ent.Typed.Recall, ent.Typed.F1)
			}
			rel := rep.Relations.Unlabelled
			t.Logf("relations unlabelled: P %.3f R %.3f F1 %.3f", rel.Precision, rel.Recall, rel.F1)
			found, gold := 0, 0
			for _, typ := range []string{"PER", "ORG", "LOC", "TIME", "NUM", "MISC"} {
				tr := ent.ByType[typ]
				typed := 0.0
				if tr.TypedRecall != nil {
					typed = *tr.TypedRecall
				}
				t.Logf("recall %-4s %.3f (%d/%d), typed %.3f", typ, tr.Recall, tr.Found, tr.Gold, typed)
				if typ == "PER" || typ == "ORG" || typ == "LOC" {
					found += tr.Found
					gold += tr.Gold
				}
				if want, ok := tc.goals.typed[typ]; ok && typed < want {
					t.Errorf("typed recall %s %.3f < %.2f", typ, typed, want)
				}
			}
			if gold == 0 {
				t.Fatal("no PER/ORG/LOC gold entities read")
			}
			if rec := float64(found) / float64(gold); rec < 0.6 {
				t.Errorf("PER/ORG/LOC recall %.3f < 0.6", rec)
			}
			if ent.OneToOne.Precision < tc.goals.oneToOne {
				t.Errorf("one-to-one precision %.3f < %.2f", ent.OneToOne.Precision, tc.goals.oneToOne)
			}
			if rel.F1 < tc.goals.relations {
				t.Errorf("unlabelled relation F1 %.3f < %.2f", rel.F1, tc.goals.relations)
			}
		})
	}
}
