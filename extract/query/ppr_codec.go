package query

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"unsafe"
)

// The binary form of a corpus's walk graph (AppendWalk, ReadWalk): the
// adjacency ppr and mix walk, in compressed rows, built once and stored
// with the version so a later process reads it instead of building it
// from the graph, the chunks and the names.
//
//	magic "KGWG" | version byte | nodes, passages, the longest name, vertices
//	offsets (vertices+1), then the links' ends and probabilities (uvarint
//	ends, float32 bits), the nodes' spreads, then the names: count, and
//	per name its text and its vertices
const (
	walkMagic   = "KGWG"
	walkVersion = 1
)

// AppendWalk appends the binary form of the corpus's walk graph (built
// now if no search has built it) to b.
func (c *Corpus) AppendWalk(b []byte) []byte {
	wg := c.walkGraph()
	b = append(b, walkMagic...)
	b = append(b, walkVersion)
	nv := len(wg.off) - 1
	for _, x := range []int{wg.nodes, wg.passages, wg.maxName, nv} {
		b = binary.AppendUvarint(b, uint64(x))
	}
	for _, o := range wg.off {
		b = binary.AppendUvarint(b, uint64(o))
	}
	for i, t := range wg.to {
		b = binary.AppendUvarint(b, uint64(t))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(wg.p[i]))
	}
	for _, s := range wg.spread {
		b = binary.AppendUvarint(b, uint64(s))
	}
	names := slices.Sorted(maps.Keys(wg.byName))
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, name := range names {
		b = appendString(b, name)
		vs := wg.byName[name]
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = binary.AppendUvarint(b, uint64(v))
		}
	}
	return b
}

// ReadWalk gives the corpus its walk graph from its binary form, built
// over the same graph and chunks (a form of another corpus is an error).
// Its names are substrings of data, which must not change after. Call it
// before the corpus is shared between searches.
func (c *Corpus) ReadWalk(data []byte) error {
	r := lexReader{s: unsafe.String(unsafe.SliceData(data), len(data))}
	if len(r.s) < 5 || r.s[:4] != walkMagic || r.s[4] != walkVersion {
		return fmt.Errorf("read walk graph: %w", errLexicalFormat)
	}
	r.s = r.s[5:]
	wg := &walkGraph{nodes: r.count(), passages: r.count(), maxName: r.count()}
	nv := r.count()
	if r.err == nil && (wg.nodes != len(c.g.Nodes) || wg.passages != len(c.refs) || nv < wg.nodes+wg.passages) {
		return fmt.Errorf("read walk graph: of %d nodes and %d passages, not this corpus's %d and %d", wg.nodes, wg.passages, len(c.g.Nodes), len(c.refs))
	}
	wg.off = make([]int32, nv+1)
	for i := range wg.off {
		wg.off[i] = int32(r.count())
		if i > 0 && wg.off[i] < wg.off[i-1] {
			r.fail()
		}
	}
	m := int(wg.off[nv])
	if m > len(r.s) {
		r.fail()
		m = 0
	}
	wg.to, wg.p = make([]int32, m), make([]float32, m)
	for i := range wg.to {
		wg.to[i] = int32(r.index(nv, false))
		if len(r.s) < 4 {
			r.fail()
			break
		}
		wg.p[i] = math.Float32frombits(binary.LittleEndian.Uint32([]byte(r.s[:4])))
		r.s = r.s[4:]
	}
	wg.spread = make([]int32, wg.nodes)
	for i := range wg.spread {
		wg.spread[i] = int32(r.count())
	}
	n := r.count()
	wg.byName = make(map[string][]int32, n)
	for range n {
		name := r.str()
		vs := make([]int32, r.count())
		for j := range vs {
			vs[j] = int32(r.index(nv, false))
		}
		wg.byName[name] = vs
	}
	if r.err == nil && r.s != "" {
		r.fail()
	}
	if r.err != nil {
		return fmt.Errorf("read walk graph: %w", r.err)
	}
	c.walkOnce.Do(func() { c.walk = wg })
	return nil
}
