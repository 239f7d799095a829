package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// jsonForm passes a graph through JSON, as the store does with properties.
func jsonForm(t *testing.T, g extract.Graph) extract.Graph {
	t.Helper()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var out extract.Graph
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// What JSON and GraphML write reads back the same: keys, names, types,
// descriptions, weights and typed properties (lists, maps, booleans,
// numbers, a property named like a field).
func TestRead_RoundTrip(t *testing.T) {
	t.Parallel()
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "ebenezer scrooge", Name: "Ebenezer Scrooge", Type: "person", Description: "A miser.\nHe signed it.",
				Properties: map[string]any{"aliases": []any{"Mr. Scrooge"}, "type_counts": map[string]any{"person": 2.0}, "age": 60.0, "rich": true, "name": "Scrooge <&>"}},
			{Key: "jacob marley", Name: "Jacob Marley", Type: "person", Properties: map[string]any{"score": 0.5}},
		},
		Edges: []extract.Edge{{Source: "ebenezer scrooge", Label: "partner of", Target: "jacob marley", Keywords: "business", Weight: 2.5,
			Properties: map[string]any{"since": 7.0, "label": "x"}}},
	}
	want := jsonForm(t, g)
	for _, format := range []string{"json", "graphml"} {
		var buf bytes.Buffer
		if err := Write(&buf, format, g); err != nil {
			t.Fatal(err)
		}
		got, err := Read(buf.Bytes(), format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if got := jsonForm(t, got); !reflect.DeepEqual(got, want) {
			t.Errorf("%s round trip:\n got %+v\nwant %+v", format, got, want)
		}
	}
}

// Data that is not a graph is refused with a message saying so.
func TestRead_NotAGraph(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ format, data string }{
		{"json", "Marley was dead, to begin with."},
		{"json", `{"a":1}`},
		{"json", `{"nodes":[]}`},
		{"graphml", "Marley was dead."},
		{"graphml", `<graphml xmlns="http://graphml.graphdrawing.org/xmlns"></graphml>`},
		{"csv", "a,b"},
	} {
		if _, err := Read([]byte(c.data), c.format); extract.KindOf(err) != extract.KindInvalid || extract.MessageOf(err) == "" {
			t.Errorf("%s %q: %v, want invalid", c.format, c.data, err)
		}
	}
}

// TestRead_DanglingEdges: an edge naming a node the file does not hold is
// refused, naming the edge and the missing key; a cut-off JSON file says
// so; a GraphML edge without a weight weighs 1.
func TestRead_DanglingEdges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ format, data, want string }{
		{"json", `{"nodes":[{"key":"a","name":"A"}],"edges":[{"source":"a","target":"zz","label":"knows"}]}`, `edge 1 (a -knows-> zz): no node with key "zz"`},
		{"graphml", `<graphml><graph><node id="n0"/><node id="n1"/><edge source="n0" target="n2"/></graph></graphml>`, `no node with key "n2"`},
		{"json", "{\"nodes\":[{\"key\":\"a\",\n\"name\":\"A\"}", "ends early (line 2)"},
		{"json", "{\"nodes\":[{\"key\":\"a\",\n\"name\":}]}", "line 2"},
	} {
		_, err := Read([]byte(c.data), c.format)
		if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), c.want) {
			t.Errorf("%s %q: %v, want an error saying %q", c.format, c.data, err, c.want)
		}
	}
	g, err := Read([]byte(`<graphml><graph><node id="n0"/><node id="n1"/><edge source="n0" target="n1"/></graph></graphml>`), "graphml")
	if err != nil || len(g.Edges) != 1 || g.Edges[0].Weight != 1 {
		t.Fatalf("graphml edge without weight: %+v %v", g.Edges, err)
	}
}

// An undirected GraphML edge (edgedefault="undirected", or directed="false"
// on the edge) is one edge in the file's order marked directed=false; an
// edge's own directed attribute wins over the graph's default. Written
// back as GraphML it reads the same, and it says directed="false".
func TestReadGraphML_Undirected(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "undirected.graphml"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadGraphML(data)
	if err != nil {
		t.Fatal(err)
	}
	type edge struct {
		src, label, tgt string
		undirected      bool
	}
	var got []edge
	for _, e := range g.Edges {
		got = append(got, edge{e.Source, e.Label, e.Target, e.Undirected()})
	}
	want := []edge{
		{"Scrooge", "partner of", "Marley", true},
		{"Fred", "nephew of", "Scrooge", false},
		{"Cratchit", "clerk of", "Scrooge", false},
		{"Cratchit", "knows", "Fred", true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("edges:\n got %v\nwant %v", got, want)
	}
	var buf bytes.Buffer
	if err := GraphML(&buf, g); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `directed="false"`); n != 2 {
		t.Errorf("the export marks %d edges directed=\"false\", want 2:\n%s", n, buf.String())
	}
	back, err := ReadGraphML(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if a, b := jsonForm(t, g), jsonForm(t, back); !reflect.DeepEqual(a, b) {
		t.Errorf("export -> import:\n got %+v\nwant %+v", b, a)
	}
	for _, format := range []string{"json", "csv"} {
		var back extract.Graph
		if format == "csv" {
			var nodes, edges bytes.Buffer
			if err := CSV(&nodes, &edges, g); err != nil {
				t.Fatal(err)
			}
			back, err = ReadCSV([]CSVFile{{Name: NodesFile, Data: nodes.Bytes()}, {Name: EdgesFile, Data: edges.Bytes()}})
		} else {
			var b bytes.Buffer
			if err := JSON(&b, g); err != nil {
				t.Fatal(err)
			}
			back, err = ReadJSON(b.Bytes())
		}
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for i := range back.Edges {
			if back.Edges[i].Undirected() != g.Edges[i].Undirected() {
				t.Errorf("%s: edge %d undirected %v after the round trip", format, i, back.Edges[i].Undirected())
			}
		}
	}
}

// TestRead_BadInput: what a file would lose or get wrong on import is
// refused with the place and the reason: a node key given twice, an
// unknown JSON field (another tool's "relationships"), a GraphML weight that is not a number, broken or
// empty XML.
func TestRead_BadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, format, data, want string }{
		{"json repeated key", "json", `{"nodes":[{"key":"a","name":"A"},{"key":"a","name":"A2"}],"edges":[]}`, `node 2 has the key "a" of node 1`},
		{"json repeated name", "json", `{"nodes":[{"name":"Marley"},{"name":"marley"}]}`, `node 2 has the key "marley" of node 1`},
		{"graphml repeated id", "graphml", `<graphml><graph><node id="x"/><node id="x"/></graph></graphml>`, `node 2 has the key "x" of node 1`},
		{"json unknown node field", "json", "{\"nodes\":[\n{\"key\":\"a\",\"name\":\"A\",\"colour\":\"red\"}]}", `line 2: unknown field "colour"`},
		{"json unknown top field", "json", `{"nodes":[{"key":"a"}],"relationships":[{"source":"a","target":"a"}]}`, `unknown field "relationships"`},
		{"node-link without ids", "json", `{"nodes":[{"key":"a"}],"links":[]}`, `node 1: want an "id"`},
		{"graphml weight", "graphml", `<graphml><key id="w" for="edge" attr.name="weight" attr.type="double"/><graph><node id="a"/><node id="b"/><edge source="a" target="b"><data key="w">heavy</data></edge></graph></graphml>`, `edge 1 (a -> b): weight "heavy" is not a number`},
		{"graphml broken", "graphml", "<graphml><graph>\n<node id=\"a\">\n</graph></graphml>", "line 3"},
		{"graphml empty", "graphml", "", "the file is empty"},
		{"json empty", "json", " \n", "the file is empty"},
	} {
		_, err := Read([]byte(c.data), c.format)
		if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), c.want) {
			t.Errorf("%s: %v, want an invalid error saying %q", c.name, err, c.want)
		}
	}
}

// TestReadJSON_EdgeWeight: a JSON edge without a weight weighs 1, as a
// GraphML edge does; a weight given, 0 included, is kept.
func TestReadJSON_EdgeWeight(t *testing.T) {
	t.Parallel()
	g, err := Read([]byte(`{"nodes":[{"key":"a"},{"key":"b"}],"edges":[{"source":"a","target":"b","label":"x"},{"source":"b","target":"a","label":"y","weight":0},{"source":"a","target":"b","label":"z","weight":2.5}]}`), "json")
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, e := range g.Edges {
		got = append(got, e.Weight)
	}
	if fmt.Sprint(got) != "[1 0 2.5]" {
		t.Errorf("weights %v, want [1 0 2.5]", got)
	}
}

// TestReadGraphML_NodeLabel: GraphML from Gephi or networkx names its
// nodes in a "label" attribute; without a "name" the label names the
// node (and stays a property), else the id does.
func TestReadGraphML_NodeLabel(t *testing.T) {
	t.Parallel()
	g, err := Read([]byte(`<graphml><key id="label" for="node" attr.name="label" attr.type="string"/>
<graph><node id="0"><data key="label">Ada Lovelace</data></node><node id="1"/></graph></graphml>`), "graphml")
	if err != nil {
		t.Fatal(err)
	}
	if g.Nodes[0].Name != "Ada Lovelace" || g.Nodes[0].Properties["label"] != "Ada Lovelace" || g.Nodes[1].Name != "1" {
		t.Errorf("nodes %+v", g.Nodes)
	}
}

// TestReadGraphML_YEd: yEd keeps a node's name in its drawing
// (<y:NodeLabel> under a key with yfiles.type="nodegraphics") and an
// edge's in <y:EdgeLabel>; both are read, the drawing itself is not kept.
func TestReadGraphML_YEd(t *testing.T) {
	t.Parallel()
	g, err := Read([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:y="http://www.yworks.com/xml/graphml">
  <key for="node" id="d6" yfiles.type="nodegraphics"/>
  <key for="edge" id="d10" yfiles.type="edgegraphics"/>
  <graph edgedefault="directed" id="G">
    <node id="n0"><data key="d6"><y:ShapeNode><y:Geometry height="30" width="30" x="0" y="0"/>
      <y:NodeLabel alignment="center" autoSizePolicy="content">Ada Lovelace<y:LabelModel><y:SmartNodeLabelModel distance="4.0"/></y:LabelModel></y:NodeLabel>
      <y:Shape type="rectangle"/></y:ShapeNode></data></node>
    <node id="n1"><data key="d6"><y:ShapeNode><y:NodeLabel>Charles Babbage</y:NodeLabel></y:ShapeNode></data></node>
    <node id="n2"><data key="d6"><y:ShapeNode><y:Shape type="ellipse"/></y:ShapeNode></data></node>
    <edge id="e0" source="n0" target="n1"><data key="d10"><y:PolyLineEdge><y:EdgeLabel>worked with</y:EdgeLabel></y:PolyLineEdge></data></edge>
  </graph>
</graphml>`), "graphml")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{g.Nodes[0].Name, g.Nodes[1].Name, g.Nodes[2].Name}
	if names[0] != "Ada Lovelace" || names[1] != "Charles Babbage" || names[2] != "n2" {
		t.Errorf("names %q", names)
	}
	if len(g.Edges) != 1 || g.Edges[0].Label != "worked with" {
		t.Errorf("edges %+v", g.Edges)
	}
	if len(g.Nodes[0].Properties) != 0 {
		t.Errorf("the drawing was kept: %v", g.Nodes[0].Properties)
	}
}

// TestReadGraphML_Encoding: GraphML declared ISO-8859-1 (Latin-1) is
// read as such; an encoding it cannot read is refused by name with the
// way out.
func TestReadGraphML_Encoding(t *testing.T) {
	t.Parallel()
	latin1 := append([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?><graphml><graph><node id="Jos`), 0xe9)
	latin1 = append(latin1, []byte(`"/></graph></graphml>`)...)
	g, err := Read(latin1, "graphml")
	if err != nil || g.Nodes[0].Name != "José" {
		t.Fatalf("latin-1: %+v %v", g.Nodes, err)
	}
	_, err = Read([]byte(`<?xml version="1.0" encoding="Shift_JIS"?><graphml><graph><node id="a"/></graph></graphml>`), "graphml")
	if !strings.Contains(extract.MessageOf(err), `encoding "Shift_JIS" is not read here: save the file as UTF-8`) {
		t.Errorf("Shift_JIS: %v", err)
	}
}

// TestReadJSON_NodeLink: networkx's node-link JSON (node_link_data, also
// d3's) imports: ids (strings or numbers) are keys, "name" or "label"
// names a node, "links" or "edges" holds the edges, the other attributes
// are properties, and "directed": false marks every edge undirected.
func TestReadJSON_NodeLink(t *testing.T) {
	t.Parallel()
	for _, edges := range []string{"links", "edges"} {
		data := `{"directed": false, "multigraph": false, "graph": {"name": "g"},
 "nodes": [{"id": 1, "label": "Ada Lovelace", "type": "Person", "born": 1815}, {"id": "babbage", "name": "Charles Babbage"}, {"id": 3}],
 "` + edges + `": [{"source": 1, "target": "babbage", "label": "knew", "weight": 2}, {"source": "babbage", "target": 3, "since": "1833"}]}`
		g, err := Read([]byte(data), "json")
		if err != nil {
			t.Fatalf("%s: %v", edges, err)
		}
		if len(g.Nodes) != 3 || g.Nodes[0].Key != "1" || g.Nodes[0].Name != "Ada Lovelace" || g.Nodes[0].Type != "Person" ||
			g.Nodes[0].Properties["born"] != 1815.0 || g.Nodes[1].Name != "Charles Babbage" || g.Nodes[2].Name != "3" {
			t.Errorf("%s: nodes %+v", edges, g.Nodes)
		}
		if len(g.Edges) != 2 || g.Edges[0].Source != "1" || g.Edges[0].Target != "babbage" || g.Edges[0].Label != "knew" ||
			g.Edges[0].Weight != 2 || g.Edges[1].Weight != 1 || g.Edges[1].Properties["since"] != "1833" ||
			g.Edges[0].Properties[extract.DirectedProperty] != false {
			t.Errorf("%s: edges %+v", edges, g.Edges)
		}
	}
	_, err := Read([]byte(`{"directed": true, "nodes": [{"id": "a"}], "links": [{"source": "a", "target": "zz"}]}`), "json")
	if !strings.Contains(extract.MessageOf(err), `no node with key "zz"`) {
		t.Errorf("dangling link: %v", err)
	}
}

// TestRead_NamelessNode: a JSON node with a key and no name is named by
// its key, as a GraphML node is by its id, so no node is drawn nameless.
func TestRead_NamelessNode(t *testing.T) {
	t.Parallel()
	g, err := Read([]byte(`{"nodes":[{"key":"y","name":"","type":""},{"key":"z"}]}`), "json")
	if err != nil || g.Nodes[0].Name != "y" || g.Nodes[1].Name != "z" {
		t.Fatalf("%+v %v", g.Nodes, err)
	}
}

// TestReadGraphML_LightRAG: the GraphML LightRAG keeps its graph in
// (networkx's, entity names as ids) types its nodes by entity_type.
func TestReadGraphML_LightRAG(t *testing.T) {
	t.Parallel()
	data := `<?xml version='1.0' encoding='utf-8'?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="entity_id" attr.type="string" />
  <key id="d1" for="node" attr.name="entity_type" attr.type="string" />
  <key id="d2" for="node" attr.name="description" attr.type="string" />
  <key id="d5" for="edge" attr.name="weight" attr.type="double" />
  <key id="d6" for="edge" attr.name="description" attr.type="string" />
  <key id="d7" for="edge" attr.name="keywords" attr.type="string" />
  <graph edgedefault="undirected">
    <node id="Scrooge"><data key="d0">Scrooge</data><data key="d1">person</data><data key="d2">A miser.</data></node>
    <node id="Marley"><data key="d0">Marley</data><data key="d1">person</data></node>
    <edge source="Scrooge" target="Marley"><data key="d5">2.0</data><data key="d6">Partners.</data><data key="d7">business,partnership</data></edge>
  </graph>
</graphml>`
	g, err := Read([]byte(data), "graphml")
	if err != nil {
		t.Fatal(err)
	}
	if g.Nodes[0].Name != "Scrooge" || g.Nodes[0].Type != "person" || g.Nodes[0].Description != "A miser." || g.Nodes[1].Type != "person" {
		t.Errorf("nodes %+v", g.Nodes)
	}
	if e := g.Edges[0]; e.Weight != 2 || e.Keywords != "business,partnership" || e.Description != "Partners." {
		t.Errorf("edge %+v", e)
	}
}

// TestReadGraphML_UndeclaredKey: data under a key the file never declares
// is kept under the key's id, not dropped.
func TestReadGraphML_UndeclaredKey(t *testing.T) {
	t.Parallel()
	g, err := Read([]byte(`<graphml><graph><node id="a"><data key="name">Ada</data><data key="born">1815</data></node><node id="b"/>
<edge source="a" target="b"><data key="label">knew</data><data key="since">1833</data></edge></graph></graphml>`), "graphml")
	if err != nil {
		t.Fatal(err)
	}
	if n := g.Nodes[0]; n.Name != "Ada" || n.Properties["born"] != "1815" {
		t.Errorf("node %+v", n)
	}
	if e := g.Edges[0]; e.Label != "knew" || e.Properties["since"] != "1833" {
		t.Errorf("edge %+v", e)
	}
}
