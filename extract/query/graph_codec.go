package query

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"unsafe"

	"github.com/kgstudio/kgstudio/extract"
)

// The binary form of a Graph (AppendGraph, ReadGraph): a finished
// version's graph, as its questions load it, is stored once and read by
// every later process in place (its texts are substrings of the stored
// bytes), instead of being rebuilt row by row.
//
//	magic "KGGR" | version byte
//	nodes: count, then per node its key, name, type and description,
//	       its properties (JSON, empty for none) and its mentions
//	labels: count, then each distinct edge label
//	edges: count, then per edge its source and target (a node's position
//	       + 1, or 0 and the key itself), its label's position, keywords,
//	       description, weight (float64 bits), properties and mentions
//	mentions: count, then per mention its document, chunk, start and end
//	       (signed varints) and its text
//
// Counts and positions are uvarints; texts a uvarint length and their
// bytes.
const (
	graphMagic   = "KGGR"
	graphVersion = 1
)

// AppendGraph appends g's binary form to b.
func AppendGraph(b []byte, g extract.Graph) ([]byte, error) {
	b = append(b, graphMagic...)
	b = append(b, graphVersion)
	pos := make(map[string]int, len(g.Nodes))
	b = binary.AppendUvarint(b, uint64(len(g.Nodes)))
	var err error
	for i, n := range g.Nodes {
		if _, dup := pos[n.Key]; !dup {
			pos[n.Key] = i
		}
		for _, s := range []string{n.Key, n.Name, n.Type, n.Description} {
			b = appendString(b, s)
		}
		if b, err = appendProps(b, n.Properties); err != nil {
			return nil, err
		}
		b = appendMentions(b, n.Mentions)
	}
	labels := map[string]int{}
	var order []string
	for _, e := range g.Edges {
		if _, ok := labels[e.Label]; !ok {
			labels[e.Label] = len(order)
			order = append(order, e.Label)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(order)))
	for _, l := range order {
		b = appendString(b, l)
	}
	b = binary.AppendUvarint(b, uint64(len(g.Edges)))
	for _, e := range g.Edges {
		for _, end := range []string{e.Source, e.Target} {
			if i, ok := pos[end]; ok {
				b = binary.AppendUvarint(b, uint64(i)+1)
			} else {
				b = appendString(append(b, 0), end)
			}
		}
		b = binary.AppendUvarint(b, uint64(labels[e.Label]))
		b = appendString(appendString(b, e.Keywords), e.Description)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.Weight))
		if b, err = appendProps(b, e.Properties); err != nil {
			return nil, err
		}
		b = appendMentions(b, e.Mentions)
	}
	return b, nil
}

func appendProps(b []byte, props map[string]any) ([]byte, error) {
	if len(props) == 0 {
		return append(b, 0), nil
	}
	js, err := json.Marshal(props)
	if err != nil {
		return nil, fmt.Errorf("graph properties: %w", err)
	}
	return appendString(b, string(js)), nil
}

func appendMentions(b []byte, ms []extract.Mention) []byte {
	b = binary.AppendUvarint(b, uint64(len(ms)))
	for _, m := range ms {
		for _, x := range []int{m.DocumentID, m.ChunkIndex, m.Start, m.End} {
			b = binary.AppendVarint(b, int64(x))
		}
		b = appendString(b, m.Text)
	}
	return b
}

// ReadGraph reads a graph from its binary form. Its texts are
// substrings of b, which must not change after.
func ReadGraph(b []byte) (extract.Graph, error) {
	r := lexReader{s: unsafe.String(unsafe.SliceData(b), len(b))}
	if len(r.s) < 5 || r.s[:4] != graphMagic || r.s[4] != graphVersion {
		return extract.Graph{}, fmt.Errorf("read graph: %w", errLexicalFormat)
	}
	r.s = r.s[5:]
	var g extract.Graph
	g.Nodes = make([]extract.Node, r.count())
	for i := range g.Nodes {
		n := &g.Nodes[i]
		n.Key, n.Name, n.Type, n.Description = r.str(), r.str(), r.str(), r.str()
		n.Properties = r.props()
		n.Mentions = r.mentions()
	}
	labels := make([]string, r.count())
	for i := range labels {
		labels[i] = r.str()
	}
	g.Edges = make([]extract.Edge, r.count())
	for i := range g.Edges {
		e := &g.Edges[i]
		e.Source, e.Target = r.end(g.Nodes), r.end(g.Nodes)
		if l := r.index(len(labels), false); r.err == nil {
			e.Label = labels[l]
		}
		e.Keywords, e.Description = r.str(), r.str()
		e.Weight = r.float()
		e.Properties = r.props()
		e.Mentions = r.mentions()
	}
	if r.err == nil && r.s != "" {
		r.fail()
	}
	if r.err != nil {
		return extract.Graph{}, fmt.Errorf("read graph: %w", r.err)
	}
	return g, nil
}

func (r *lexReader) float() float64 {
	if len(r.s) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.s[:8])))
	r.s = r.s[8:]
	return v
}

func (r *lexReader) props() map[string]any {
	js := r.str()
	if js == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		r.fail()
		return nil
	}
	return m
}

func (r *lexReader) mentions() []extract.Mention {
	n := r.count()
	if n == 0 {
		return nil
	}
	ms := make([]extract.Mention, n)
	for i := range ms {
		m := &ms[i]
		m.DocumentID, m.ChunkIndex, m.Start, m.End = r.varint(), r.varint(), r.varint(), r.varint()
		m.Text = r.str()
	}
	return ms
}

// varint reads a zigzag varint (a mention's numbers).
func (r *lexReader) varint() int {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return int(v)
}

// end reads an edge's source or target: a node's key, or its own.
func (r *lexReader) end(nodes []extract.Node) string {
	i := r.uvarint()
	if i == 0 {
		return r.str()
	}
	if i > uint64(len(nodes)) {
		r.fail()
		return ""
	}
	return nodes[i-1].Key
}
