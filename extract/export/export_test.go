package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// nastyNames are names that break naive writers.
var nastyNames = []string{
	`O'Brien "the Elder"`,
	"back`tick``s",
	"line one\nline two\r\nthree",
	"東京都 (Tōkyō)",
	"comma, semicolon; pipe|",
	`back\slash \n not a newline`,
	"<tag attr=\"x\">&amp;</tag>",
	"\ufeffbom and tab\there",
	"emoji 🚀 and \u2028 separator",
}

// nastyGraph holds one node per nasty name, typed with the same names, and
// edges between neighbours labelled with them, plus a duplicate key and a
// dangling endpoint.
func nastyGraph() extract.Graph {
	var g extract.Graph
	for i, n := range nastyNames {
		g.Nodes = append(g.Nodes, extract.Node{
			Key: fmt.Sprintf("k%d:%s", i, n), Name: n, Type: n, Description: "desc of " + n,
			Properties: nodeProperties(i, n),
		})
	}
	for i := 0; i+1 < len(nastyNames); i++ {
		g.Edges = append(g.Edges, extract.Edge{
			Source: g.Nodes[i].Key, Target: g.Nodes[i+1].Key, Label: nastyNames[i],
			Keywords: "kw, " + nastyNames[i], Description: nastyNames[i+1], Weight: float64(i) + 0.5,
			Properties: edgeProperties(i, nastyNames[i]),
		})
	}
	// A duplicate key (dropped), a dangling endpoint (added as a bare node),
	// an edge with an empty label.
	g.Nodes = append(g.Nodes, extract.Node{Key: g.Nodes[0].Key, Name: "duplicate"})
	g.Edges = append(g.Edges, extract.Edge{Source: g.Nodes[0].Key, Target: "missing node", Label: "", Weight: 1})
	return g
}

// nodeProperties holds a property of each kind: Go and JSON-decoded
// integers, floats, booleans, strings, lists of scalars, a map, a name
// taken by a field, and a name with values of mixed kinds.
func nodeProperties(i int, n string) map[string]any {
	p := map[string]any{
		"note": n, "rank": i, "ok": i%2 == 0, "list": []any{1, 2},
		"age": float64(20 + i), "score": float64(i) + 0.25,
		"tags": []any{"a", n}, "meta": map[string]any{"k": n}, "name": "shadow " + n,
		"mixed": any(i),
	}
	if i%2 == 1 {
		p["mixed"] = "x"
	}
	return p
}

func edgeProperties(i int, n string) map[string]any {
	return map[string]any{
		"transAmt": float64(i)*10 + 0.5, "transDate": fmt.Sprintf("2024-01-%02d", i+1), "count": float64(i),
		"flags": []any{true, false}, "mixedList": []any{1.0, "a"}, "nested": map[string]any{"n": n, "l": []any{1.5}},
		"weight": "shadow",
	}
}

// wantNodeProps and wantEdgeProps are the texts the CSV and GraphML
// exports write for the properties (JSON for lists and maps), with each
// column's type.
func wantNodeProps(i int, n string) map[string]string {
	mixed := fmt.Sprint(i)
	if i%2 == 1 {
		mixed = "x"
	}
	return map[string]string{
		"note": n, "rank": fmt.Sprint(i), "ok": fmt.Sprint(i%2 == 0), "list": "[1,2]",
		"age": fmt.Sprint(20 + i), "score": fmt.Sprint(float64(i) + 0.25),
		"tags": mustJSON(nil, []any{"a", n}), "meta": mustJSON(nil, map[string]any{"k": n}),
		"prop_name": "shadow " + n, "mixed": mixed,
	}
}

var nodePropTypes = map[string]string{
	"note": "string", "rank": "long", "ok": "boolean", "list": "string", "age": "long", "score": "double",
	"tags": "string", "meta": "string", "prop_name": "string", "mixed": "string",
}

func wantEdgeProps(i int, n string) map[string]string {
	return map[string]string{
		"transAmt": fmt.Sprint(float64(i)*10 + 0.5), "transDate": fmt.Sprintf("2024-01-%02d", i+1), "count": fmt.Sprint(i),
		"flags": "[true,false]", "mixedList": `[1,"a"]`, "nested": mustJSON(nil, map[string]any{"n": n, "l": []any{1.5}}),
		"prop_weight": "shadow",
	}
}

var edgePropTypes = map[string]string{
	"transAmt": "double", "transDate": "string", "count": "long", "flags": "string", "mixedList": "string",
	"nested": "string", "prop_weight": "string",
}

// mustJSON encodes v as compact JSON without HTML escapes.
func mustJSON(t *testing.T, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wantNodes is the number of distinct nodes nastyGraph exports.
var wantNodes = len(nastyNames) + 1

// wantEdges is the number of edges nastyGraph exports.
var wantEdges = len(nastyNames)

func TestJSON(t *testing.T) {
	g := nastyGraph()
	var buf bytes.Buffer
	if err := JSON(&buf, g); err != nil {
		t.Fatal(err)
	}
	var back extract.Graph
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(back.Nodes) != wantNodes || len(back.Edges) != wantEdges {
		t.Fatalf("got %d nodes %d edges, want %d %d", len(back.Nodes), len(back.Edges), wantNodes, wantEdges)
	}
	for i, n := range nastyNames {
		if back.Nodes[i].Name != n {
			t.Errorf("node %d name = %q, want %q", i, back.Nodes[i].Name, n)
		}
	}

	t.Run("EmptyGraph", func(t *testing.T) {
		var buf bytes.Buffer
		if err := JSON(&buf, extract.Graph{}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(buf.String()), ""); got != `{"nodes":[],"edges":[]}` {
			t.Errorf("empty graph = %s", got)
		}
	})
	t.Run("NaNWeight", func(t *testing.T) {
		var zero float64
		g := extract.Graph{Edges: []extract.Edge{{Source: "a", Target: "b", Label: "r", Weight: zero / zero}}}
		if err := JSON(&bytes.Buffer{}, g); err != nil {
			t.Fatalf("NaN weight: %v", err)
		}
	})
	t.Run("UnsupportedProperty", func(t *testing.T) {
		g := extract.Graph{Nodes: []extract.Node{{Key: "a", Properties: map[string]any{"f": func() {}}}}}
		err := JSON(&bytes.Buffer{}, g)
		if extract.KindOf(err) != extract.KindInvalid {
			t.Fatalf("err = %v (kind %s), want invalid", err, extract.KindOf(err))
		}
	})
	t.Run("WriteError", func(t *testing.T) {
		err := JSON(failWriter{}, nastyGraph())
		if extract.KindOf(err) != extract.KindUnavailable {
			t.Fatalf("err = %v (kind %s), want unavailable", err, extract.KindOf(err))
		}
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// graphML mirrors the parts of a GraphML document the tests read.
type graphML struct {
	XMLName xml.Name `xml:"graphml"`
	Keys    []struct {
		ID   string `xml:"id,attr"`
		For  string `xml:"for,attr"`
		Name string `xml:"attr.name,attr"`
		Type string `xml:"attr.type,attr"`
	} `xml:"key"`
	Graph struct {
		EdgeDefault string `xml:"edgedefault,attr"`
		Nodes       []struct {
			ID   string    `xml:"id,attr"`
			Data []xmlData `xml:"data"`
		} `xml:"node"`
		Edges []struct {
			ID     string    `xml:"id,attr"`
			Source string    `xml:"source,attr"`
			Target string    `xml:"target,attr"`
			Data   []xmlData `xml:"data"`
		} `xml:"edge"`
	} `xml:"graph"`
}

type xmlData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

func dataOf(d []xmlData, key string) string {
	for _, x := range d {
		if x.Key == key {
			return x.Value
		}
	}
	return ""
}

func TestGraphML(t *testing.T) {
	g := nastyGraph()
	var buf bytes.Buffer
	if err := GraphML(&buf, g); err != nil {
		t.Fatal(err)
	}
	var doc graphML
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("output is not XML: %v\n%s", err, buf.String())
	}
	declared := map[string]string{}
	for _, k := range doc.Keys {
		declared[k.For+"/"+k.Name] = k.Type
	}
	for _, want := range []string{"node/name", "node/type", "node/description", "edge/label", "edge/weight", "edge/keywords", "edge/description"} {
		if _, ok := declared[want]; !ok {
			t.Errorf("key %s not declared", want)
		}
	}
	if declared["edge/weight"] != "double" {
		t.Errorf("weight type = %q, want double", declared["edge/weight"])
	}
	if len(doc.Graph.Nodes) != wantNodes || len(doc.Graph.Edges) != wantEdges {
		t.Fatalf("got %d nodes %d edges, want %d %d", len(doc.Graph.Nodes), len(doc.Graph.Edges), wantNodes, wantEdges)
	}
	ids := map[string]bool{}
	for i, n := range doc.Graph.Nodes {
		ids[n.ID] = true
		if i < len(nastyNames) {
			// XML normalises a CR LF pair in character data to LF only when
			// it is written raw; escaped CRs survive, so names round-trip.
			if got := dataOf(n.Data, "d_name"); got != g.Nodes[i].Name {
				t.Errorf("node %d name = %q, want %q", i, got, g.Nodes[i].Name)
			}
			if n.ID != g.Nodes[i].Key {
				t.Errorf("node %d id = %q, want %q", i, n.ID, g.Nodes[i].Key)
			}
		}
	}
	for i, e := range doc.Graph.Edges {
		if !ids[e.Source] || !ids[e.Target] {
			t.Errorf("edge %d refers to an undeclared node: %q -> %q", i, e.Source, e.Target)
		}
		if i < len(nastyNames)-1 && dataOf(e.Data, "e_label") != nastyNames[i] {
			t.Errorf("edge %d label = %q", i, dataOf(e.Data, "e_label"))
		}
	}
	if got := dataOf(doc.Graph.Edges[1].Data, "e_weight"); got != "1.5" {
		t.Errorf("weight = %q, want 1.5", got)
	}

	// Properties: one typed key per name, values read back by key id.
	keyID := map[string]string{}
	for _, k := range doc.Keys {
		keyID[k.For+"/"+k.Name] = k.ID
	}
	for what, types := range map[string]map[string]string{"node": nodePropTypes, "edge": edgePropTypes} {
		for name, typ := range types {
			if got := declared[what+"/"+name]; got != typ {
				t.Errorf("%s property %s declared as %q, want %q", what, name, got, typ)
			}
		}
	}
	if len(doc.Keys) != 7+len(nodePropTypes)+len(edgePropTypes) {
		t.Errorf("%d keys declared", len(doc.Keys))
	}
	for i, n := range nastyNames {
		for name, want := range wantNodeProps(i, n) {
			if got := dataOf(doc.Graph.Nodes[i].Data, keyID["node/"+name]); got != want {
				t.Errorf("node %d property %s = %q, want %q", i, name, got, want)
			}
		}
		if i+1 < len(nastyNames) {
			for name, want := range wantEdgeProps(i, n) {
				if got := dataOf(doc.Graph.Edges[i].Data, keyID["edge/"+name]); got != want {
					t.Errorf("edge %d property %s = %q, want %q", i, name, got, want)
				}
			}
		}
	}
	if got := dataOf(doc.Graph.Nodes[len(nastyNames)].Data, keyID["node/age"]); got != "" {
		t.Errorf("bare node has age %q", got)
	}

	t.Run("ControlCharacters", func(t *testing.T) {
		var buf bytes.Buffer
		g := extract.Graph{Nodes: []extract.Node{{Key: "a\x00b", Name: "x\x01y\x1f"}}}
		if err := GraphML(&buf, g); err != nil {
			t.Fatal(err)
		}
		var doc graphML
		if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("control characters make invalid XML: %v", err)
		}
		if len(doc.Graph.Nodes) != 1 {
			t.Fatalf("nodes = %d", len(doc.Graph.Nodes))
		}
	})
}

func TestCSV(t *testing.T) {
	g := nastyGraph()
	var nb, eb bytes.Buffer
	if err := CSV(&nb, &eb, g); err != nil {
		t.Fatal(err)
	}
	nodes := mustReadCSV(t, nb.Bytes())
	edges := mustReadCSV(t, eb.Bytes())
	wantNH := append(append([]string(nil), NodesHeader...),
		"age:long", "list", "meta", "mixed", "note", "ok:boolean", "prop_name", "rank:long", "score:double", "tags")
	wantEH := append(append([]string(nil), EdgesHeader...),
		"count:long", "flags", "mixedList", "nested", "prop_weight", "transAmt:double", "transDate")
	if !reflect.DeepEqual(nodes[0], wantNH) || !reflect.DeepEqual(edges[0], wantEH) {
		t.Fatalf("headers = %q / %q", nodes[0], edges[0])
	}
	// column finds a property's column by its name before any ":type".
	column := func(header []string, name string) int {
		for i, h := range header {
			if h == name || strings.HasPrefix(h, name+":") {
				return i
			}
		}
		t.Fatalf("no column %s in %q", name, header)
		return -1
	}
	for i, n := range nastyNames {
		for name, want := range wantNodeProps(i, n) {
			want = strings.ReplaceAll(want, "\r\n", "\n")
			if got := nodes[i+1][column(nodes[0], name)]; got != want {
				t.Errorf("node %d property %s = %q, want %q", i, name, got, want)
			}
		}
		if i+1 < len(nastyNames) {
			for name, want := range wantEdgeProps(i, n) {
				want = strings.ReplaceAll(want, "\r\n", "\n")
				if got := edges[i+1][column(edges[0], name)]; got != want {
					t.Errorf("edge %d property %s = %q, want %q", i, name, got, want)
				}
			}
		}
	}
	for _, c := range nodes[len(nodes)-1][len(NodesHeader):] {
		if c != "" {
			t.Errorf("bare node has property cells %q", nodes[len(nodes)-1])
			break
		}
	}
	if len(nodes)-1 != wantNodes || len(edges)-1 != wantEdges {
		t.Fatalf("got %d nodes %d edges, want %d %d", len(nodes)-1, len(edges)-1, wantNodes, wantEdges)
	}
	ids := map[string]bool{}
	for i, rec := range nodes[1:] {
		ids[rec[0]] = true
		for _, l := range strings.Split(rec[3], ";") {
			if l != SanitizeLabel(l) || l == "" {
				t.Errorf("node %d label %q is not sanitised", i, l)
			}
		}
		if i < len(nastyNames) {
			// encoding/csv reads \r\n inside a quoted field as \n.
			want := strings.ReplaceAll(g.Nodes[i].Name, "\r\n", "\n")
			if rec[1] != want {
				t.Errorf("node %d name = %q, want %q", i, rec[1], want)
			}
		}
	}
	for i, rec := range edges[1:] {
		if !ids[rec[0]] || !ids[rec[1]] {
			t.Errorf("edge %d refers to an unknown node: %q -> %q", i, rec[0], rec[1])
		}
		if rec[2] == "" || rec[2] != SanitizeRelType(rec[2]) {
			t.Errorf("edge %d type %q is not sanitised", i, rec[2])
		}
		if i < len(g.Edges) && rec[2] != SanitizeRelType(g.Edges[i].Label) {
			t.Errorf("edge %d type %q, want %q", i, rec[2], SanitizeRelType(g.Edges[i].Label))
		}
	}
	if last := edges[len(edges)-1]; last[2] != DefaultRelType {
		t.Errorf("empty label exported as %q", last[2])
	}
}

func TestCSVDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := CSVDir(dir, nastyGraph()); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{NodesFile: wantNodes, EdgesFile: wantEdges} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(mustReadCSV(t, data)) - 1; got != want {
			t.Errorf("%s has %d rows, want %d", name, got, want)
		}
	}
	t.Run("NotAFolder", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := CSVDir(file, nastyGraph()); extract.KindOf(err) != extract.KindInvalid {
			t.Fatalf("err = %v, want invalid", err)
		}
	})
}

func mustReadCSV(t *testing.T, data []byte) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(data))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v", err)
	}
	return recs
}

func TestSanitizeLabel(t *testing.T) {
	tests := []struct{ in, label, rel string }{
		{"Person", "Person", "Person"},
		{"works at", "works_at", "works_at"},
		{"related_to", "related_to", "related_to"},
		{"RELATED_TO", "RELATED_TO", "RELATED_TO"},
		{"  spaced -- out  ", "spaced_out", "spaced_out"},
		{"疾病", "疾病", "疾病"},
		{"3d model", "_3d_model", "_3d_model"},
		{"a;b`c'd", "a_b_c_d", "a_b_c_d"},
		{"", "", DefaultRelType},
		{"!!!", "", DefaultRelType},
		{"camelCase", "camelCase", "camelCase"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SanitizeLabel(tt.in); got != tt.label {
				t.Errorf("SanitizeLabel(%q) = %q, want %q", tt.in, got, tt.label)
			}
			if got := SanitizeRelType(tt.in); got != tt.rel {
				t.Errorf("SanitizeRelType(%q) = %q, want %q", tt.in, got, tt.rel)
			}
		})
	}
}

// unquoteCypher reads a Cypher string literal at the start of s and returns
// its value and the rest of s. It implements the escapes Cypher defines.
func unquoteCypher(t *testing.T, s string) (string, string) {
	t.Helper()
	if s == "" || s[0] != '\'' {
		t.Fatalf("no string literal at %q", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			return b.String(), s[i+1:]
		case '\n', '\r':
			t.Fatalf("raw line break inside a literal: %q", s)
		case '\\':
			i++
			switch s[i] {
			case '\\', '\'', '"':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				var r rune
				if _, err := fmt.Sscanf(s[i+1:i+5], "%04X", &r); err != nil {
					t.Fatalf("bad \\u escape in %q", s)
				}
				b.WriteRune(r)
				i += 4
			default:
				t.Fatalf("unknown escape \\%c in %q", s[i], s)
			}
		default:
			b.WriteByte(c)
		}
	}
	t.Fatalf("unterminated literal %q", s)
	return "", ""
}

// unquoteName reads a backquoted name at the start of s.
func unquoteName(t *testing.T, s string) (string, string) {
	t.Helper()
	if s == "" || s[0] != '`' {
		t.Fatalf("no backquoted name at %q", s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '`' {
			if i+1 < len(s) && s[i+1] == '`' {
				b.WriteByte('`')
				i++
				continue
			}
			return b.String(), s[i+1:]
		}
		b.WriteByte(s[i])
	}
	t.Fatalf("unterminated name %q", s)
	return "", ""
}

func TestCypherString(t *testing.T) {
	for i, s := range append(nastyNames, "", "\x00\x01\x7f\u0085", "'", `\`) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			lit := CypherString(s)
			got, rest := unquoteCypher(t, lit)
			if got != s || rest != "" {
				t.Errorf("CypherString(%q) = %s reads back as %q + %q", s, lit, got, rest)
			}
		})
	}
}

// nameOf is what a backquoted name keeps of s: control characters and
// line separators read as spaces, backslashes as underscores.
func nameOf(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		if r == '\\' {
			return '_'
		}
		return r
	}, s)
}

// A name reads back as itself, and holds no backslash: Neo4j reads a
// \u0060 in a quoted name as a backtick before parsing, which would end
// the name and let the rest run as Cypher.
func TestCypherName(t *testing.T) {
	for i, s := range append(nastyNames, "", "``", "a\x00b", `Person\u0060) DETACH DELETE (n`, `\`) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			name := CypherName(s)
			got, rest := unquoteName(t, name)
			if got != nameOf(s) || rest != "" {
				t.Errorf("CypherName(%q) reads back as %q + %q", s, got, rest)
			}
			if strings.Contains(name, `\`) {
				t.Errorf("CypherName(%q) = %s holds a backslash", s, name)
			}
		})
	}
}

func TestCypher(t *testing.T) {
	g := nastyGraph()
	var buf bytes.Buffer
	if err := Cypher(&buf, g); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	var merges, matches int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "//"), strings.HasPrefix(l, "CREATE CONSTRAINT"):
		case strings.HasPrefix(l, "MERGE (n:Entity {key: "):
			key, rest := unquoteCypher(t, strings.TrimPrefix(l, "MERGE (n:Entity {key: "))
			rest = strings.TrimPrefix(rest, "}) SET n.name = ")
			name, rest := unquoteCypher(t, rest)
			if merges < len(nastyNames) {
				if key != g.Nodes[merges].Key || name != g.Nodes[merges].Name {
					t.Errorf("node %d reads back as %q %q", merges, key, name)
				}
				i := strings.LastIndex(rest, " SET n:`")
				if i < 0 {
					t.Fatalf("node %d has no type label: %s", merges, l)
				}
				label, tail := unquoteName(t, rest[i+len(" SET n:"):])
				if label != nameOf(g.Nodes[merges].Type) || tail != ";" {
					t.Errorf("node %d label reads back as %q + %q", merges, label, tail)
				}
				rest = strings.TrimPrefix(rest, ", n.type = ")
				_, rest = unquoteCypher(t, rest)
				rest = strings.TrimPrefix(rest, ", n.description = ")
				_, rest = unquoteCypher(t, rest)
				props, _ := parseSets(t, "n", rest)
				want := map[string]string{
					"note": CypherString(nastyNames[merges]), "rank": fmt.Sprint(merges), "ok": fmt.Sprint(merges%2 == 0),
					"list": "[1, 2]", "age": fmt.Sprint(20 + merges), "score": fmt.Sprint(float64(merges) + 0.25),
					"tags":      "['a', " + CypherString(nastyNames[merges]) + "]",
					"meta":      CypherString(mustJSON(t, map[string]any{"k": nastyNames[merges]})),
					"prop_name": CypherString("shadow " + nastyNames[merges]),
					"mixed":     map[bool]string{true: fmt.Sprint(merges), false: "'x'"}[merges%2 == 0],
				}
				if !reflect.DeepEqual(props, want) {
					t.Errorf("node %d properties = %v, want %v", merges, props, want)
				}
			}
			merges++
		case strings.HasPrefix(l, "MATCH (a:Entity {key: "):
			src, rest := unquoteCypher(t, strings.TrimPrefix(l, "MATCH (a:Entity {key: "))
			rest = strings.TrimPrefix(rest, "}), (b:Entity {key: ")
			tgt, rest := unquoteCypher(t, rest)
			rest = strings.TrimPrefix(rest, "}) MERGE (a)-[r:")
			rel, rest := unquoteName(t, rest)
			if matches < len(nastyNames)-1 {
				e := g.Edges[matches]
				// The same relationship type as the CSV export.
				if src != e.Source || tgt != e.Target || rel != SanitizeRelType(e.Label) {
					t.Errorf("edge %d reads back as %q -[%q]-> %q", matches, src, rel, tgt)
				}
			} else if rel != DefaultRelType {
				t.Errorf("empty label exported as %q", rel)
			}
			if !strings.HasPrefix(rest, "]->(b) SET r.keywords = '") || !strings.HasSuffix(rest, ";") {
				t.Fatalf("edge %d malformed tail %q", matches, rest)
			}
			_, rest = unquoteCypher(t, strings.TrimPrefix(rest, "]->(b) SET r.keywords = "))
			_, rest = unquoteCypher(t, strings.TrimPrefix(rest, ", r.description = "))
			rest = strings.TrimPrefix(rest, ", r.weight = ")
			rest = rest[strings.IndexAny(rest, ",;"):]
			props, tail := parseSets(t, "r", rest)
			if tail != ";" {
				t.Errorf("edge %d tail %q", matches, tail)
			}
			if matches < len(nastyNames)-1 {
				n := nastyNames[matches]
				want := map[string]string{
					"transAmt": fmt.Sprint(float64(matches)*10 + 0.5), "transDate": fmt.Sprintf("'2024-01-%02d'", matches+1),
					"count": fmt.Sprint(matches), "flags": "[true, false]", "mixedList": CypherString(`[1,"a"]`),
					"nested":      CypherString(mustJSON(t, map[string]any{"n": n, "l": []any{1.5}})),
					"prop_weight": "'shadow'",
				}
				if !reflect.DeepEqual(props, want) {
					t.Errorf("edge %d properties = %v, want %v", matches, props, want)
				}
			}
			matches++
		default:
			t.Errorf("unexpected line %q", l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("invalid UTF-8 in %q", l)
		}
	}
	if merges != wantNodes || matches != wantEdges {
		t.Errorf("got %d MERGE and %d MATCH statements, want %d and %d", merges, matches, wantNodes, wantEdges)
	}
}

// parseSets reads `, v.name = literal` assignments at the start of s and
// returns each literal's text by property name, and the rest of s.
func parseSets(t *testing.T, v, s string) (map[string]string, string) {
	t.Helper()
	out := map[string]string{}
	for strings.HasPrefix(s, ", "+v+".") {
		name, rest := unquoteName(t, strings.TrimPrefix(s, ", "+v+"."))
		rest, ok := strings.CutPrefix(rest, " = ")
		if !ok {
			t.Fatalf("no = after %q", name)
		}
		end := literalEnd(t, rest)
		out[name], s = rest[:end], rest[end:]
	}
	return out, s
}

// literalEnd is the length of the Cypher literal at the start of s: a
// string, a list, or a number or boolean.
func literalEnd(t *testing.T, s string) int {
	t.Helper()
	switch {
	case strings.HasPrefix(s, "'"):
		_, rest := unquoteCypher(t, s)
		return len(s) - len(rest)
	case strings.HasPrefix(s, "["):
		i := 1
		for s[i] != ']' {
			if s[i] == ',' || s[i] == ' ' {
				i++
				continue
			}
			i += literalEnd(t, s[i:])
		}
		return i + 1
	}
	i := strings.IndexAny(s, ",; ]")
	if i < 0 {
		return len(s)
	}
	if _, err := strconv.ParseFloat(s[:i], 64); err != nil && s[:i] != "true" && s[:i] != "false" {
		t.Fatalf("bad literal %q", s[:i])
	}
	return i
}

func TestWrite_Golden(t *testing.T) {
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "ada lovelace", Name: "Ada Lovelace", Type: "Person", Description: `Wrote "Notes", 1843.`,
				Properties: map[string]any{"born": 1815.0, "height": 1.65, "titled": true, "aliases": []any{"Ada King"}}},
			{Key: "analytical engine", Name: "Analytical Engine", Type: "Artifact"},
			{Key: "東京", Name: "東京", Type: "地点"},
		},
		Edges: []extract.Edge{
			{Source: "ada lovelace", Target: "analytical engine", Label: "wrote about", Keywords: "notes, program", Weight: 2,
				Properties: map[string]any{"year": 1843.0, "source": map[string]any{"page": 1.0}}},
			{Source: "ada lovelace", Target: "東京", Label: "never visited", Description: "line\nbreak", Weight: 0.5},
		},
	}
	for _, format := range []string{"json", "graphml", "cypher", "csv"} {
		t.Run(format, func(t *testing.T) {
			files := map[string][]byte{}
			if format == "csv" {
				var nb, eb bytes.Buffer
				if err := CSV(&nb, &eb, g); err != nil {
					t.Fatal(err)
				}
				files["sample.nodes.csv"], files["sample.edges.csv"] = nb.Bytes(), eb.Bytes()
				if err := Write(&bytes.Buffer{}, "csv", g); extract.KindOf(err) != extract.KindInvalid {
					t.Errorf("Write csv = %v, want invalid", err)
				}
			} else {
				var buf bytes.Buffer
				if err := Write(&buf, format, g); err != nil {
					t.Fatal(err)
				}
				files["sample."+format] = buf.Bytes()
			}
			for name, got := range files {
				path := filepath.Join("testdata", name)
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the golden file:\n%s", name, got)
				}
			}
		})
	}
	t.Run("UnknownFormat", func(t *testing.T) {
		if err := Write(&bytes.Buffer{}, "dot", g); extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("err = %v, want invalid", err)
		}
	})
}

func BenchmarkExport(b *testing.B) {
	g := extract.Graph{Nodes: make([]extract.Node, 10_000), Edges: make([]extract.Edge, 30_000)}
	for i := range g.Nodes {
		name := fmt.Sprintf("Entity %d", i)
		g.Nodes[i] = extract.Node{Key: extract.NodeKey(name), Name: name, Type: "Person", Description: "An entity, \"quoted\"."}
	}
	for i := range g.Edges {
		g.Edges[i] = extract.Edge{Source: g.Nodes[i%10_000].Key, Target: g.Nodes[(i*7+3)%10_000].Key, Label: "knows", Weight: 1}
	}
	for _, format := range []string{"json", "graphml", "cypher"} {
		b.Run(format, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := Write(io.Discard, format, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("csv", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := CSV(io.Discard, io.Discard, g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestWithChunks(t *testing.T) {
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "scrooge", Name: "Scrooge", Type: "person", Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 0}, {DocumentID: 1, ChunkIndex: 2}, {DocumentID: 1, ChunkIndex: 2}}},
			{Key: "marley", Name: "Marley", Type: "person", Mentions: []extract.Mention{{DocumentID: 1, ChunkIndex: 0}}},
		},
		Edges: []extract.Edge{{Source: "scrooge", Target: "marley", Label: "partner", Mentions: []extract.Mention{{DocumentID: 1}}}},
	}
	// Chunk 1 names nothing and is a node all the same; chunk 2 is not in
	// the list, and is made from the mentions without its text.
	chunks := []extract.Chunk{{DocumentID: 1, Index: 0, Text: "Marley was dead."}, {DocumentID: 1, Index: 1, Text: "Scrooge knew he was dead?"}}
	out := WithChunks(g, func(id int) string { return "carol.txt" }, chunks)
	if len(out.Nodes) != 5 || len(out.Edges) != 4 {
		t.Fatalf("%d nodes, %d edges: %+v", len(out.Nodes), len(out.Edges), out)
	}
	if c := out.Nodes[2]; c.Key != ChunkKey(1, 0) || c.Type != ChunkType || c.Name != "carol.txt #0" || c.Properties["content"] != "Marley was dead." {
		t.Errorf("chunk node %+v", c)
	}
	if c := out.Nodes[3]; c.Key != ChunkKey(1, 1) || c.Properties["content"] != "Scrooge knew he was dead?" {
		t.Errorf("the chunk nothing was extracted from: %+v", c)
	}
	if c := out.Nodes[4]; c.Key != ChunkKey(1, 2) || c.Properties["content"] != nil {
		t.Errorf("a chunk whose text is unknown: %+v", c)
	}
	// A graph that holds its chunk layer already gets no second one: no
	// chunk node and no source edge twice (the mentions loaded again).
	held := out
	held.Nodes = append([]extract.Node(nil), out.Nodes...)
	held.Nodes[0].Mentions = g.Nodes[0].Mentions
	if again := ChunkLayer(held, nil, chunks); len(again.Nodes) != 0 || len(again.Edges) != 0 {
		t.Errorf("chunk layer made twice: %+v", again)
	}
	if e := out.Edges[1]; e.Source != "scrooge" || e.Label != SourceLabel || e.Target != ChunkKey(1, 0) {
		t.Errorf("source edge %+v", e)
	}
	for _, n := range out.Nodes {
		if len(n.Mentions) != 0 {
			t.Errorf("node %s keeps mentions", n.Key)
		}
	}
	if len(g.Nodes[0].Mentions) != 3 {
		t.Error("the input graph was changed")
	}
}

func TestWithNamespace(t *testing.T) {
	g := extract.Graph{Nodes: []extract.Node{{Key: "a", Type: "Person"}, {Key: "b", Type: "RiskMining.App"}, {Key: "c"}}}
	out, err := WithNamespace(g, "RiskMining")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, n := range out.Nodes {
		types = append(types, n.Type)
	}
	if strings.Join(types, ",") != "RiskMining.Person,RiskMining.App," || g.Nodes[0].Type != "Person" {
		t.Errorf("types %v (input %v)", types, g.Nodes[0].Type)
	}
	for _, bad := range []string{"Risk Mining", "1st", "a`b", "ns.x", strings.Repeat("a", 65), "Ünï"} {
		if _, err := WithNamespace(g, bad); extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("namespace %q: %v; want an invalid error", bad, err)
		}
	}
	if same, _ := WithNamespace(g, " "); same.Nodes[0].Type != "Person" {
		t.Error("an empty namespace changed the types")
	}
}
