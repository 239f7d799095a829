package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// TestSchemaSuggest_ReDocRED drafts a schema from ten Re-DocRED documents
// offline: it proposes Person, Organization and Location and at least
// three relation types, the draft is valid KAG DSL, and `schema import`
// stores it.
func TestSchemaSuggest_ReDocRED(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	var docs []struct {
		Title string     `json:"title"`
		Sents [][]string `json:"sents"`
	}
	if err := json.Unmarshal(testkit.Read(t, "gold/redocred_dev_revised_first100.json"), &docs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for _, d := range docs[:10] {
		var b strings.Builder
		b.WriteString(d.Title + "\n\n")
		for _, s := range d.Sents {
			b.WriteString(strings.Join(s, " ") + " ")
		}
		f := filepath.Join(dir, strings.ReplaceAll(d.Title, "/", "_")+".txt")
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	data := t.TempDir()
	out := filepath.Join(dir, "draft.schema")
	mustCLI(t, data, append([]string{"schema", "suggest", "Docs"}, append(files, "--out", out)...)...)
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := app.ParseSchemaFile("draft.schema", text, "")
	if err != nil {
		t.Fatalf("the draft does not parse: %v\n%s", err, text)
	}
	types := map[string]bool{}
	relations := 0
	for _, ty := range sc.Types {
		types[ty.Name] = true
		relations += len(ty.Relations)
	}
	for _, want := range []string{"Person", "Organization", "Location"} {
		if !types[want] {
			t.Errorf("no %s type in the draft:\n%s", want, text)
		}
	}
	if relations < 3 {
		t.Errorf("%d relation types, want at least 3:\n%s", relations, text)
	}
	if probs := schema.Validate(sc); len(probs) > 0 {
		t.Errorf("the draft has problems: %v", probs)
	}
	if got := mustCLI(t, data, "schema", "import", out, "--name", "docs"); strings.TrimSpace(got) != "docs@1" {
		t.Fatalf("import printed %q", got)
	}
	// Nothing was stored by suggesting: no document, no extraction.
	if got := mustCLI(t, data, "doc", "list"); strings.TrimSpace(got) != "" {
		t.Fatalf("suggest stored documents:\n%s", got)
	}
}
