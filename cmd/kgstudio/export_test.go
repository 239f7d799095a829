package main

import (
	"archive/zip"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// exportCLI is TestExport_CLI's data folder, holding people@1, and that version's JSON export.
type exportCLI struct {
	data string
	g    extract.Graph // set by jsonToStdout, read by the subtests after it
}

// TestExport_CLI extracts one document and checks the export command on its graph.
func TestExport_CLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := filepath.Join(t.TempDir(), "lincoln.txt")
	text := "Abraham Lincoln was born in Kentucky. Lincoln later moved to Illinois, where he met Mary Todd."
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := cli(t, "extract", "--data", data, "--name", "people", "--json", doc); err != nil {
		t.Fatalf("extract: %v\n%s", err, stderr)
	}

	x := &exportCLI{data: data}
	t.Run("JSONToStdout", x.jsonToStdout)
	t.Run("LatestToFile", x.latestToFile)
	t.Run("Chunks", x.chunks)
	t.Run("Namespace", x.namespace)
	t.Run("Cypher", x.cypher)
	t.Run("CSVFolder", x.csvFolder)
	t.Run("CSVZip", x.csvZip)
	t.Run("CSVIntoCSVFile", x.csvIntoCSVFile)
	t.Run("RefusesToOverwrite", x.refusesToOverwrite)
	t.Run("Errors", x.argumentErrors)
}

// jsonToStdout checks the JSON export to stdout keeps mentions and says so on stderr; it keeps the graph in x.g.
func (x *exportCLI) jsonToStdout(t *testing.T) {
	data := x.data
	out, stderr, err := cli(t, "export", "people@1", "--data", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if err := json.Unmarshal([]byte(out), &x.g); err != nil || len(x.g.Nodes) == 0 {
		t.Fatalf("json: %d nodes (%v)", len(x.g.Nodes), err)
	}
	g := x.g
	if len(g.Nodes[0].Mentions) == 0 {
		t.Fatal("json export lost the mentions")
	}
	if want := fmt.Sprintf("people@1: %d nodes, %d edges written as json to standard output", len(g.Nodes), len(g.Edges)); !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
}

// latestToFile checks the latest version exports to a GraphML file with the JSON export's nodes.
func (x *exportCLI) latestToFile(t *testing.T) {
	data, g := x.data, x.g
	path := filepath.Join(t.TempDir(), "g.graphml")
	out, stderr, err := cli(t, "export", "people", "--format", "graphml", "--out", path, "--data", data)
	if err != nil || out != "" {
		t.Fatalf("%v, stdout %q\n%s", err, out, stderr)
	}
	if want := "written as graphml to " + path; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not say %q", stderr, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []struct{} `xml:"graph>node"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || len(doc.Nodes) != len(g.Nodes) {
		t.Fatalf("graphml has %d nodes, json %d (%v)", len(doc.Nodes), len(g.Nodes), err)
	}
}

// chunks checks --chunks adds chunk nodes holding their text, linked to every node, in Cypher and JSON.
func (x *exportCLI) chunks(t *testing.T) {
	data, g := x.data, x.g
	out, _, err := cli(t, "export", "people@1", "--format", "cypher", "--chunks", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "lincoln.txt #0") || !strings.Contains(out, "source") {
		t.Errorf("no chunk node or source edge in:\n%.600s", out)
	}
	jsonOut, _, err := cli(t, "export", "people@1", "--chunks", "--data", data)
	if err != nil {
		t.Fatal(err)
	}
	var withChunks extract.Graph
	if err := json.Unmarshal([]byte(jsonOut), &withChunks); err != nil {
		t.Fatal(err)
	}
	if len(withChunks.Nodes) != len(g.Nodes)+1 || len(withChunks.Edges) != len(g.Edges)+len(g.Nodes) {
		t.Errorf("with chunks: %d nodes, %d edges; without: %d, %d", len(withChunks.Nodes), len(withChunks.Edges), len(g.Nodes), len(g.Edges))
	}
	for _, n := range withChunks.Nodes {
		if c, _ := n.Properties["content"].(string); n.Type == "Chunk" && !strings.Contains(c, "Lincoln") {
			t.Errorf("chunk node %s: content %q; want the chunk's text, as KAG's Chunk nodes hold it", n.Key, c)
		}
	}
}

// namespace checks --namespace prefixes Cypher labels and a bad namespace is refused.
func (x *exportCLI) namespace(t *testing.T) {
	data := x.data
	out, _, err := cli(t, "export", "people@1", "--format", "cypher", "--namespace", "People", "--data", data)
	if err != nil || !strings.Contains(out, ":`People.") {
		t.Fatalf("cypher with a namespace: %v %.300s", err, out)
	}
	if _, _, err := cli(t, "export", "people@1", "--namespace", "bad name", "--data", data); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Errorf("a bad namespace: %v", err)
	}
}

// cypher checks that the Cypher export merges.
func (x *exportCLI) cypher(t *testing.T) {
	data := x.data
	out, _, err := cli(t, "export", "people@1", "--format", "cypher", "--data", data)
	if err != nil || !strings.Contains(out, "MERGE") {
		t.Fatalf("cypher: %v %.100s", err, out)
	}
}

// csvFolder checks the CSV export into a folder writes nodes.csv with every node and edges.csv with its header.
func (x *exportCLI) csvFolder(t *testing.T) {
	data, g := x.data, x.g
	dir := filepath.Join(t.TempDir(), "neo4j")
	if _, stderr, err := cli(t, "export", "people@1", "--format", "csv", "--out", dir, "--data", data); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	nodes, err := os.ReadFile(filepath.Join(dir, "nodes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	edges, err := os.ReadFile(filepath.Join(dir, "edges.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(nodes), "\n"); got < len(g.Nodes)+1 {
		t.Fatalf("nodes.csv has %d lines for %d nodes", got, len(g.Nodes))
	}
	if !strings.HasPrefix(string(edges), ":START_ID,:END_ID,:TYPE") {
		t.Fatalf("edges.csv header: %.40s", edges)
	}
}

// csvZip checks the CSV export into a .zip holds nodes.csv and edges.csv.
func (x *exportCLI) csvZip(t *testing.T) {
	data := x.data
	path := filepath.Join(t.TempDir(), "people.zip")
	if _, stderr, err := cli(t, "export", "people@1", "--format", "csv", "--out", path, "--data", data); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "nodes.csv,edges.csv" {
		t.Fatalf("zip holds %v", names)
	}
}

// csvIntoCSVFile checks the CSV export into a .csv file is refused and creates nothing.
func (x *exportCLI) csvIntoCSVFile(t *testing.T) {
	data := x.data
	path := filepath.Join(t.TempDir(), "x.csv")
	_, _, err := cli(t, "export", "people@1", "--format", "csv", "--out", path, "--data", data)
	if err == nil || !strings.Contains(err.Error(), "folder or a .zip") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s was created: %v", path, err)
	}
}

// refusesToOverwrite checks an export over earlier work needs --force, and the cases around that rule.
func (x *exportCLI) refusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.json")
	if err := os.WriteFile(file, []byte("earlier work"), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "neo4j")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "nodes.csv"), []byte("earlier work"), 0o644); err != nil {
		t.Fatal(err)
	}
	zipFile := filepath.Join(dir, "g.zip")
	if err := os.WriteFile(zipFile, []byte("earlier work"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, format, out string }{
		{"File", "json", file},
		{"Folder", "csv", folder},
		{"Zip", "csv", zipFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x.refusedThenForced(t, tc.format, tc.out, folder)
		})
	}
	t.Run("EmptyTargets", func(t *testing.T) { x.emptyTargets(t, dir) })
	t.Run("ForceOverAnotherCSVExport", func(t *testing.T) { x.forceOverAnotherCSVExport(t, dir) })
	t.Run("OneFileFormatIntoFolder", func(t *testing.T) { x.oneFileFormatIntoFolder(t, dir) })
	t.Run("Help", func(t *testing.T) {
		_, stderr, err := cli(t, "export", "-h")
		if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "-force") {
			t.Fatalf("-h: %v, does not list --force:\n%s", err, stderr)
		}
	})
}

// refusedThenForced checks an export to out over earlier work is refused and leaves it, and --force replaces it.
func (x *exportCLI) refusedThenForced(t *testing.T, format, out, folder string) {
	data := x.data
	kept := func() string {
		p := out
		if out == folder {
			p = filepath.Join(folder, "nodes.csv")
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	_, _, err := cli(t, "export", "people@1", "--format", format, "--out", out, "--data", data)
	if err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v, want a refusal naming --force", err)
	}
	if got := kept(); got != "earlier work" {
		t.Fatalf("the refused export changed %s: %.40q", out, got)
	}
	if _, stderr, err := cli(t, "export", "people@1", "--format", format, "--out", out, "--force", "--data", data); err != nil {
		t.Fatalf("--force: %v\n%s", err, stderr)
	}
	if got := kept(); got == "earlier work" {
		t.Fatalf("--force left %s as it was", out)
	}
}

// emptyTargets checks an empty folder and an empty file in dir are written to without --force.
func (x *exportCLI) emptyTargets(t *testing.T, dir string) {
	data := x.data
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := cli(t, "export", "people@1", "--format", "csv", "--out", empty, "--data", data); err != nil {
		t.Fatalf("an empty folder is refused: %v\n%s", err, stderr)
	}
	emptyFile := filepath.Join(dir, "empty.graphml")
	if err := os.WriteFile(emptyFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := cli(t, "export", "people@1", "--format", "graphml", "--out", emptyFile, "--data", data); err != nil {
		t.Fatalf("an empty file is refused: %v\n%s", err, stderr)
	}
}

// forceOverAnotherCSVExport checks --force over another neo4j export removes its CSV files alone and imports back.
func (x *exportCLI) forceOverAnotherCSVExport(t *testing.T, dir string) {
	data := x.data
	// A folder holding another neo4j export: header files and a
	// relationships file would be read with ours on import.
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"nodes_header.csv":         "id:ID,name,:LABEL\n",
		"relationships.csv":        ":START_ID,:END_ID,:TYPE\n1,2,KNOWS\n",
		"relationships_header.csv": ":START_ID,:END_ID,:TYPE\n",
		"README.txt":               "notes",
	} {
		if err := os.WriteFile(filepath.Join(other, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, err := cli(t, "export", "people@1", "--format", "csv", "--out", other, "--force", "--data", data)
	if err != nil {
		t.Fatalf("--force: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "relationships.csv") {
		t.Errorf("stderr does not name the removed files:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(other, "README.txt")); err != nil {
		t.Errorf("a file that is not CSV was removed: %v", err)
	}
	if _, stderr, err := cli(t, "import", "again", other, "--data", data); err != nil {
		t.Fatalf("the folder --force wrote does not import: %v\n%s", err, stderr)
	}
	out, stderr, err := cli(t, "compare", "people@1", "again@1", "--data", data)
	if err != nil || !strings.Contains(out, "+0 added, -0 removed, ~0 changed") {
		t.Fatalf("compare: %v\n%s%s", err, out, stderr)
	}
}

// oneFileFormatIntoFolder checks a one-file format into the folder dir is refused, with or without --force.
func (x *exportCLI) oneFileFormatIntoFolder(t *testing.T, dir string) {
	data := x.data
	for _, force := range []bool{false, true} {
		args := []string{"export", "people@1", "--format", "json", "--out", dir, "--data", data}
		if force {
			args = append(args, "--force")
		}
		_, _, err := cli(t, args...)
		if err == nil || !strings.Contains(err.Error(), "is a folder") {
			t.Errorf("json into a folder (force %v): %v, want an error saying it is a folder", force, err)
		}
	}
}

// argumentErrors checks that bad export arguments fail.
func (x *exportCLI) argumentErrors(t *testing.T) {
	data := x.data
	for name, args := range map[string][]string{
		"CSVWithoutOut": {"export", "people@1", "--format", "csv"},
		"UnknownFormat": {"export", "people@1", "--format", "pdf"},
		"NoVersion":     {"export"},
		"BadVersion":    {"export", "people@x"},
		"Missing":       {"export", "nobody@1"},
	} {
		if _, _, err := cli(t, append(args, "--data", data)...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
