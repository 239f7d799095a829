package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A version exported as JSON or GraphML imports back as a version of its
// own that compares equal to it; a file that is not a graph is refused
// with a message saying so.
func TestImport_CLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)
	mustCLI(t, data, "extract", "--name", "m", "--strategy", "nlp", doc)
	dir := t.TempDir()
	mustCLI(t, data, "export", "m@1", "--format", "csv", "--out", filepath.Join(dir, "csv"))
	mustZip(t, filepath.Join(dir, "m.zip"), filepath.Join(dir, "csv"))
	for _, f := range []struct{ format, file, name string }{
		{"json", "m.json", "mj"},
		{"graphml", "m.graphml", "mg"},
		{"csv", "csv", "mc"},
		{"csv", "m.zip", "mz"},
	} {
		path := filepath.Join(dir, f.file)
		if f.format != "csv" {
			mustCLI(t, data, "export", "m@1", "--format", f.format, "--out", path)
		}
		var v struct {
			Version     int            `json:"version"`
			Nodes       int            `json:"nodes"`
			DocumentIDs []int          `json:"document_ids"`
			Config      map[string]any `json:"config"`
		}
		if err := json.Unmarshal([]byte(mustCLI(t, data, "import", f.name, path, "--json")), &v); err != nil {
			t.Fatal(err)
		}
		if v.Version != 1 || v.Nodes == 0 || len(v.DocumentIDs) != 0 || v.Config["strategy"] != "" {
			t.Errorf("%s import: %+v, want a version with nodes, no documents and no strategy", f.file, v)
		}
		var res struct {
			Nodes struct{ Added, Removed, Changed []any } `json:"nodes"`
			Edges struct{ Added, Removed, Changed []any } `json:"edges"`
		}
		out := mustCLI(t, data, "compare", "m@1", f.name+"@1", "--json")
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Nodes.Added == nil {
			t.Fatalf("compare --json %.200q: %v", out, err)
		}
		if n := len(res.Nodes.Added) + len(res.Nodes.Removed) + len(res.Nodes.Changed) + len(res.Edges.Added) + len(res.Edges.Removed) + len(res.Edges.Changed); n != 0 {
			t.Errorf("%s import differs from the export in %d items: %+v", f.file, n, res)
		}
	}
	for _, c := range []struct{ file, content, want string }{
		{"notes.txt", "Marley was dead.", "give the format (json, graphml or csv)"},
		{"people.csv", "name,age\nAda,36\n", "people.csv: line 1: not a neo4j CSV export"},
		{"notes.json", `{"title":"not a graph"}`, "not a JSON graph"},
		{"notes.graphml", "Marley was dead.", "not a GraphML graph"},
	} {
		_, err := runCLI(t, data, "import", "bad", writeFile(t, c.file, c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("import of %s: %v, want an error saying %q", c.file, err, c.want)
		}
	}
}

// mustZip packs the files of dir into a zip at path.
func mustZip(t *testing.T, path, dir string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create("export/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestImport_Retry: retrying an imported version says it was not
// extracted.
func TestImport_Retry(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	path := writeFile(t, "g.json", `{"nodes":[{"key":"a","name":"A"},{"key":"b","name":"B"}],"edges":[{"source":"a","target":"b","label":"knows","weight":1}]}`)
	mustCLI(t, data, "import", "g", path)
	if _, err := runCLI(t, data, "retry", "g@1"); err == nil || !strings.Contains(err.Error(), "made from a graph") {
		t.Fatalf("retry of an import: %v", err)
	}
}
