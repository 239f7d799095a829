package export

import (
	"archive/zip"
	"bytes"
	"testing"
)

// A zip is taken for a neo4j CSV export by the first line of its CSV
// files: node, relationship and apoc headers (comma or tab) say yes, a
// zip of tables says no without its files read whole.
func TestMayBeCSVZip(t *testing.T) {
	zipOf := func(files map[string]string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for name, body := range files {
			w, _ := zw.Create(name)
			w.Write([]byte(body))
		}
		zw.Close()
		return buf.Bytes()
	}
	big := "name,age\n" + string(bytes.Repeat([]byte("Ada,36\n"), 200000))
	for name, c := range map[string]struct {
		files map[string]string
		want  bool
	}{
		"nodes":         {map[string]string{"n.csv": "id:ID,name\n1,Ada\n"}, true},
		"relationships": {map[string]string{"tables.csv": "a,b\n", "r.csv": ":START_ID,:END_ID,:TYPE\n1,2,KNOWS\n"}, true},
		"tabs":          {map[string]string{"n.csv": "id:ID\tname\n1\tAda\n"}, true},
		"apoc":          {map[string]string{"all.csv": "_id,_labels,name,_start,_end,_type\n"}, true},
		"tables":        {map[string]string{"people.csv": big, "notes.txt": "id:ID\n"}, false},
		"not a zip":     {nil, false},
	} {
		data := []byte("plain text")
		if c.files != nil {
			data = zipOf(c.files)
		}
		if got := MayBeCSVZip(data); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}
