package export

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestSpreadsheetCSV(t *testing.T) {
	t.Parallel()
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "=1+1", Name: "@handle", Type: "Person", Description: "+44 20 7946 0000",
				Properties: map[string]any{"note": "-x", "n": -3.0, "=cmd": "\tx", "plain": "ok"}},
			{Key: "b", Name: "\rB", Type: "Person", Properties: map[string]any{"n": 2.0}},
		},
		Edges: []extract.Edge{{Source: "=1+1", Target: "b", Label: "-knows", Keywords: "=k", Description: "@d", Weight: -0.5,
			Properties: map[string]any{"when": "-1"}}},
	}
	read := func(t *testing.T, zipped []byte) map[string][][]string {
		t.Helper()
		zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][][]string{}
		for _, f := range zr.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(r)
			if out[f.Name], err = csv.NewReader(bytes.NewReader(data)).ReadAll(); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	t.Run("Spreadsheet", func(t *testing.T) {
		var buf bytes.Buffer
		if err := WriteSpreadsheetZip(&buf, g); err != nil {
			t.Fatal(err)
		}
		files := read(t, buf.Bytes())
		for name, rows := range files {
			for _, row := range rows {
				for _, cell := range row {
					if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) && !isNumber(cell) {
						t.Errorf("%s: cell %q would run as a formula", name, cell)
					}
				}
			}
		}
		nodes, edges := files[NodesFile], files[EdgesFile]
		want := [][]string{
			{"id:ID", "name", "description", ":LABEL", "type", "'=cmd", "n:long", "note", "plain"},
			{"'=1+1", "'@handle", "'+44 20 7946 0000", "Entity;Person", "Person", "'\tx", "-3", "'-x", "ok"},
			{"b", "'\rB", "", "Entity;Person", "Person", "", "2", "", ""},
		}
		if !reflect.DeepEqual(nodes, want) {
			t.Errorf("nodes.csv = %q\nwant %q", nodes, want)
		}
		if got := edges[1]; !reflect.DeepEqual(got, []string{"'=1+1", "b", "knows", "'@d", "'=k", "-0.5", "'-knows", "'-1"}) {
			t.Errorf("edge row = %q", got)
		}
	})
	t.Run("Neo4jAdminExact", func(t *testing.T) {
		var buf bytes.Buffer
		if err := WriteCSVZip(&buf, g); err != nil {
			t.Fatal(err)
		}
		nodes := read(t, buf.Bytes())[NodesFile]
		if got := nodes[1][:3]; !reflect.DeepEqual(got, []string{"=1+1", "@handle", "+44 20 7946 0000"}) {
			t.Errorf("neo4j-admin row = %q, want the values as they are", got)
		}
		back, err := ReadCSVZip(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if back.Nodes[0].Name != "@handle" || back.Nodes[0].Properties["=cmd"] != "\tx" || back.Edges[0].Label != "-knows" {
			t.Errorf("read back: %+v", back)
		}
	})
}

// isNumber reports whether a cell is a number a spreadsheet reads as one.
func isNumber(s string) bool {
	var f float64
	return json.Unmarshal([]byte(s), &f) == nil
}
