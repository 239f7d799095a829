package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/diff"
)

func decodeDiff(t *testing.T, out string) diff.Result {
	t.Helper()
	var r diff.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	return r
}

func TestCompareCLI(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	text, err := os.ReadFile("../../app/sample/christmas_carol_stave_one.txt")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "carol.txt")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, data, "extract", "--name", "carol", "--json", file)
	mustCLI(t, data, "extract", "--name", "carol", "--chunk-size", "300", "--overlap", "0", "--json", file)

	t.Run("JSON", compareCLIJSON(data))

	t.Run("SameVersion", func(t *testing.T) {
		r := decodeDiff(t, mustCLI(t, data, "compare", "carol@1", "carol@1", "--json", "--ignore-type"))
		if r.Summary.Nodes.Added+r.Summary.Nodes.Removed+r.Summary.Nodes.Changed+r.Summary.Edges.Added+r.Summary.Edges.Removed+r.Summary.Edges.Changed != 0 {
			t.Errorf("diff(a, a) not empty: %+v", r.Summary)
		}
	})

	t.Run("Human", func(t *testing.T) {
		out := mustCLI(t, data, "compare", "carol@1", "carol@2")
		for _, want := range []string{"carol@1 -> carol@2", "nodes:", "edges:", "added", "unchanged"} {
			if !strings.Contains(out, want) {
				t.Errorf("summary lacks %q:\n%s", want, out)
			}
		}
	})

	// The human summary names what changed: a renamed and a retyped node
	// (edits), an added edge, a removed node.
	t.Run("HumanNamesChanges", compareCLIHumanNamesChanges(data))

	t.Run("Errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"compare", "carol@1"},
			{"compare", "carol@x", "carol@1"},
			{"compare", "nope@1", "carol@1"},
			{"compare", "carol@1", "carol@9"},
		} {
			if _, err := runCLI(t, data, args...); err == nil {
				t.Errorf("%v: no error", args)
			}
		}
	})

	t.Run("ImportGoldAndScore", compareCLIImportGoldAndScore(data))
}

// compareCLIJSON returns a subtest checking the JSON diff's counts add up and its shape is as documented.
func compareCLIJSON(data string) func(*testing.T) {
	return func(t *testing.T) {
		r := decodeDiff(t, mustCLI(t, data, "compare", "carol@1", "carol@2", "--json"))
		n, e := r.Summary.Nodes, r.Summary.Edges
		if n.Before == 0 || n.Added+n.Removed+n.Changed == 0 {
			t.Fatalf("no difference between chunk sizes: %+v", n)
		}
		if n.Added-n.Removed != n.After-n.Before || e.Added-e.Removed != e.After-e.Before {
			t.Errorf("added - removed != after - before: %+v %+v", n, e)
		}
		if len(r.Nodes.Added) != n.Added || r.Score != nil {
			t.Errorf("lists or score wrong: %d added listed, score %v", len(r.Nodes.Added), r.Score)
		}
		// The JSON has the documented shape.
		var shape map[string]map[string]json.RawMessage
		out := mustCLI(t, data, "compare", "carol@2", "carol", "--json", "--undirected")
		if err := json.Unmarshal([]byte(out), &shape); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"added", "removed", "changed"} {
			if _, ok := shape["nodes"][k]; !ok {
				t.Errorf("nodes.%s missing", k)
			}
			if _, ok := shape["edges"][k]; !ok {
				t.Errorf("edges.%s missing", k)
			}
		}
	}
}

// compareCLIHumanNamesChanges returns a subtest checking the human summary names each edit's change.
func compareCLIHumanNamesChanges(data string) func(*testing.T) {
	return func(t *testing.T) {
		edits := filepath.Join(t.TempDir(), "edits.json")
		ops := `[{"op":"rename","key":"jacob marley","name":"Jacob Marley Sr."},{"op":"retype","key":"ebenezer scrooge","type":"Miser"},` +
			`{"op":"delete_node","key":"hamlet"},{"op":"add_edge","source":"jacob marley","label":"haunts","target":"ebenezer scrooge"}]`
		if err := os.WriteFile(edits, []byte(ops), 0o644); err != nil {
			t.Fatal(err)
		}
		mustCLI(t, data, "edit", "carol@1", edits)
		out := mustCLI(t, data, "compare", "carol@1", "carol@3")
		for _, want := range []string{
			`~ "Jacob Marley" -> "Jacob Marley Sr." (Person): name`,
			`~ "Ebenezer Scrooge" (Person -> Miser): type`,
			`- "Hamlet" (Person)`,
			`+ "Jacob Marley Sr." -haunts-> "Ebenezer Scrooge"`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("summary lacks %q:\n%s", want, out)
			}
		}
	}
}

// compareCLIImportGoldAndScore returns a subtest checking the scores against an imported WebNLG reference.
func compareCLIImportGoldAndScore(data string) func(*testing.T) {
	return func(t *testing.T) {
		src := testkit.Path(t, "gold/webnlg2020_text2rdf_seen_first200.xml")
		out := mustCLI(t, data, "compare", "--import-gold", src, "--format", "webnlg", "--name", "webnlg", "--limit", "12")
		if !strings.Contains(out, "imported 12 entries as webnlg@1 (reference)") {
			t.Fatalf("import: %s", out)
		}
		// Extract the same text: the document is the same (same content).
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := app.ReadGold("webnlg", raw, nil, 12)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := app.GoldDocument("webnlg", "webnlg", entries, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		text := filepath.Join(t.TempDir(), "webnlg.txt")
		if err := os.WriteFile(text, []byte(doc.Content), 0o644); err != nil {
			t.Fatal(err)
		}
		mustCLI(t, data, "extract", "--name", "webnlg", "--json", text)
		r := decodeDiff(t, mustCLI(t, data, "compare", "webnlg@1", "webnlg@2", "--json", "--ignore-type"))
		if r.Score == nil {
			t.Fatal("no score against the imported reference")
		}
		if r.Score.Nodes.Recall < 0.3 || r.Score.Nodes.Precision <= 0 {
			t.Errorf("nlp against 12 WebNLG entries: %+v", r.Score.Nodes)
		}
		human := mustCLI(t, data, "compare", "webnlg@1", "webnlg@2", "--ignore-type")
		if !strings.Contains(human, "score of webnlg@2 against the reference webnlg@1") {
			t.Errorf("human summary lacks the score:\n%s", human)
		}
		// nlp labels edges with verb phrases, not WebNLG's relation names:
		// only the unlabelled score finds relations.
		u := decodeDiff(t, mustCLI(t, data, "compare", "webnlg@1", "webnlg@2", "--json", "--ignore-type", "--ignore-labels", "--undirected"))
		if u.Score == nil || u.Score.Edges != u.Score.Unlabelled || u.Score.Edges.F1 <= r.Score.Edges.F1 {
			t.Errorf("unlabelled edge score %+v, labelled %+v", u.Score, r.Score.Edges)
		}
		human = mustCLI(t, data, "compare", "webnlg@1", "webnlg@2", "--ignore-type", "--ignore-labels", "--undirected")
		i, j := strings.Index(human, "edges (unlabelled)"), strings.Index(human, "edges (labelled)")
		if i < 0 || j < i {
			t.Errorf("human summary does not show the unlabelled then the labelled edge score:\n%s", human)
		}
	}
}
