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
			Properties: map[string]any{"note": n, "rank": i, "ok": true, "list": []any{1, 2}},
		})
	}
	for i := 0; i+1 < len(nastyNames); i++ {
		g.Edges = append(g.Edges, extract.Edge{
			Source: g.Nodes[i].Key, Target: g.Nodes[i+1].Key, Label: nastyNames[i],
			Keywords: "kw, " + nastyNames[i], Description: nastyNames[i+1], Weight: float64(i) + 0.5,
		})
	}
	// A duplicate key (dropped), a dangling endpoint (added as a bare node),
	// an edge with an empty label.
	g.Nodes = append(g.Nodes, extract.Node{Key: g.Nodes[0].Key, Name: "duplicate"})
	g.Edges = append(g.Edges, extract.Edge{Source: g.Nodes[0].Key, Target: "missing node", Label: "", Weight: 1})
	return g
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
	if !reflect.DeepEqual(nodes[0], NodesHeader) || !reflect.DeepEqual(edges[0], EdgesHeader) {
		t.Fatalf("headers = %q / %q", nodes[0], edges[0])
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
		{"Person", "Person", "PERSON"},
		{"works at", "works_at", "WORKS_AT"},
		{"  spaced -- out  ", "spaced_out", "SPACED_OUT"},
		{"疾病", "疾病", "疾病"},
		{"3d model", "_3d_model", "_3D_MODEL"},
		{"a;b`c'd", "a_b_c_d", "A_B_C_D"},
		{"", "", DefaultRelType},
		{"!!!", "", DefaultRelType},
		{"camelCase", "camelCase", "CAMELCASE"},
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
// line separators read as spaces.
func nameOf(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
}

func TestCypherName(t *testing.T) {
	for i, s := range append(nastyNames, "", "``", "a\x00b") {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			got, rest := unquoteName(t, CypherName(s))
			if got != nameOf(s) || rest != "" {
				t.Errorf("CypherName(%q) reads back as %q + %q", s, got, rest)
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
				if !strings.Contains(rest, "n.`rank` = ") || strings.Contains(rest, "n.`list`") {
					t.Errorf("node %d properties wrong: %s", merges, rest)
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
				if src != e.Source || tgt != e.Target || rel != nameOf(e.Label) {
					t.Errorf("edge %d reads back as %q -[%q]-> %q", matches, src, rel, tgt)
				}
			} else if rel != DefaultRelType {
				t.Errorf("empty label exported as %q", rel)
			}
			if !strings.HasPrefix(rest, "]->(b) SET r.keywords = '") || !strings.HasSuffix(rest, ";") {
				t.Errorf("edge %d malformed tail %q", matches, rest)
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

func TestWrite_Golden(t *testing.T) {
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "ada lovelace", Name: "Ada Lovelace", Type: "Person", Description: `Wrote "Notes", 1843.`},
			{Key: "analytical engine", Name: "Analytical Engine", Type: "Artifact"},
			{Key: "東京", Name: "東京", Type: "地点"},
		},
		Edges: []extract.Edge{
			{Source: "ada lovelace", Target: "analytical engine", Label: "wrote about", Keywords: "notes, program", Weight: 2},
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
