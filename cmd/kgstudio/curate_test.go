package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// scroogeAnswer names Scrooge twice: as "Ebenezer Scrooge" and as
// "Mr. Scrooge", each with an edge to Marley, and one edge between them.
const scroogeAnswer = "entity<|#|>Ebenezer Scrooge<|#|>person<|#|>A squeezing old sinner.\n" +
	"entity<|#|>Mr. Scrooge<|#|>person<|#|>He signed the register.\n" +
	"entity<|#|>Jacob Marley<|#|>person<|#|>Scrooge's dead partner.\n" +
	"relation<|#|>Ebenezer Scrooge<|#|>Jacob Marley<|#|>partnership<|#|>Partners for years.\n" +
	"relation<|#|>Mr. Scrooge<|#|>Jacob Marley<|#|>partnership<|#|>Scrooge and Marley.\n" +
	"relation<|#|>Mr. Scrooge<|#|>Ebenezer Scrooge<|#|>same<|#|>The same man.\n<|COMPLETE|>"

// A graph holding "Ebenezer Scrooge" and "Mr. Scrooge" lists them as
// duplicate candidates; merging them makes version 2 (parent 1) with one
// node fewer, the kept node holding the other name as an alias and all its
// edges, while version 1 stays as it was.
func TestDuplicatesAndMerge_CLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)
	srv := fakellm.New(t, fakellm.Options{Queue: []string{scroogeAnswer}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")
	mustCLI(t, data, "extract", "--name", "m", "--strategy", "tuple", "--provider", "openai", "--max-gleaning", "0", doc)

	var cs []curate.Candidate
	out := mustCLI(t, data, "duplicates", "m@1", "--json")
	if err := json.Unmarshal([]byte(out), &cs); err != nil {
		t.Fatalf("duplicates --json %q: %v", out, err)
	}
	if len(cs) == 0 || cs[0].Keep.Name != "Ebenezer Scrooge" || cs[0].Drop.Name != "Mr. Scrooge" || cs[0].Reasons[0].Kind != curate.ReasonTitle {
		t.Fatalf("candidates %+v, want Mr. Scrooge into Ebenezer Scrooge first", cs)
	}
	text := mustCLI(t, data, "duplicates", "m@1")
	if !strings.Contains(text, "Ebenezer Scrooge [ebenezer scrooge]") || !strings.Contains(text, "Mr. Scrooge [mr. scrooge]") {
		t.Errorf("duplicates text %q lacks names and keys", text)
	}

	var v struct {
		Version  int `json:"version"`
		ParentID int `json:"parent_id"`
		Nodes    int `json:"nodes"`
		Edges    int `json:"edges"`
	}
	out = mustCLI(t, data, "merge", "m@1", "Ebenezer Scrooge", "mr. scrooge", "--json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("merge --json %q: %v", out, err)
	}
	if v.Version != 2 || v.ParentID == 0 || v.Nodes != 2 || v.Edges != 1 {
		t.Errorf("merged version %+v, want version 2 with a parent, 2 nodes and 1 edge", v)
	}
	var g struct {
		Nodes []struct {
			Key        string         `json:"key"`
			Properties map[string]any `json:"properties"`
		} `json:"nodes"`
		Edges []struct {
			Source string  `json:"source"`
			Weight float64 `json:"weight"`
		} `json:"edges"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "export", "m@2", "--format", "json")), &g); err != nil {
		t.Fatal(err)
	}
	for _, n := range g.Nodes {
		if n.Key == "ebenezer scrooge" {
			if al, _ := n.Properties["aliases"].([]any); len(al) != 1 || al[0] != "Mr. Scrooge" {
				t.Errorf("kept node aliases %v", n.Properties["aliases"])
			}
		}
	}
	if len(g.Edges) != 1 || g.Edges[0].Source != "ebenezer scrooge" || g.Edges[0].Weight < 2 {
		t.Errorf("merged edges %+v, want one folded edge from ebenezer scrooge", g.Edges)
	}
	var v1 struct {
		Nodes int `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "m@1", "--json")), &v1); err != nil || v1.Nodes != 3 {
		t.Errorf("version 1 has %d nodes (%v), want its 3 untouched", v1.Nodes, err)
	}
	// The next run of the extraction applies the accepted merge and says so.
	mustCLI(t, data, "extract", "--name", "m", "--strategy", "tuple", "--provider", "openai", "--max-gleaning", "0", doc)
	var v3 struct {
		Version       int    `json:"version"`
		Nodes         int    `json:"nodes"`
		Note          string `json:"note"`
		MergesApplied int    `json:"merges_applied"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "m@3", "--json")), &v3); err != nil {
		t.Fatal(err)
	}
	if v3.Nodes != 2 || !strings.Contains(v3.Note, "curation applied: 1 merge (1 node folded)") || v3.MergesApplied != 1 {
		t.Errorf("next run %+v, want the merge applied and noted", v3)
	}
	if out := mustCLI(t, data, "duplicates", "m@3"); strings.Contains(out, "Mr. Scrooge [") {
		t.Errorf("duplicates of the next run still list Mr. Scrooge: %s", out)
	}
	if _, err := runCLI(t, data, "merge", "m@1", "Ebenezer Scrooge", "Nobody"); err == nil {
		t.Error("merge of an unknown node succeeded")
	}

	checkCurateEdits(t, data)
}

// checkCurateEdits checks that an edit file on m@3 makes m@4, which version show and compare report.
func checkCurateEdits(t *testing.T, data string) {
	t.Helper()
	// An edit file makes version 4 whose edit log version show prints.
	edits := writeFile(t, "edits.json", `[{"op":"retype","key":"jacob marley","type":"ghost"}]`)
	if out := mustCLI(t, data, "edit", "m@3", edits); !strings.HasPrefix(out, "m@4: 2 nodes") {
		t.Errorf("edit printed %q", out)
	}
	var v4 struct {
		ParentID int           `json:"parent_id"`
		Edits    []curate.Edit `json:"edits"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "m@4", "--json")), &v4); err != nil || len(v4.Edits) != 1 || v4.Edits[0].Type != "ghost" {
		t.Errorf("version show m@4: %+v, %v", v4, err)
	}
	if out := mustCLI(t, data, "version", "show", "m@4"); !strings.Contains(out, `edit 1:    retype jacob marley to "ghost"`) {
		t.Errorf("version show text lacks the edit log: %s", out)
	}
	// Compare shows the retype as one changed node, its edges matched.
	var retyped struct {
		Nodes struct {
			Added, Removed []any
			Changed        []struct {
				KeyA   string   `json:"key_a"`
				Fields []string `json:"fields"`
				TypeB  string   `json:"type_b"`
			}
		} `json:"nodes"`
		Edges struct{ Added, Removed, Changed []any } `json:"edges"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "compare", "m@3", "m@4", "--json")), &retyped); err != nil {
		t.Fatal(err)
	}
	if n, e := retyped.Nodes, retyped.Edges; len(n.Added)+len(n.Removed) != 0 || len(n.Changed) != 1 || n.Changed[0].KeyA != "jacob marley" ||
		strings.Join(n.Changed[0].Fields, ",") != "type" || n.Changed[0].TypeB != "ghost" || len(e.Added)+len(e.Removed)+len(e.Changed) != 0 {
		t.Errorf("compare m@3 m@4 after a retype: %+v", retyped)
	}
	if _, err := runCLI(t, data, "edit", "m@3", writeFile(t, "bad.json", `[{"op":"retype","key":"nobody","type":"x"}]`)); err == nil || !strings.Contains(err.Error(), `no node with key "nobody"`) {
		t.Errorf("a bad edit: %v", err)
	}
}

// A run naming a reference version (--reference NAME@V) turns the
// extracted nodes matching its names or aliases into its nodes, counted
// as injected, and holds the reference's other nodes too (London); an
// unknown reference is refused before anything runs.
func TestExtract_Reference(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	domain := writeFile(t, "domain.json", `{"nodes":[
		{"key":"Q1","name":"Ebenezer Scrooge","type":"Character","properties":{"born":1790,"aliases":["Mr. Scrooge"]}},
		{"key":"Q2","name":"London","type":"City"}],"edges":[]}`)
	mustCLI(t, data, "import", "domain", domain)
	doc := writeFile(t, "marley.txt", marleyText)
	srv := fakellm.New(t, fakellm.Options{Queue: []string{scroogeAnswer}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")
	if _, err := runCLI(t, data, "extract", "--name", "m", "--strategy", "tuple", "--provider", "openai", "--reference", "nobody@1", doc); err == nil || !strings.Contains(err.Error(), `reference "nobody@1": no such version`) {
		t.Errorf("unknown reference: %v", err)
	}
	mustCLI(t, data, "extract", "--name", "m", "--strategy", "tuple", "--provider", "openai", "--max-gleaning", "0", "--reference", "domain", doc)
	var v struct {
		Nodes    int `json:"nodes"`
		Edges    int `json:"edges"`
		Injected int `json:"injected"`
		Config   struct {
			Reference string `json:"reference"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "m@1", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Nodes != 3 || v.Edges != 1 || v.Injected != 2 || v.Config.Reference != "domain@1" {
		t.Errorf("run with a reference: %+v, want 3 nodes (Q1, Jacob Marley and the reference's London), 2 injected, reference domain@1", v)
	}
	var g struct {
		Nodes []struct {
			Key        string         `json:"key"`
			Name       string         `json:"name"`
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "export", "m@1", "--format", "json")), &g); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range g.Nodes {
		if n.Key == "Q1" {
			found = n.Name == "Ebenezer Scrooge" && n.Type == "Character" && n.Properties["born"] == 1790.0
		}
	}
	if !found {
		t.Errorf("no reference node Q1 with its type and properties in %+v", g.Nodes)
	}
}

// KAG's own domain KG example imports from its folder (nodes.json,
// edges.json) and, named as the reference of a run over its document,
// turns the extracted names it lists into its nodes and is written beside
// them: its 25 nodes and 19 isA edges join the run's graph.
func TestExtract_ReferenceKAGDomainKG(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	dir := testkit.Path(t, "corpora/kag-domain_kg")
	if out := mustCLI(t, data, "import", "domain", dir); !strings.HasPrefix(out, "domain@1: 25 nodes, 19 edges (imported from kag-domain_kg/ (kag))") {
		t.Errorf("import printed %q", out)
	}
	answer := "entity<|#|>生长激素<|#|>Concept<|#|>A peptide hormone of the anterior pituitary.\n" +
		"entity<|#|>ACTH<|#|>Concept<|#|>Adrenocorticotropic hormone.\n" +
		"entity<|#|>脑垂体<|#|>Organ<|#|>The pituitary gland.\n" +
		"relation<|#|>脑垂体<|#|>生长激素<|#|>secretes<|#|>The pituitary secretes growth hormone.\n<|COMPLETE|>"
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: answer}}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")
	mustCLI(t, data, "extract", "--name", "hgh", "--strategy", "tuple", "--provider", "openai", "--max-gleaning", "0",
		"--reference", "domain@1", filepath.Join(dir, "doc.txt"))
	var v struct {
		Nodes    int `json:"nodes"`
		Edges    int `json:"edges"`
		Injected int `json:"injected"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "hgh@1", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Nodes != 26 || v.Edges != 20 || v.Injected != 2 {
		t.Errorf("run: %+v, want 26 nodes (the domain's 25 and 脑垂体) and 20 edges (its 19 isA and secretes), 2 nodes injected (生长激素, ACTH)", v)
	}
	out := mustCLI(t, data, "version", "show", "hgh@1")
	if !strings.Contains(out, "curation:  2 injected") {
		t.Errorf("version show: %s", out)
	}
}
