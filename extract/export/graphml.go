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
  <graph id="G" edgedefault="directed">
`

const graphMLFooter = `  </graph>
</graphml>
`

// GraphML writes g as a GraphML document with declared keys for the node
// name, type and description and the edge label, keywords, description and
// weight. Node ids are the node keys; edges are directed. Characters XML
// cannot carry (most control characters) are replaced by U+FFFD.
func GraphML(w io.Writer, g extract.Graph) error {
	g = prepare(g)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(graphMLHeader)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		bw.WriteString(`    <node id="`)
		escape(bw, n.Key)
		bw.WriteString(`">`)
		data(bw, "d_name", n.Name)
		data(bw, "d_type", n.Type)
		data(bw, "d_description", n.Description)
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
		bw.WriteString(`">`)
		data(bw, "e_label", e.Label)
		data(bw, "e_keywords", e.Keywords)
		data(bw, "e_description", e.Description)
		bw.WriteString(`<data key="e_weight">`)
		bw.WriteString(strconv.FormatFloat(finite(e.Weight), 'g', -1, 64))
		bw.WriteString("</data></edge>\n")
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

// escape writes s as XML character data, valid inside elements and
// double-quoted attributes. Write errors stay in bw and surface at Flush.
func escape(bw *bufio.Writer, s string) {
	_ = xml.EscapeText(bw, []byte(s))
}
