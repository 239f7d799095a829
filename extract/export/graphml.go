package export

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"

	"github.com/kgstudio/kgstudio/extract"
)

const graphMLHeader = `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">
  <key id="d_name" for="node" attr.name="name" attr.type="string"/>
  <key id="d_type" for="node" attr.name="type" attr.type="string"/>
  <key id="d_description" for="node" attr.name="description" attr.type="string"/>
  <key id="e_label" for="edge" attr.name="label" attr.type="string"/>
  <key id="e_keywords" for="edge" attr.name="keywords" attr.type="string"/>
  <key id="e_description" for="edge" attr.name="description" attr.type="string"/>
  <key id="e_weight" for="edge" attr.name="weight" attr.type="double"/>
`

const graphMLOpen = `  <graph id="G" edgedefault="directed">
`

const graphMLFooter = `  </graph>
</graphml>
`

// GraphML writes g as a GraphML document with declared keys for the node
// name, type and description, the edge label, keywords, description and
// weight, and one key per node or edge property name (ids d_p0, d_p1 ...
// and e_p0 ...; attr.type boolean, long, double or string as all the
// property's values fit; lists and maps as JSON strings; a property named
// like a field is written as ReservedPrefix + name). Node ids are the node
// keys; edges are directed, except that an edge marked undirected (see
// extract.Edge.Undirected) is written with directed="false". Characters XML cannot carry (most control
// characters) are replaced by U+FFFD.
func GraphML(w io.Writer, g extract.Graph) error {
	g = prepare(g)
	np, ep := nodeProps(g), edgeProps(g)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(graphMLHeader)
	keys := func(props []propCol, prefix, what string) {
		for i, p := range props {
			bw.WriteString(`  <key id="`)
			bw.WriteString(prefix + strconv.Itoa(i))
			bw.WriteString(`" for="` + what + `" attr.name="`)
			escape(bw, p.Out)
			bw.WriteString(`" attr.type="` + p.Kind + `"/>` + "\n")
		}
	}
	keys(np, "d_p", "node")
	keys(ep, "e_p", "edge")
	bw.WriteString(graphMLOpen)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		bw.WriteString(`    <node id="`)
		escape(bw, n.Key)
		bw.WriteString(`">`)
		data(bw, "d_name", n.Name)
		data(bw, "d_type", n.Type)
		data(bw, "d_description", n.Description)
		propData(bw, "d_p", np, n.Properties)
		bw.WriteString("</node>\n")
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		bw.WriteString(`    <edge id="e`)
		bw.WriteString(strconv.Itoa(i))
		bw.WriteString(`" source="`)
		escape(bw, e.Source)
		bw.WriteString(`" target="`)
		escape(bw, e.Target)
		if e.Undirected() {
			bw.WriteString(`" directed="false`)
		}
		bw.WriteString(`">`)
		data(bw, "e_label", e.Label)
		data(bw, "e_keywords", e.Keywords)
		data(bw, "e_description", e.Description)
		bw.WriteString(`<data key="e_weight">`)
		bw.WriteString(strconv.FormatFloat(finite(e.Weight), 'g', -1, 64))
		bw.WriteString("</data>")
		propData(bw, "e_p", ep, e.Properties)
		bw.WriteString("</edge>\n")
	}
	bw.WriteString(graphMLFooter)
	return flush(bw, "export graphml")
}

// data writes one <data> element, omitting empty values.
func data(bw *bufio.Writer, key, value string) {
	if value == "" {
		return
	}
	bw.WriteString(`<data key="`)
	bw.WriteString(key)
	bw.WriteString(`">`)
	escape(bw, value)
	bw.WriteString(`</data>`)
}

// propData writes the <data> elements of one item's properties.
func propData(bw *bufio.Writer, prefix string, cols []propCol, props map[string]any) {
	if len(props) == 0 {
		return
	}
	for i, c := range cols {
		v, ok := props[c.Name]
		if !ok {
			continue
		}
		if text, ok := formatProp(v, c.Kind); ok {
			bw.WriteString(`<data key="`)
			bw.WriteString(prefix + strconv.Itoa(i))
			bw.WriteString(`">`)
			escape(bw, text)
			bw.WriteString(`</data>`)
		}
	}
}

// escape writes s as XML character data, valid inside elements and
// double-quoted attributes. Write errors stay in bw and surface at Flush.
func escape(bw *bufio.Writer, s string) {
	_ = xml.EscapeText(bw, []byte(s))
}
