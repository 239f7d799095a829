package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// nested is a list nested depth levels deep around an empty list.
func nested(depth int) any {
	var v any = []any{}
	for range depth - 1 {
		v = []any{v}
	}
	return v
}

// nestedText is nested(depth) as compact JSON.
func nestedText(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// A property nested 9,990 levels deep is 20 KB of JSON; indented level by
// level it was 199.8 MB, built whole in memory (1.3 GB allocated).
func TestJSON_NestedProperty(t *testing.T) {
	const depth = 9990
	g := extract.Graph{
		Nodes: []extract.Node{{Key: "a", Name: "a", Properties: map[string]any{"deep": nested(depth), "n": 1.0}}, {Key: "b", Name: "b"}},
		Edges: []extract.Edge{{Source: "a", Target: "b", Label: "to", Weight: 1, Properties: map[string]any{"deep": nested(depth)}}},
	}
	var buf bytes.Buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := JSON(&buf, g); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := buf.Len(); n > 100<<10 {
		t.Fatalf("the JSON export of two 20 KB properties is %d bytes, want under 100 KiB", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("the JSON export allocated %d MiB, want under 16", alloc>>20)
	}
	// The values are written exactly, only without indentation deep down.
	var got struct {
		Nodes []struct {
			Properties map[string]any `json:"properties"`
		} `json:"nodes"`
		Edges []struct {
			Properties map[string]any `json:"properties"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Nodes[0].Properties["deep"], nested(depth)) || !reflect.DeepEqual(got.Edges[0].Properties["deep"], nested(depth)) {
		t.Error("the deep properties did not come back as written")
	}
	if !strings.Contains(buf.String(), "\n        \"n\": 1\n") {
		t.Errorf("shallow properties are not indented as before:\n%.400s", buf.String())
	}
}

func BenchmarkJSON_NestedProperty(b *testing.B) {
	g := extract.Graph{Nodes: []extract.Node{{Key: "a", Name: "a", Properties: map[string]any{"deep": nested(9990)}}}}
	b.ReportAllocs()
	for b.Loop() {
		var n countWriter
		if err := JSON(&n, g); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n), "out-bytes")
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

func TestIndentJSON(t *testing.T) {
	values := []string{
		`1`, `"x"`, `[]`, `{}`, `[[]]`, `{"a":{}}`, `[1,2,[3,[4,{}]]]`,
		`{"key":"a","properties":{"s":"[{,:\"\\","l":[{"x":[1,[2,[3]]]},"]"],"e":[],"m":{"k":{"k":{"k":null}}}}}`,
		`"\u003c\\\"[{"`, `[true,false,null,-1.5e-7]`,
	}
	for _, v := range values {
		src := []byte(v)
		var want bytes.Buffer
		if err := json.Indent(&want, src, "    ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, src, "    ", "  ", 100); string(got) != want.String() {
			t.Errorf("indentJSON(%s) =\n%s\nwant (json.Indent)\n%s", v, got, want.String())
		}
		for depth := range 5 {
			got := indentJSON(nil, src, "    ", "  ", depth)
			var compact bytes.Buffer
			if err := json.Compact(&compact, got); err != nil || compact.String() != v {
				t.Errorf("indentJSON(%s, depth %d) = %s: not the same JSON (%v)", v, depth, got, err)
			}
			for _, line := range strings.Split(string(got), "\n")[1:] {
				if indent := len(line) - len(strings.TrimLeft(line, " ")); indent > 4+2*depth {
					t.Errorf("indentJSON(%s, depth %d): line %q is indented deeper than %d levels", v, depth, line, depth)
				}
			}
		}
	}
}

func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`[1,{"a":[2,"]"]}]`, `{"k":{"k":{"k":[[[]]]}}}`, `"\\\""`} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, depth int) {
		var src bytes.Buffer
		if json.Compact(&src, []byte(s)) != nil || depth < 0 || depth > 64 {
			return
		}
		got := indentJSON(nil, src.Bytes(), "  ", "\t", depth)
		var back bytes.Buffer
		if err := json.Compact(&back, got); err != nil || back.String() != src.String() {
			t.Fatalf("indentJSON(%s, %d) = %s (%v)", src.String(), depth, got, err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, src.Bytes(), "  ", "\t"); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, src.Bytes(), "  ", "\t", 1<<20); string(got) != want.String() {
			t.Fatalf("indentJSON(%s) = %s, want %s", src.String(), got, want.String())
		}
	})
}

func TestRead_NestedProperty(t *testing.T) {
	t.Parallel()
	deep, ok := nestedText(MaxPropertyDepth+1), nestedText(MaxPropertyDepth)
	files := map[string]func(v string) (string, []byte){
		"JSON": func(v string) (string, []byte) {
			return "json", []byte(`{"nodes":[{"key":"a","name":"A","properties":{"ok":1,"deep":` + v + `}}],"edges":[]}`)
		},
		"JSONEdge": func(v string) (string, []byte) {
			return "json", []byte(`{"nodes":[{"key":"a"},{"key":"b"}],"edges":[{"source":"a","target":"b","label":"to","properties":{"deep":` + v + `}}]}`)
		},
		"NodeLink": func(v string) (string, []byte) {
			return "json", []byte(`{"directed":true,"nodes":[{"id":"a","deep":` + v + `}],"links":[]}`)
		},
		"KAG": func(v string) (string, []byte) {
			return "json", []byte(`[{"id":"a","name":"A","label":"T","properties":{"deep":` + v + `}}]`)
		},
		"GraphML": func(v string) (string, []byte) {
			return "graphml", []byte(`<graphml><key id="d0" for="node" attr.name="deep" attr.type="string"/><graph><node id="a"><data key="d0">` +
				v + `</data></node></graph></graphml>`)
		},
		"CSV": func(v string) (string, []byte) {
			return "csv", []byte("id:ID,name,deep\na,A,\"" + v + "\"\n")
		},
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			format, data := file(deep)
			_, err := Read(data, format)
			if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), `property "deep" nests lists or maps more than 32 levels deep`) {
				t.Fatalf("a property %d levels deep: err = %v, want it refused by name", MaxPropertyDepth+1, err)
			}
			format, data = file(ok)
			if _, err := Read(data, format); err != nil {
				t.Fatalf("a property %d levels deep: %v", MaxPropertyDepth, err)
			}
		})
	}
}

// A neo4j CSV export is read record by record and refused, naming the
// file and line, once its records would take more of the server's memory
// than an import may (or pass MaxCSVRecords): a million node rows were
// read whole, then held twice over (783 MiB allocated), and imported at
// 711 MB of RSS.
func TestReadCSV_Limits(t *testing.T) {
	t.Parallel()
	var nodes bytes.Buffer
	nodes.WriteString("id:ID,name\n")
	for i := range MaxCSVRecords {
		fmt.Fprintf(&nodes, "n%d,N\n", i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadCSV([]CSVFile{{Name: "people/nodes.csv", Data: nodes.Bytes()}})
	runtime.ReadMemStats(&after)
	if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "nodes.csv line ") ||
		!strings.Contains(err.Error(), "would take more than 384 MiB of the server's memory") {
		t.Fatalf("a million node rows: err = %v, want a refusal naming the file and line", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 300<<20 {
		t.Errorf("reading until the refusal allocated %d MiB, want under 300", alloc>>20)
	}

	// The count of records is a limit of its own, over all the files.
	var edges bytes.Buffer
	edges.WriteString(":START_ID,:END_ID\n")
	for range MaxCSVRecords/2 + 1 {
		edges.WriteString("a,b\n")
	}
	e := edges.Bytes()
	_, err = ReadCSV([]CSVFile{{Name: "n.csv", Data: []byte(":ID\na\nb\n")}, {Name: "e1.csv", Data: e}, {Name: "e2.csv", Data: e}})
	if err == nil || !strings.Contains(err.Error(), "e2.csv line ") || !strings.Contains(err.Error(), "more than 1000000 records") {
		t.Fatalf("%d relationships: err = %v, want a refusal naming e2.csv", MaxCSVRecords+3, err)
	}

	// apoc's single file is counted as it is first read.
	var apoc bytes.Buffer
	apoc.WriteString("_id,_labels,note,_start,_end,_type\n")
	for i := range 400_000 {
		fmt.Fprintf(&apoc, "%d,:T,%s,,,\n", i, strings.Repeat("x", 60))
	}
	if _, err := ReadCSV([]CSVFile{{Name: "all.csv", Data: apoc.Bytes()}}); err == nil || !strings.Contains(err.Error(), "all.csv line ") {
		t.Fatalf("a million apoc rows: err = %v, want a refusal naming all.csv", err)
	}
}

// A header wider than MaxCSVColumns (a node of two million properties)
// is refused before any row is read, naming the file and the limit, and
// so is one in a header file; a wide header under it is read.
func TestReadCSV_WideHeader(t *testing.T) {
	t.Parallel()
	wide := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("id:ID")
		for i := range n {
			fmt.Fprintf(&b, ",p%d", i)
		}
		b.WriteString("\nn1")
		for range n {
			b.WriteString(",v")
		}
		b.WriteString("\n")
		return b.Bytes()
	}
	_, err := ReadCSV([]CSVFile{{Name: "wide/nodes.csv", Data: wide(200_000)}})
	if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "nodes.csv") || !strings.Contains(err.Error(), "at most 4096") {
		t.Fatalf("200,000 columns: %v", err)
	}
	g, err := ReadCSV([]CSVFile{{Name: "ok/nodes.csv", Data: wide(MaxCSVColumns - 1)}})
	if err != nil || len(g.Nodes) != 1 || len(g.Nodes[0].Properties) < MaxCSVColumns-2 {
		t.Fatalf("%d columns: %v", MaxCSVColumns-1, err)
	}
}
