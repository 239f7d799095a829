package export

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// ReadFormats lists the format names accepted by Read.
var ReadFormats = []string{"json", "graphml", "csv"}

// FormatOf names the graph format of a file from its extension: "json",
// "graphml" or "csv" (a .csv file or a .zip of them); "" when the
// extension names none.
func FormatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return "json"
	case ".graphml", ".xml":
		return "graphml"
	case ".csv", ".zip":
		return "csv"
	}
	return ""
}

// Read parses a graph written by JSON or GraphML (or, for GraphML, by
// another tool using the same attribute names), or a neo4j CSV export
// ("csv": one file, or a zip of them; see ReadCSV). Mentions are dropped:
// they point at documents of the database that wrote the file. Data that
// is not a graph of that format is a KindInvalid error saying so.
func Read(data []byte, format string) (extract.Graph, error) {
	switch format {
	case "json":
		return ReadJSON(data)
	case "graphml":
		return ReadGraphML(data)
	case "csv":
		if IsZip(data) {
			return ReadCSVZip(data)
		}
		return ReadCSV([]CSVFile{{Data: data}})
	}
	return extract.Graph{}, extract.Errorf(extract.KindInvalid, "unknown graph format %q (want json, graphml or csv)", format)
}

// jsonEdge is an edge as ReadJSON reads it: a missing weight weighs 1.
type jsonEdge struct {
	extract.Edge
	Weight *float64 `json:"weight"`
}

// ReadJSON parses the JSON written by JSON: an object with "nodes" and
// "edges" (an edge without a weight weighs 1, as in GraphML); a JSON
// array is read as KAG's domain KG nodes file (see ReadKAG), and
// networkx's node-link JSON as readNodeLink says. A field
// JSON does not write is refused by name, so nothing in the file is
// dropped unseen (another tool's "relationships" or a node's "colour").
func ReadJSON(data []byte) (extract.Graph, error) {
	if isJSONArray(data) {
		return ReadKAG(data, nil)
	}
	var raw struct {
		Nodes *[]extract.Node `json:"nodes"`
		Edges *[]jsonEdge     `json:"edges"`
	}
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(body)) == 0 {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a JSON graph: the file is empty")
	}
	if isNodeLink(body) {
		return readNodeLink(body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		if field, ok := unknownField(err); ok {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid,
				"not a JSON graph: line %d: unknown field %s (a node has key, name, type, description, properties and mentions; an edge source, target, label, keywords, description, weight, properties and mentions)",
				1+bytes.Count(body[:min(int(dec.InputOffset()), len(body))], []byte("\n")), field)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a JSON graph: the file ends early (line %d): is it cut off?", 1+bytes.Count(body, []byte("\n")))
		}
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a JSON graph (want an object with \"nodes\" and \"edges\"): %s", extract.JSONProblem(body, err))
	}
	if raw.Nodes == nil {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a JSON graph: the object has no \"nodes\" list")
	}
	g := extract.Graph{Nodes: *raw.Nodes}
	if raw.Edges != nil {
		g.Edges = make([]extract.Edge, len(*raw.Edges))
		for i, e := range *raw.Edges {
			g.Edges[i] = e.Edge
			g.Edges[i].Weight = 1
			if e.Weight != nil {
				g.Edges[i].Weight = *e.Weight
			}
		}
	}
	return clean(g)
}

// deepErr refuses a property that nests too deep, naming the item and
// the property.
func deepErr(item, prop string) error {
	return extract.Errorf(extract.KindInvalid,
		"%s: property %q nests lists or maps more than %d levels deep: flatten it, or give it as text", item, prop, MaxPropertyDepth)
}

// unknownField returns the quoted name in encoding/json's error for a
// field that DisallowUnknownFields refuses.
func unknownField(err error) (string, bool) {
	const prefix = "json: unknown field "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	return strings.TrimPrefix(msg, prefix), true
}

// graphMLFile is the subset of GraphML that ReadGraphML reads.
type graphMLFile struct {
	XMLName xml.Name `xml:"graphml"`
	Keys    []struct {
		ID   string `xml:"id,attr"`
		For  string `xml:"for,attr"`
		Name string `xml:"attr.name,attr"`
		Type string `xml:"attr.type,attr"`
		// YFiles is yEd's yfiles.type: nodegraphics and edgegraphics
		// data hold a node's or an edge's drawing, with its label.
		YFiles string `xml:"yfiles.type,attr"`
	} `xml:"key"`
	Graphs []struct {
		EdgeDefault string `xml:"edgedefault,attr"`
		Nodes       []struct {
			ID   string        `xml:"id,attr"`
			Data []graphMLData `xml:"data"`
		} `xml:"node"`
		Edges []struct {
			Source   string        `xml:"source,attr"`
			Target   string        `xml:"target,attr"`
			Directed string        `xml:"directed,attr"`
			Data     []graphMLData `xml:"data"`
		} `xml:"edge"`
	} `xml:"graph"`
}

type graphMLData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
	Inner string `xml:",innerxml"`
}

// ReadGraphML parses GraphML as GraphML writes it: node ids are keys; the
// attributes named name, type and description (nodes) and label,
// keywords, description and weight (edges) fill those fields; the others
// are properties, typed by their attr.type (strings holding a JSON list
// or map read back as one). A node without a name is named by its label
// attribute (as Gephi and networkx write it), else by its id; a node
// without a type is typed by its entity_type attribute (LightRAG's).
// An undirected edge (directed="false", or no directed attribute in a
// graph with edgedefault="undirected") stays one edge, its source and
// target in the file's order, with the property extract.DirectedProperty
// set to false, which GraphML writes back as directed="false".
func ReadGraphML(data []byte) (extract.Graph, error) {
	var doc graphMLFile
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))) == 0 {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a GraphML graph: the file is empty")
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var badCharset string
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(strings.TrimSpace(label)) {
		case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii":
			return latin1Reader(in)
		}
		badCharset = label
		return nil, errors.New("unsupported encoding")
	}
	if err := dec.Decode(&doc); err != nil {
		if badCharset != "" {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a GraphML graph: its encoding %q is not read here: save the file as UTF-8 (or ISO-8859-1)", badCharset)
		}
		var syn *xml.SyntaxError
		if errors.As(err, &syn) {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a GraphML graph: line %d: %s", syn.Line, syn.Msg)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a GraphML graph: the file ends early: is it cut off?")
		}
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a GraphML graph: %s", err.Error())
	}
	if len(doc.Graphs) == 0 {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "not a GraphML graph: no <graph> element")
	}
	type key struct{ name, typ, yfiles string }
	keys := map[string]key{}
	for _, k := range doc.Keys {
		keys[k.ID] = key{k.Name, k.Type, k.YFiles}
	}
	// keyOf is a data element's key; one the file never declares is read
	// as a string named by its id, not dropped.
	keyOf := func(id string) key {
		if k, ok := keys[id]; ok {
			return k
		}
		return key{name: id}
	}
	var g extract.Graph
	for _, gr := range doc.Graphs {
		for _, n := range gr.Nodes {
			node, yedName := extract.Node{Key: n.ID}, ""
			for _, d := range n.Data {
				k := keyOf(d.Key)
				if k.yfiles == "nodegraphics" {
					yedName = yEdLabel(d.Inner, "NodeLabel")
					continue
				}
				switch k.name {
				case "name":
					node.Name = d.Value
				case "type":
					node.Type = d.Value
				case "description":
					node.Description = d.Value
				default:
					setProp(&node.Properties, k.name, k.typ, d.Value, nodeFields)
				}
			}
			if node.Type == "" {
				// LightRAG types its nodes in "entity_type".
				if t, ok := node.Properties["entity_type"].(string); ok {
					node.Type = strings.TrimSpace(t)
				}
			}
			if node.Name == "" {
				// Gephi and networkx name nodes in "label".
				// yEd writes it in its drawing's <y:NodeLabel>.
				if l, ok := node.Properties["label"].(string); ok && strings.TrimSpace(l) != "" {
					node.Name = l
				} else if yedName != "" {
					node.Name = yedName
				} else {
					node.Name = n.ID
				}
			}
			g.Nodes = append(g.Nodes, node)
		}
		for _, e := range gr.Edges {
			edge := extract.Edge{Source: e.Source, Target: e.Target, Weight: 1}
			if undirectedEdge(e.Directed, gr.EdgeDefault) {
				edge.Properties = map[string]any{extract.DirectedProperty: false}
			}
			for _, d := range e.Data {
				k := keyOf(d.Key)
				if k.yfiles == "edgegraphics" {
					if edge.Label == "" {
						edge.Label = yEdLabel(d.Inner, "EdgeLabel")
					}
					continue
				}
				switch k.name {
				case "label":
					edge.Label = d.Value
				case "keywords":
					edge.Keywords = d.Value
				case "description":
					edge.Description = d.Value
				case "weight":
					w, err := strconv.ParseFloat(strings.TrimSpace(d.Value), 64)
					if err != nil {
						return extract.Graph{}, extract.Errorf(extract.KindInvalid, "edge %d (%s -> %s): weight %q is not a number", len(g.Edges)+1, e.Source, e.Target, d.Value)
					}
					edge.Weight = w
				default:
					setProp(&edge.Properties, k.name, k.typ, d.Value, edgeFields)
				}
			}
			g.Edges = append(g.Edges, edge)
		}
	}
	return clean(g)
}

// yEdLabel is the text of the first element named label (NodeLabel or
// EdgeLabel, in yEd's namespace) in a yEd drawing, or "".
func yEdLabel(inner, label string) string {
	dec := xml.NewDecoder(strings.NewReader(inner))
	depth := 0 // inside the label element: 1 for its own text
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth > 0 {
				depth++
			} else if t.Name.Local == label {
				depth = 1
			}
		case xml.EndElement:
			if depth == 1 {
				return strings.TrimSpace(text.String())
			}
			if depth > 0 {
				depth--
			}
		case xml.CharData:
			if depth == 1 {
				text.Write(t)
			}
		}
	}
	return strings.TrimSpace(text.String())
}

// latin1Reader decodes ISO-8859-1 to UTF-8: each byte is the code point
// of the same value.
func latin1Reader(in io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	var out strings.Builder
	out.Grow(len(b))
	for _, c := range b {
		out.WriteRune(rune(c))
	}
	return strings.NewReader(out.String()), nil
}

// undirectedEdge reports whether a GraphML edge with the directed
// attribute directed, in a graph with the given edgedefault, is
// undirected: the edge's own attribute wins; GraphML's default is
// directed.
func undirectedEdge(directed, edgeDefault string) bool {
	if d := strings.TrimSpace(directed); d != "" {
		return strings.EqualFold(d, "false")
	}
	return strings.EqualFold(strings.TrimSpace(edgeDefault), "undirected")
}

// setProp stores one GraphML property value, read by its declared type,
// under its name (the reserved prefix taken off a field's name).
func setProp(props *map[string]any, name, typ, text string, fields map[string]bool) {
	if name == "" {
		return
	}
	if rest, ok := strings.CutPrefix(name, ReservedPrefix); ok && fields[rest] {
		name = rest
	}
	var v any = text
	switch typ {
	case kindBoolean:
		if b, err := strconv.ParseBool(strings.TrimSpace(text)); err == nil {
			v = b
		}
	case kindLong, "int":
		if n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err == nil {
			v = n
		}
	case kindDouble, "float":
		if f, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
			v = f
		}
	default:
		if t := strings.TrimSpace(text); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			var j any
			if json.Unmarshal([]byte(t), &j) == nil {
				v = j
			}
		}
	}
	if *props == nil {
		*props = map[string]any{}
	}
	(*props)[name] = v
}

// clean drops mentions, checks that every node has a key of its own
// (a key given twice would drop a node), every edge names two of its
// nodes and no property nests deeper than MaxPropertyDepth, names a
// nameless node by its key, and rejects an empty graph.
func clean(g extract.Graph) (extract.Graph, error) { return cleanGraph(g, false) }

// cleanGraph is clean; keyed says the reader has checked the keys and
// the edges' ends already (a million keys take 50 MB to check again).
func cleanGraph(g extract.Graph, keyed bool) (extract.Graph, error) {
	if len(g.Nodes) == 0 {
		return g, extract.Errorf(extract.KindInvalid, "the graph has no nodes")
	}
	for i := range g.Nodes {
		g.Nodes[i].Mentions = nil
		if g.Nodes[i].Key == "" {
			if g.Nodes[i].Name == "" {
				return g, extract.Errorf(extract.KindInvalid, "node %d has neither a key nor a name", i+1)
			}
			g.Nodes[i].Key = extract.NodeKey(g.Nodes[i].Name)
		}
		if strings.TrimSpace(g.Nodes[i].Name) == "" {
			g.Nodes[i].Name = g.Nodes[i].Key
		}
		if k, deep := DeepProperty(g.Nodes[i].Properties); deep {
			return g, deepErr(fmt.Sprintf("node %d (%q)", i+1, g.Nodes[i].Key), k)
		}
	}
	if keyed {
		for i := range g.Edges {
			e := &g.Edges[i]
			e.Mentions = nil
			if k, deep := DeepProperty(e.Properties); deep {
				return g, deepErr(fmt.Sprintf("edge %d (%s -%s-> %s)", i+1, e.Source, e.Label, e.Target), k)
			}
		}
		return g, nil
	}
	keys := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		if first, ok := keys[n.Key]; ok {
			return g, extract.Errorf(extract.KindInvalid, "node %d has the key %q of node %d: give each node its own key", i+1, n.Key, first)
		}
		keys[n.Key] = i + 1
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		e.Mentions = nil
		if e.Source == "" || e.Target == "" {
			return g, extract.Errorf(extract.KindInvalid, "edge %d lacks a source or a target", i+1)
		}
		for _, end := range []string{e.Source, e.Target} {
			if keys[end] == 0 {
				return g, extract.Errorf(extract.KindInvalid, "edge %d (%s -%s-> %s): no node with key %q", i+1, e.Source, e.Label, e.Target, end)
			}
		}
		if k, deep := DeepProperty(e.Properties); deep {
			return g, deepErr(fmt.Sprintf("edge %d (%s -%s-> %s)", i+1, e.Source, e.Label, e.Target), k)
		}
	}
	return g, nil
}
