package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// evalJSON is the documented shape of eval --json.
type evalJSON struct {
	Entities struct {
		Precision, Recall, F1 float64
		ByType                map[string]struct {
			Gold, Found int
			Recall      float64
			TypedRecall *float64 `json:"typed_recall"`
		} `json:"by_type"`
		OneToOne *struct{ Precision, Recall, F1 float64 } `json:"one_to_one"`
	} `json:"entities"`
	Relations struct {
		Unlabelled struct{ Precision, Recall, F1 float64 } `json:"unlabelled"`
	} `json:"relations"`
	Entries int `json:"entries"`
}

func TestEvalCLI(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	t.Run("WebNLG", func(t *testing.T) {
		webnlg := testkit.Path(t, "gold/webnlg2020_text2rdf_seen_first200.xml")
		var r evalJSON
		out := mustCLI(t, data, "eval", "--format", "webnlg", webnlg, "--limit", "30", "--json")
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Entries != 30 {
			t.Errorf("entries = %d", r.Entries)
		}
		ent, ok := r.Entities.ByType["ENTITY"]
		if !ok || ent.Gold == 0 || ent.Found > ent.Gold {
			t.Errorf("by_type: %+v", r.Entities.ByType)
		}
		if r.Entities.Recall < 0.4 || r.Entities.Precision < 0.2 {
			t.Errorf("entities P %.3f R %.3f", r.Entities.Precision, r.Entities.Recall)
		}
		if r.Relations.Unlabelled.Recall <= 0 {
			t.Errorf("relations: %+v", r.Relations)
		}
	})

	t.Run("DocRED", func(t *testing.T) {
		var r evalJSON
		docred := testkit.Path(t, "gold/redocred_dev_first10.json")
		out := mustCLI(t, data, "eval", "--format", "docred", docred, "--limit", "8", "--json",
			"--relations", testkit.Path(t, "gold/docred_rel_info.json"))
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Entries != 8 {
			t.Errorf("entries = %d", r.Entries)
		}
		for typ := range r.Entities.ByType {
			if !strings.Contains(" PER ORG LOC TIME NUM MISC ", " "+typ+" ") {
				t.Errorf("unexpected gold type %q", typ)
			}
		}
		var gold, found int
		for _, typ := range []string{"PER", "ORG", "LOC"} {
			gold += r.Entities.ByType[typ].Gold
			found += r.Entities.ByType[typ].Found
		}
		if gold == 0 || float64(found)/float64(gold) < 0.6 {
			t.Errorf("PER/ORG/LOC recall %d/%d below 0.6", found, gold)
		}
		// Typed recall sits beside the untyped one, and precision is also
		// given one-to-one.
		for typ, tr := range r.Entities.ByType {
			if tr.TypedRecall == nil || *tr.TypedRecall > tr.Recall+1e-9 {
				t.Errorf("by_type[%s] typed recall %v beside recall %.3f", typ, tr.TypedRecall, tr.Recall)
			}
		}
		if o := r.Entities.OneToOne; o == nil || o.Precision <= 0 || o.Precision > r.Entities.Precision+1e-9 {
			t.Errorf("one_to_one = %+v beside precision %.3f", o, r.Entities.Precision)
		}
	})

	t.Run("Human", func(t *testing.T) {
		out := mustCLI(t, data, "eval", "--format", "docred", testkit.Path(t, "gold/redocred_dev_first10.json"), "--limit", "3")
		for _, want := range []string{"3 entries", "entities:", "PER", "typed", "one-to-one", "relations unlabelled:"} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("Errors", func(t *testing.T) {
		docred := testkit.Path(t, "gold/redocred_dev_first10.json")
		for _, args := range [][]string{
			{"eval", docred},
			{"eval", "--format", "csv", docred},
			{"eval", "--format", "webnlg", docred},
			{"eval", "--format", "docred", "--strategy", "tuple", docred},
			{"eval", "--format", "webnlg", "missing.xml"},
		} {
			if _, err := runCLI(t, data, args...); err == nil {
				t.Errorf("%v: no error", args)
			}
		}
	})
}

// eval --strategy tuple scores what a model answers, and a second run is
// answered from the call cache.
func TestEvalCLI_LLMStrategy(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "The location of Trane is Swords, Dublin.", Text: "entity<|#|>Trane<|#|>organization<|#|>A company.\n" +
			"entity<|#|>Swords, Dublin<|#|>location<|#|>A town.\nrelation<|#|>Trane<|#|>Swords, Dublin<|#|>location<|#|>Trane is in Swords.\n<|COMPLETE|>"},
		{Contains: "ALCO RS-3", Text: "entity<|#|>ALCO RS-3<|#|>vehicle<|#|>A locomotive.\n<|COMPLETE|>"},
	}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")
	webnlg := testkit.Path(t, "gold/webnlg2020_text2rdf_seen_first200.xml")
	args := []string{"eval", "--format", "webnlg", webnlg, "--limit", "2", "--strategy", "tuple", "--provider", "openai", "--json"}
	var r evalJSON
	if err := json.Unmarshal([]byte(mustCLI(t, data, append(args, "--max-gleaning", "0")...)), &r); err != nil {
		t.Fatal(err)
	}
	// Gold: Trane, Swords Dublin, ALCO RS-3, the transmission, the length;
	// the model found the first three, all correct.
	if r.Entries != 2 || r.Entities.Precision != 1 || r.Entities.Recall < 0.5 || r.Relations.Unlabelled.Recall <= 0 {
		t.Errorf("report %+v", r)
	}
	if srv.Count() != 2 {
		t.Errorf("%d model calls, want 2", srv.Count())
	}
	mustCLI(t, data, append(args, "--max-gleaning", "0")...)
	if srv.Count() != 2 {
		t.Errorf("the second evaluation asked the model again (%d calls)", srv.Count())
	}
}
