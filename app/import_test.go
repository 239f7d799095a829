package app

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgstudio/kgstudio/extract"

	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/export"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
	"github.com/kgstudio/kgstudio/store"
)

// importApps opens an app on a new SQLite database and, when the test
// server is set, one on a new PostgreSQL database, by name.
func importApps(t *testing.T) map[string]*App {
	t.Helper()
	all := map[string]store.Options{"SQLite": {DataDir: t.TempDir()}}
	if testkit.PostgresURL(t) != "" {
		all["PostgreSQL"] = testPostgres(t)
	}
	apps := map[string]*App{}
	for name, opts := range all {
		st, err := store.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		apps[name] = newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline})
	}
	return apps
}

// undirectedGraphML is a graph as NetworkX writes an undirected one, with
// one edge marked directed in it.
const undirectedGraphML = `<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="type" attr.type="string" />
  <key id="d1" for="edge" attr.name="label" attr.type="string" />
  <graph edgedefault="undirected">
    <node id="Scrooge"><data key="d0">person</data></node>
    <node id="Marley"><data key="d0">person</data></node>
    <node id="Fred"><data key="d0">person</data></node>
    <edge source="Scrooge" target="Marley"><data key="d1">partner of</data></edge>
    <edge source="Fred" target="Scrooge" directed="true"><data key="d1">nephew of</data></edge>
  </graph>
</graphml>`

// An undirected GraphML edge is stored marked undirected, on both
// databases; exported as GraphML and imported again it compares equal,
// and so does the same edge written the other way round.
func TestImportGraph_UndirectedGraphML(t *testing.T) {
	ctx := context.Background()
	for name, a := range importApps(t) {
		t.Run(name, func(t *testing.T) {
			v1, err := a.Curation.ImportGraph(ctx, "u", "carol.graphml", []byte(undirectedGraphML), "")
			if err != nil {
				t.Fatal(err)
			}
			g, err := a.store.LoadGraph(ctx, v1.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			undirected := 0
			for _, e := range g.Edges {
				if e.Undirected() {
					undirected++
					if e.Source != "Scrooge" || e.Target != "Marley" {
						t.Errorf("the undirected edge is %s -> %s, want the file's order Scrooge -> Marley", e.Source, e.Target)
					}
				}
			}
			if len(g.Edges) != 2 || undirected != 1 {
				t.Fatalf("%d edges, %d undirected; want 2, 1: %+v", len(g.Edges), undirected, g.Edges)
			}
			var buf bytes.Buffer
			if err := export.GraphML(&buf, g); err != nil {
				t.Fatal(err)
			}
			v2, err := a.Curation.ImportGraph(ctx, "u2", "u.graphml", buf.Bytes(), "")
			if err != nil {
				t.Fatal(err)
			}
			cmp, err := a.Comparisons.Compare(ctx, v1.ID, v2.ID, diff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Result.IsEmpty() {
				t.Errorf("export -> import differs: %+v", cmp.Result)
			}
			// The same file with the undirected edge written Marley, Scrooge.
			reversed := bytes.Replace([]byte(undirectedGraphML), []byte(`source="Scrooge" target="Marley"`), []byte(`source="Marley" target="Scrooge"`), 1)
			v3, err := a.Curation.ImportGraph(ctx, "u3", "reversed.graphml", reversed, "")
			if err != nil {
				t.Fatal(err)
			}
			cmp, err = a.Comparisons.Compare(ctx, v1.ID, v3.ID, diff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Result.IsEmpty() {
				t.Errorf("the undirected edge read the other way round is another edge: %+v", cmp.Result.Edges)
			}
		})
	}
}

// A neo4j-admin import whose headers are separate files (nodes_header.csv
// with data parts, relationships_header.csv with relationships.csv)
// imports from a folder and from a zip, on both databases.
func TestImportGraph_HeaderFiles(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"nodes_header.csv":         "id:ID,name,:LABEL\n",
		"nodes-part1.csv":          "scrooge,Ebenezer Scrooge,Person\nmarley,Jacob Marley,Person\n",
		"nodes-part2.csv":          "london,London,Place\n",
		"relationships_header.csv": ":START_ID,:END_ID,:TYPE\n",
		"relationships.csv":        "scrooge,marley,PARTNER_OF\nscrooge,london,LIVES_IN\n",
	}
	dir := t.TempDir()
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create("carol/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, a := range importApps(t) {
		t.Run(name, func(t *testing.T) {
			fromDir, err := a.Curation.ImportGraphDir(ctx, "folder", dir)
			if err != nil {
				t.Fatal(err)
			}
			fromZip, err := a.Curation.ImportGraph(ctx, "zip", "carol.zip", zbuf.Bytes(), "")
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []record.Version{fromDir, fromZip} {
				if v.Nodes != 3 || v.Edges != 2 {
					t.Errorf("%s: %d nodes, %d edges; want 3, 2", v.Extraction, v.Nodes, v.Edges)
				}
			}
			cmp, err := a.Comparisons.Compare(ctx, fromDir.ID, fromZip.ID, diff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Result.IsEmpty() {
				t.Errorf("folder and zip differ: %+v", cmp.Result)
			}
			// A broken part is refused naming the folder, file and line.
			bad := t.TempDir()
			for n, text := range files {
				if n == "nodes-part2.csv" {
					text = "london,London\n"
				}
				if err := os.WriteFile(filepath.Join(bad, n), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err = a.Curation.ImportGraphDir(ctx, "bad", bad)
			want := filepath.Base(bad) + "/nodes-part2.csv line 1: wrong number of fields"
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(want)) {
				t.Errorf("broken part: %v, want %q", err, want)
			}
		})
	}
}

// TestImportGraph_VersionJSON: an imported version's JSON lists its
// documents as an empty list, not null, on both databases, so a client
// can walk it like any other version's.
func TestImportGraph_VersionJSON(t *testing.T) {
	t.Parallel()
	for name, a := range importApps(t) {
		t.Run(name, func(t *testing.T) {
			v, err := a.Curation.ImportGraph(context.Background(), "g", "g.json", []byte(`{"nodes":[{"key":"a"}]}`), "")
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(VersionJSONOf(v))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(`"document_ids":[]`)) {
				t.Errorf("version JSON %s", b)
			}
		})
	}
}
