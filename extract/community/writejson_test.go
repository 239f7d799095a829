package community

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// WriteJSON writes what json.Marshal writes, byte for byte, for an empty
// result, one with no communities, a detected one (compacted, as stored)
// and one with reports and text that JSON escapes; JSONSize is not far
// below it.
func TestWriteJSON_AsMarshal(t *testing.T) {
	var g extract.Graph
	for i := range 40 {
		g.Nodes = append(g.Nodes, extract.Node{Key: fmt.Sprintf("n%d", i), Name: fmt.Sprintf("<Node & %d>", i)})
		g.Edges = append(g.Edges, extract.Edge{Source: fmt.Sprintf("n%d", i), Target: fmt.Sprintf("n%d", (i*7+1)%40), Label: "x"})
	}
	detected := Detect(g, Options{})
	withReports := detected
	withReports.Reports = []Report{{Community: 1, Title: "A \"title\"", Summary: "s\u2028"}}
	withReports.ReportFallbacks = 2
	for name, r := range map[string]Result{
		"zero":     {},
		"none":     {Levels: 1, Modularity: []float64{0}, Communities: []Community{}},
		"detected": detected.Compact(),
		"reports":  withReports,
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s:\nWriteJSON %s\nMarshal   %s", name, b.String(), want)
		}
		if name == "detected" && (len(r.Communities) == 0 || r.JSONSize() < len(want)*3/4) {
			t.Errorf("%d communities, JSONSize %d for %d bytes", len(r.Communities), r.JSONSize(), len(want))
		}
	}
}
