package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract/schema"
)

func kagFiles(t *testing.T) []string {
	t.Helper()
	return testkit.Glob(t, "kag-schemas", "*.schema")
}

// TestSchemaCLI_KAGFolder imports every shared KAG schema, imports it again
// (same version), and exports it in both formats back to an equal schema.
func TestSchemaCLI_KAGFolder(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	for _, f := range kagFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := schema.ParseKAGString(string(src))
			if err != nil {
				t.Fatal(err)
			}
			ref := strings.TrimSpace(mustCLI(t, data, "schema", "import", f))
			wantName := want.Namespace
			if wantName == "" {
				wantName = strings.TrimSuffix(filepath.Base(f), ".schema")
			}
			if ref != wantName+"@1" {
				t.Fatalf("import printed %q, want %s@1", ref, wantName)
			}
			if again := strings.TrimSpace(mustCLI(t, data, "schema", "import", f)); again != ref {
				t.Fatalf("re-import printed %q, want %q", again, ref)
			}
			kag := mustCLI(t, data, "schema", "export", ref)
			got, err := schema.ParseKAGString(kag)
			if err != nil {
				t.Fatalf("exported KAG does not parse: %v\n%s", err, kag)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("KAG export differs from the file:\n%s", kag)
			}
			js := mustCLI(t, data, "schema", "export", wantName, "--format", "json")
			gotJ, err := schema.ParseJSON([]byte(js))
			if err != nil {
				t.Fatal(err)
			}
			if gotJ.Name != wantName {
				t.Fatalf("JSON export names %q", gotJ.Name)
			}
			gotJ.Name = ""
			wantJ, _ := schema.ParseJSON(schema.FormatJSON(want))
			if !reflect.DeepEqual(gotJ, wantJ) || schema.Hash(gotJ) != schema.Hash(want) {
				t.Fatalf("JSON export differs from the file")
			}
		})
	}
}

func TestSchemaCLI_Versions(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	dir := t.TempDir()
	f := filepath.Join(dir, "people.schema")
	write := func(s string) {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Person(人): EntityType\n")
	if got := mustCLI(t, data, "schema", "import", f); got != "people@1\n" {
		t.Fatalf("import: %q", got)
	}
	write("Person(人): EntityType\nCity(城市): EntityType\n")
	if got := mustCLI(t, data, "schema", "import", f, "--name", "people"); got != "people@2\n" {
		t.Fatalf("changed import: %q", got)
	}
	if got := mustCLI(t, data, "schema", "export", "people@1"); got != "Person(人): EntityType\n" {
		t.Fatalf("export v1: %q", got)
	}
	list := mustCLI(t, data, "schema", "list")
	if !strings.Contains(list, "people@2\t2 types") || !strings.Contains(list, "default@1\t11 types") {
		t.Fatalf("list: %q", list)
	}
	t.Run("Errors", func(t *testing.T) {
		write("Person(人): EntityType\n    relations:\n        knows(认识): Nobody\n")
		_, err := runCLI(t, data, "schema", "import", f)
		if err == nil || !strings.Contains(err.Error(), `missing type "Nobody"`) {
			t.Fatalf("invalid schema: %v", err)
		}
		write("Person(人): EntityType\n  broken line without colon\n")
		if _, err := runCLI(t, data, "schema", "import", f); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Fatalf("broken DSL: %v", err)
		}
		write("\xEF\xBB\xBF \n")
		if _, err := runCLI(t, data, "schema", "import", f); err == nil ||
			!strings.Contains(err.Error(), filepath.Base(f)) || !strings.Contains(err.Error(), "file is empty") {
			t.Fatalf("empty file: %v", err)
		}
		if _, err := runCLI(t, data, "schema", "import", filepath.Dir(f)); err == nil || !strings.Contains(err.Error(), "is a folder") {
			t.Fatalf("folder: %v", err)
		}
		if _, err := runCLI(t, data, "schema", "export", "people@9"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("missing version: %v", err)
		}
		if _, err := runCLI(t, data, "schema", "export", "people", "--format", "xml"); err == nil {
			t.Fatal("unknown format accepted")
		}
	})
}

// `schema import FILE.rule` attaches a KAG rule file's concept rules to
// the schema its namespace names, as a new version; the export carries
// them; the same file again adds nothing; a rule file for a namespace no
// schema has is refused, naming it.
func TestSchemaCLI_ImportRules(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	rules := testkit.Path(t, "kag-rules/RiskMining.rule")
	if _, err := runCLI(t, data, "schema", "import", rules); err == nil || !strings.Contains(err.Error(), "no schema has the namespace RiskMining") {
		t.Fatalf("rules before their schema: %v", err)
	}
	mustCLI(t, data, "schema", "import", testkit.Path(t, "kag-schemas/RiskMining.schema"), "--name", "risk")
	if got := mustCLI(t, data, "schema", "import", rules); got != "risk@2\n" {
		t.Fatalf("import rules: %q", got)
	}
	if got := mustCLI(t, data, "schema", "import", rules); got != "risk@2\n" {
		t.Fatalf("import the same rules again: %q", got)
	}
	out := mustCLI(t, data, "schema", "export", "risk@2")
	if !strings.Contains(out, "`TaxOfRiskUser`/`赌博App老板`:\n    rule: [[") || !strings.Contains(out, `s.riskMark like "%赌博%"`) {
		t.Fatalf("export lacks the concept rules:\n%s", out)
	}
	if strings.Contains(mustCLI(t, data, "schema", "export", "risk@1"), "赌博App老板") {
		t.Fatal("version 1 changed")
	}
	// A rule file with mistakes is stored and each mistake is named.
	bad := filepath.Join(t.TempDir(), "bad.rule")
	if err := os.WriteFile(bad, []byte("namespace RiskMining\n\n`TaxOfRiskUser`/`x`:\n    rule: [[\n"+
		"        Define (s:Persn)-[p:belongTo]->(o:`TaxOfRiskUser`/`x`) { Structure { (s) } Constraint { } }\n    ]]\n\n"+
		"`TaxOfRiskUser`/`y`:\n    rule: [[\n        Define (s:Person)-[p:r]->(o:App) { Structure { (s)-[:holdShare]->(c) } Constraint { } }\n    ]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := cli(t, "schema", "import", bad, "--name", "risk", "--data", data)
	if err != nil || !strings.Contains(stderr, "concept rule `TaxOfRiskUser`/`x`: s is typed Persn, which the schema does not declare") ||
		!strings.Contains(stderr, "concept rule `TaxOfRiskUser`/`y`: rule r: its object o appears in no STRUCTURE path") {
		t.Errorf("a rule file with mistakes: %v, stderr %q", err, stderr)
	}
}
