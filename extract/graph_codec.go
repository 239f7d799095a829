package extract

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"unsafe"
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

var errGraphFormat = errors.New("not a graph in kgstudio's binary form")

// AppendGraph appends g's binary form to b.
func AppendGraph(b []byte, g Graph) ([]byte, error) {
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
			b = appendText(b, s)
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
		b = appendText(b, l)
	}
	b = binary.AppendUvarint(b, uint64(len(g.Edges)))
	for _, e := range g.Edges {
		for _, end := range []string{e.Source, e.Target} {
			if i, ok := pos[end]; ok {
				b = binary.AppendUvarint(b, uint64(i)+1)
			} else {
				b = appendText(append(b, 0), end)
			}
		}
		b = binary.AppendUvarint(b, uint64(labels[e.Label]))
		b = appendText(appendText(b, e.Keywords), e.Description)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.Weight))
		if b, err = appendProps(b, e.Properties); err != nil {
			return nil, err
		}
		b = appendMentions(b, e.Mentions)
	}
	return b, nil
}

func appendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendProps(b []byte, props map[string]any) ([]byte, error) {
	if len(props) == 0 {
		return append(b, 0), nil
	}
	js, err := json.Marshal(props)
	if err != nil {
		return nil, fmt.Errorf("graph properties: %w", err)
	}
	return appendText(b, string(js)), nil
}

func appendMentions(b []byte, ms []Mention) []byte {
	b = binary.AppendUvarint(b, uint64(len(ms)))
	for _, m := range ms {
		for _, x := range []int{m.DocumentID, m.ChunkIndex, m.Start, m.End} {
			b = binary.AppendVarint(b, int64(x))
		}
		b = appendText(b, m.Text)
	}
	return b
}

// ReadGraph reads a graph from its binary form. Its texts are
// substrings of b, which must not change after.
func ReadGraph(b []byte) (Graph, error) {
	r := graphReader{s: unsafe.String(unsafe.SliceData(b), len(b))}
	if len(r.s) < 5 || r.s[:4] != graphMagic || r.s[4] != graphVersion {
		return Graph{}, errGraphFormat
	}
	r.s = r.s[5:]
	var g Graph
	g.Nodes = make([]Node, r.count())
	for i := range g.Nodes {
		n := &g.Nodes[i]
		n.Key, n.Name, n.Type, n.Description = r.text(), r.text(), r.text(), r.text()
		n.Properties = r.props()
		n.Mentions = r.mentions()
	}
	labels := make([]string, r.count())
	for i := range labels {
		labels[i] = r.text()
	}
	g.Edges = make([]Edge, r.count())
	for i := range g.Edges {
		e := &g.Edges[i]
		e.Source, e.Target = r.end(g.Nodes), r.end(g.Nodes)
		if l := r.uvarint(); l < uint64(len(labels)) {
			e.Label = labels[l]
		} else {
			r.fail()
		}
		e.Keywords, e.Description = r.text(), r.text()
		e.Weight = r.float()
		e.Properties = r.props()
		e.Mentions = r.mentions()
	}
	if r.err == nil && r.s != "" {
		r.fail()
	}
	if r.err != nil {
		return Graph{}, fmt.Errorf("read graph: %w", r.err)
	}
	return g, nil
}

// graphReader reads the binary form, remembering its first error.
type graphReader struct {
	s   string
	err error
}

func (r *graphReader) fail() {
	if r.err == nil {
		r.err = errGraphFormat
	}
	r.s = ""
}

func (r *graphReader) uvarint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if r.s == "" {
			r.fail()
			return 0
		}
		c := r.s[0]
		r.s = r.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.fail()
	return 0
}

// count reads a count no larger than the bytes left could hold.
func (r *graphReader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.s)) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *graphReader) text() string {
	n := r.count()
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *graphReader) float() float64 {
	if len(r.s) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.s[:8])))
	r.s = r.s[8:]
	return v
}

func (r *graphReader) props() map[string]any {
	js := r.text()
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

func (r *graphReader) mentions() []Mention {
	n := r.count()
	if n == 0 {
		return nil
	}
	ms := make([]Mention, n)
	for i := range ms {
		m := &ms[i]
		m.DocumentID, m.ChunkIndex, m.Start, m.End = r.int(), r.int(), r.int(), r.int()
		m.Text = r.text()
	}
	return ms
}

// int reads a zigzag varint (a mention's numbers).
func (r *graphReader) int() int {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return int(v)
}

// end reads an edge's source or target: a node's key, or its own.
func (r *graphReader) end(nodes []Node) string {
	i := r.uvarint()
	if i == 0 {
		return r.text()
	}
	if i > uint64(len(nodes)) {
		r.fail()
		return ""
	}
	return nodes[i-1].Key
}
