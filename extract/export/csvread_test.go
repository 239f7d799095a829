package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// What CSV writes (the neo4j-admin layout) reads back the same, from the
// two files or a zip of them: keys, names, types and labels as written
// (not as sanitised labels), descriptions, keywords, weights and typed
// properties.
func TestReadCSV_RoundTrip(t *testing.T) {
	t.Parallel()
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "ebenezer scrooge", Name: "Ebenezer Scrooge", Type: "old person", Description: "A miser, \"Scrooge\".\nHe signed it.",
				Properties: map[string]any{"aliases": []any{"Mr. Scrooge"}, "type_counts": map[string]any{"person": 2.0}, "age": 60.0, "rich": true, "name": "Scrooge <&>"}},
			{Key: "jacob marley", Name: "Jacob Marley", Type: "person", Properties: map[string]any{"score": 0.5}},
			{Key: "東京", Name: "東京", Type: "地点"},
		},
		Edges: []extract.Edge{
			{Source: "ebenezer scrooge", Label: "partner of", Target: "jacob marley", Keywords: "business", Weight: 2.5,
				Properties: map[string]any{"since": 7.0, "label": "x"}},
			{Source: "jacob marley", Label: "lived in", Target: "東京", Weight: 1},
		},
	}
	want := jsonForm(t, g)
	var nodes, edges bytes.Buffer
	if err := CSV(&nodes, &edges, g); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV([]CSVFile{{Name: EdgesFile, Data: edges.Bytes()}, {Name: NodesFile, Data: nodes.Bytes()}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonForm(t, got); !reflect.DeepEqual(got, want) {
		t.Errorf("csv round trip:\n got %+v\nwant %+v", got, want)
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, b := range map[string][]byte{"export/" + NodesFile: nodes.Bytes(), "export/" + EdgesFile: edges.Bytes(), "export/README.txt": []byte("x")} {
		w, _ := zw.Create(name)
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = Read(zbuf.Bytes(), "csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonForm(t, got); !reflect.DeepEqual(got, want) {
		t.Errorf("zip round trip:\n got %+v\nwant %+v", got, want)
	}
}

// Files from neo4j itself: an ID space, typed and array columns, no name
// or type column, a node with two labels (the first types it, the others
// are kept in "labels"); and apoc.export.csv.all's single file.
func TestReadCSV_Neo4j(t *testing.T) {
	t.Parallel()
	people := "personId:ID(Person),name,born:int,tags:string[],:LABEL\np1,Ada,1815,math;poetry,Person;Writer\np2,Charles,,,Person\n"
	rels := ":START_ID(Person),:END_ID(Person),:TYPE,since:long\np1,p2,KNOWS,1833\n"
	got, err := ReadCSV([]CSVFile{{Name: "people.csv", Data: []byte(people)}, {Name: "knows.csv", Data: []byte(rels)}})
	if err != nil {
		t.Fatal(err)
	}
	want := extract.Graph{
		Nodes: []extract.Node{
			{Key: "Person:p1", Name: "Ada", Type: "Person", Properties: map[string]any{"personId": "p1", "born": int64(1815), "tags": []any{"math", "poetry"}, "labels": []any{"Writer"}}},
			{Key: "Person:p2", Name: "Charles", Type: "Person", Properties: map[string]any{"personId": "p2"}},
		},
		Edges: []extract.Edge{{Source: "Person:p1", Target: "Person:p2", Label: "KNOWS", Weight: 1, Properties: map[string]any{"since": int64(1833)}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("neo4j-admin files:\n got %+v\nwant %+v", got, want)
	}

	apoc, err := os.ReadFile(filepath.Join("testdata", "apoc.all.csv"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = Read(apoc, "csv")
	if err != nil {
		t.Fatal(err)
	}
	want = extract.Graph{
		Nodes: []extract.Node{
			{Key: "ada lovelace", Name: "Ada Lovelace", Type: "Person", Properties: map[string]any{"born": int64(1815), "score": 1.5, "tags": []any{"Ada King"}}},
			{Key: "1", Name: "Analytical Engine", Type: "Machine", Properties: map[string]any{"labels": []any{"Invention"}}},
		},
		Edges: []extract.Edge{
			{Source: "ada lovelace", Target: "1", Label: "WROTE_ABOUT", Weight: 1, Properties: map[string]any{"since": int64(1843)}},
			{Source: "1", Target: "ada lovelace", Label: "INSPIRED", Weight: 1},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("apoc file:\n got %+v\nwant %+v", got, want)
	}
}

// neo4j-admin's separate header files: nodes_header.csv with nodes.csv, or
// with several data parts; relationships_header.csv with
// relationships.csv; in a zip, beside each other in a folder. The data
// files have no header line, and their errors name the data file and its
// own line.
func TestReadCSV_HeaderFiles(t *testing.T) {
	t.Parallel()
	want := extract.Graph{
		Nodes: []extract.Node{
			{Key: "Person:p1", Name: "Ada", Type: "Person", Properties: map[string]any{"personId": "p1", "born": int64(1815)}},
			{Key: "Person:p2", Name: "Charles", Type: "Person", Properties: map[string]any{"personId": "p2"}},
			{Key: "Person:p3", Name: "Mary", Type: "Person", Properties: map[string]any{"personId": "p3", "born": int64(1797)}},
		},
		Edges: []extract.Edge{
			{Source: "Person:p1", Target: "Person:p2", Label: "KNOWS", Weight: 1, Properties: map[string]any{"since": int64(1833)}},
			{Source: "Person:p3", Target: "Person:p1", Label: "KNOWS", Weight: 1},
		},
	}
	nodesHeader := CSVFile{Name: "nodes_header.csv", Data: []byte("personId:ID(Person),name,born:int,:LABEL\n")}
	relsHeader := CSVFile{Name: "relationships_header.csv", Data: []byte(":START_ID(Person),:END_ID(Person),:TYPE,since:long\n")}
	rels := CSVFile{Name: "relationships.csv", Data: []byte("p1,p2,KNOWS,1833\np3,p1,KNOWS,\n")}
	nodes := []byte("p1,Ada,1815,Person\np2,Charles,,Person\np3,Mary,1797,Person\n")
	part1, part2 := []byte("p1,Ada,1815,Person\np2,Charles,,Person\n"), []byte("p3,Mary,1797,Person\n")
	for _, c := range []struct {
		name  string
		files []CSVFile
	}{
		{"OneDataFile", []CSVFile{nodesHeader, {Name: "nodes.csv", Data: nodes}, relsHeader, rels}},
		{"Parts", []CSVFile{{Name: "nodes-part1.csv", Data: part1}, {Name: "nodes-part2.csv", Data: part2}, nodesHeader, rels, relsHeader}},
		// A hyphenated header, beside a relationship file with its own
		// header line.
		{"HyphenAndOwnHeaders", []CSVFile{
			{Name: "people-header.csv", Data: nodesHeader.Data},
			{Name: "people.csv", Data: nodes},
			{Name: "knows.csv", Data: append(append([]byte(nil), relsHeader.Data...), rels.Data...)},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadCSV(c.files)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("\n got %+v\nwant %+v", got, want)
			}
		})
	}
	t.Run("Zip", func(t *testing.T) {
		var zbuf bytes.Buffer
		zw := zip.NewWriter(&zbuf)
		for _, f := range []CSVFile{
			{Name: "import/nodes_header.csv", Data: nodesHeader.Data},
			{Name: "import/nodes-part1.csv", Data: part1},
			{Name: "import/nodes-part2.csv", Data: part2},
			{Name: "import/relationships_header.csv", Data: relsHeader.Data},
			{Name: "import/relationships.csv", Data: rels.Data},
		} {
			w, _ := zw.Create(f.Name)
			w.Write(f.Data)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Read(zbuf.Bytes(), "csv")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("\n got %+v\nwant %+v", got, want)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			files []CSVFile
			want  string
		}{
			{"field count", []CSVFile{nodesHeader, {"nodes.csv", []byte("p1,Ada,1815,Person\np2,Charles\n")}},
				"nodes.csv line 2: wrong number of fields"},
			{"bad int in a part", []CSVFile{nodesHeader, {"nodes-part1.csv", part1}, {"nodes-part2.csv", []byte("p3,Mary,old,Person\n")}},
				`nodes-part2.csv line 1: born: "old" is not an integer`},
			{"unknown end", []CSVFile{nodesHeader, {"nodes.csv", []byte("p1,Ada,1815,Person\n")}, relsHeader, rels},
				`relationships.csv line 1: no node with id "p2"`},
			{"rows in the header file", []CSVFile{{"nodes_header.csv", []byte("personId:ID,name\np1,Ada\n")}, {"nodes.csv", []byte("p2,Bob\n")}},
				"nodes_header.csv line 2: a header file holds the header line only"},
			{"no data", []CSVFile{nodesHeader}, "nodes_header.csv: no data files for this header (want nodes.csv"},
			{"header repeated", []CSVFile{nodesHeader, {"nodes.csv", append(append([]byte(nil), nodesHeader.Data...), part2...)}},
				"nodes.csv line 1 repeats the header of nodes_header.csv"},
			{"not neo4j", []CSVFile{{"people_header.csv", []byte("name,age\n")}, {"people.csv", []byte("Ada,36\n")}},
				"people.csv header people_header.csv: not a neo4j CSV export"},
			{"empty header", []CSVFile{{"nodes_header.csv", nil}, {"nodes.csv", []byte("p1\n")}}, "nodes_header.csv is empty"},
			{"bare quote in the header", []CSVFile{{"nodes_header.csv", []byte("id:ID,\"name\n")}, {"nodes.csv", []byte("p1,Ada\n")}}, "nodes_header.csv line 1"},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := ReadCSV(c.files)
				if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), c.want) {
					t.Errorf("error %v, want invalid with %q", err, c.want)
				}
			})
		}
	})
}

// Broken files are refused with the file and line.
func TestReadCSV_Errors(t *testing.T) {
	t.Parallel()
	nodes := "id:ID,name,:LABEL\na,A,Entity\nb,B,Entity\n"
	for _, c := range []struct {
		name  string
		files []CSVFile
		want  string
	}{
		{"not neo4j", []CSVFile{{"people.csv", []byte("name,age\nAda,36\n")}}, "people.csv line 1: not a neo4j CSV export"},
		{"empty", []CSVFile{{"nodes.csv", nil}}, "nodes.csv is empty"},
		{"field count", []CSVFile{{"nodes.csv", []byte(nodes + "c,C\n")}}, "nodes.csv line 4: wrong number of fields"},
		{"bare quote", []CSVFile{{"nodes.csv", []byte("id:ID,name\na,\"A\n")}}, "nodes.csv line 2"},
		{"bad long", []CSVFile{{"nodes.csv", []byte("id:ID,age:long\na,old\n")}}, `nodes.csv line 2: age: "old" is not an integer`},
		{"unknown end", []CSVFile{{"nodes.csv", []byte(nodes)}, {"edges.csv", []byte(":START_ID,:END_ID,:TYPE\na,b,X\na,z,Y\n")}}, `edges.csv line 3: no node with id "z"`},
		{"bad weight", []CSVFile{{"nodes.csv", []byte(nodes)}, {"edges.csv", []byte(":START_ID,:END_ID,:TYPE,weight:double\na,b,X,heavy\n")}}, `edges.csv line 2: weight "heavy" is not a number`},
		{"twice", []CSVFile{{"nodes.csv", []byte(nodes + "a,A again,Entity\n")}}, `nodes.csv line 4: node id "a" appears twice`},
		{"no id", []CSVFile{{"nodes.csv", []byte("id:ID,name\n,A\n")}}, "nodes.csv line 2: a node without an id"},
		{"apoc end", []CSVFile{{"all.csv", []byte("_id,_labels,name,_start,_end,_type\n0,:A,a,,,\n,,,0,9,X\n")}}, `all.csv line 3: no node with _id "9"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(c.files)
			if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), c.want) {
				t.Errorf("error %v, want invalid with %q", err, c.want)
			}
		})
	}
	if _, err := Read([]byte("PK\x03\x04broken"), "csv"); err == nil || !strings.Contains(err.Error(), "not a zip archive") {
		t.Errorf("a broken zip: %v", err)
	}
}

// KAG's own domain KG example (kag/examples/domain_kg) reads as a graph:
// its repeated nodes once each, its isA edges.
func TestReadKAG_DomainKG(t *testing.T) {
	t.Parallel()
	nodes := testkit.Read(t, "corpora/kag-domain_kg/nodes.json")
	edges := testkit.Read(t, "corpora/kag-domain_kg/edges.json")
	g, err := ReadKAG(nodes, edges)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 25 || len(g.Edges) != 19 || g.Nodes[0].Type != "Concept" || g.Edges[0].Label != "isA" {
		t.Errorf("%d nodes, %d edges; first %+v, %+v", len(g.Nodes), len(g.Edges), g.Nodes[0], g.Edges[0])
	}
	// A JSON array alone is read as KAG's nodes file.
	if g, err := Read(nodes, "json"); err != nil || len(g.Nodes) != 25 || len(g.Edges) != 0 {
		t.Errorf("nodes.json as json: %d nodes, %d edges, %v", len(g.Nodes), len(g.Edges), err)
	}
	for _, bad := range []string{`[{"name":"x"}]`, `[1, 2]`} {
		if _, err := ReadKAG([]byte(bad), nil); extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := ReadKAG(nodes, []byte(`[{"from":"ACTH"}]`)); err == nil || !strings.Contains(err.Error(), "KAG edge 1 lacks from or to") {
		t.Errorf("an edge without an end: %v", err)
	}
}

// TestReadCSV_IDSpaceType: neo4j-admin node files without a :LABEL column
// (the label given on the command line, --nodes=Person=people.csv) type
// their nodes by their ID space, so two files do not import untyped.
func TestReadCSV_IDSpaceType(t *testing.T) {
	t.Parallel()
	g, err := ReadCSV([]CSVFile{
		{Name: "people.csv", Data: []byte("id:ID(Person),name\n1,Alice\n")},
		{Name: "cities.csv", Data: []byte("id:ID(City),name,:LABEL\n1,Paris,\n2,Lyon,Town\n")},
		{Name: "rels.csv", Data: []byte(":START_ID(Person),:END_ID(City),:TYPE\n1,1,LIVES_IN\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, n := range g.Nodes {
		types[n.Name] = n.Type
	}
	if types["Alice"] != "Person" || types["Paris"] != "City" || types["Lyon"] != "Town" {
		t.Errorf("types %v", types)
	}
}

// TestReadCSV_Tabs: files neo4j-admin reads with --delimiter=TAB (a first
// line with tabs and no comma) are read with tabs, header files too.
func TestReadCSV_Tabs(t *testing.T) {
	t.Parallel()
	g, err := ReadCSV([]CSVFile{
		{Name: "nodes_header.csv", Data: []byte("id:ID\tname\t:LABEL\n")},
		{Name: "nodes.csv", Data: []byte("1\tAda, Countess of Lovelace\tPerson\n2\tCharles\tPerson\n")},
		{Name: "rels.csv", Data: []byte(":START_ID\t:END_ID\t:TYPE\n1\t2\tKNEW\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 2 || g.Nodes[0].Name != "Ada, Countess of Lovelace" || len(g.Edges) != 1 || g.Edges[0].Label != "KNEW" {
		t.Errorf("%+v", g)
	}
}

// A zip bomb is refused before it has unpacked past its limit (64 times
// the zip's size, at least 16 MiB), whether it declares its true size or
// lies about it.
func TestReadCSVZip_Bomb(t *testing.T) {
	rows := bytes.Repeat([]byte("a,b\n"), 10<<20) // 40 MiB
	var comp bytes.Buffer
	fw, err := flate.NewWriter(&comp, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(rows)
	fw.Close()
	for _, lie := range []bool{false, true} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		size := uint64(len(rows))
		if lie {
			size = 100
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "nodes.csv", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(rows),
			CompressedSize64: uint64(comp.Len()), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp.Bytes())
		zw.Close()
		if buf.Len() > 1<<20 {
			t.Fatalf("the bomb is %d bytes: the test wants a small one", buf.Len())
		}
		// One that lies may be refused by the zip reader itself, which
		// counts what it unpacks against the size declared.
		_, err = ReadCSVZip(buf.Bytes())
		if err == nil || extract.KindOf(err) != extract.KindInvalid || !lie && !strings.Contains(err.Error(), "unpacks to more than") {
			t.Fatalf("a %d-byte zip of %d bytes (declared %d): %v", buf.Len(), len(rows), size, err)
		}
		// One that lies is refused naming the file and saying why (the
		// message was "nodes.csv" alone).
		if lie && !strings.Contains(extract.MessageOf(err), "nodes.csv: the zip is damaged (the file unpacks to more than it declares") {
			t.Fatalf("a zip declaring %d bytes of its %d: %q, want it called damaged", size, len(rows), extract.MessageOf(err))
		}
	}
}
