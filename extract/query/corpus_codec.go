package query

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
)

// The binary form of a Corpus's lexical indexes (AppendLexical,
// ReadCorpus): the passages' BM25 postings and the graph's keyword index
// (normalised names, lower-cased descriptions, their postings, the
// edges' keys) are what a version's first question spent most of its
// time building, word by word. They are built once, stored with the
// version, and read by every process that asks it a question.
//
//	magic "KGLX" | version byte | the graph's node and edge counts and the chunks' count
//	the chunks' weights beside their neighbours (float64 bits)
//	BM25: texts' lengths, average (float64 bits), terms with their postings
//	nodes: per node, a first-of-its-key byte and, when first, its name, key and description
//	labels: each distinct label with keywords
//	descriptions: each distinct edge description
//	edges: per edge, label id, source and target positions, keys, description id
//	the node and edge description postings
//
// The form is read as a string and its strings are read as substrings
// of it, so a read allocates the slices and maps, not the texts.
const (
	lexicalMagic   = "KGLX"
	lexicalVersion = 2
)

var errLexicalFormat = errors.New("not a lexical index in kgstudio's binary form")

// AppendLexical appends the binary form of the corpus's lexical indexes
// to b.
func (c *Corpus) AppendLexical(b []byte) []byte {
	lx := c.lex
	b = append(b, lexicalMagic...)
	b = append(b, lexicalVersion)
	b = binary.AppendUvarint(b, uint64(len(lx.nodes)))
	b = binary.AppendUvarint(b, uint64(len(lx.edges)))
	b = binary.AppendUvarint(b, uint64(len(c.refs)))
	for _, w := range c.besideW {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(w))
	}
	b = c.bm25.appendBinary(b)
	for i, n := range lx.nodes {
		if !lx.first[i] {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = appendString(b, n.name)
		b = appendString(b, n.key)
		b = appendString(b, n.desc)
	}
	b = binary.AppendUvarint(b, uint64(len(lx.labels)))
	for _, l := range lx.labels {
		b = appendString(b, l.label)
	}
	b = binary.AppendUvarint(b, uint64(len(lx.descFirst)))
	for _, i := range lx.descFirst {
		b = appendString(b, lx.edges[i].desc)
	}
	for _, e := range lx.edges {
		b = binary.AppendUvarint(b, uint64(e.labelID))
		b = binary.AppendUvarint(b, uint64(e.si+1))
		b = binary.AppendUvarint(b, uint64(e.ti+1))
		b = binary.AppendUvarint(b, uint64(e.descID+1))
		b = appendString(b, e.key)
		b = appendString(b, e.vkey)
	}
	b = lx.nodeDesc.appendPostings(b)
	b = lx.edgeDesc.appendPostings(b)
	ids := func(b []byte, id int32) []byte { return binary.AppendUvarint(b, uint64(id)) }
	b = appendTermTable(b, lx.names.exact, ids)
	return appendTermTable(b, lx.names.tok, ids)
}

func (b25 *BM25) appendBinary(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(b25.length)))
	for _, n := range b25.length {
		b = binary.AppendUvarint(b, uint64(n))
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(b25.avg))
	return appendTermTable(b, b25.postings, func(b []byte, p posting) []byte {
		return binary.AppendUvarint(binary.AppendUvarint(b, uint64(p.doc)), uint64(p.tf))
	})
}

func (x *textIndex) appendPostings(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(x.ids)))
	for _, id := range x.ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	return appendTermTable(b, x.post, func(b []byte, id int32) []byte { return binary.AppendUvarint(b, uint64(id)) })
}

// Lexical is the lexical indexes of a corpus as read from their binary
// form (ParseLexical), before they join the graph and chunks they were
// built from (Corpus): a version's first question reads them while its
// graph is read.
type Lexical struct {
	nodes, edges, chunks int
	besideW              []float64
	bm25                 *BM25
	lex                  *lexIndex
}

// ParseLexicalBytes is ParseLexical of a buffer the caller gives up: the
// indexes keep slices of it as their names and texts (no copy of tens of
// megabytes), so it must not change after.
func ParseLexicalBytes(data []byte) (*Lexical, error) {
	return ParseLexical(unsafe.String(unsafe.SliceData(data), len(data)))
}

// ParseLexical reads lexical indexes from their binary form
// (AppendLexical); a damaged form is an error.
func ParseLexical(data string) (*Lexical, error) {
	r := lexReader{s: data}
	if len(r.s) < 5 || r.s[:4] != lexicalMagic || r.s[4] != lexicalVersion {
		return nil, fmt.Errorf("read lexical index: %w", errLexicalFormat)
	}
	r.s = r.s[5:]
	l := &Lexical{nodes: r.count(), edges: r.count(), chunks: r.count()}
	if r.err != nil || len(r.s) < 8*l.chunks {
		return nil, fmt.Errorf("read lexical index: %w", errLexicalFormat)
	}
	l.besideW = make([]float64, l.chunks)
	for i := range l.besideW {
		l.besideW[i] = math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.s[8*i : 8*i+8])))
	}
	r.s = r.s[8*l.chunks:]
	l.bm25 = r.bm25()
	if r.err == nil && len(l.bm25.length) != l.chunks {
		r.fail()
	}
	l.lex = r.lexIndex(l.nodes, l.edges)
	if r.err == nil && r.s != "" {
		r.err = errLexicalFormat
	}
	if r.err != nil {
		return nil, fmt.Errorf("read lexical index: %w", r.err)
	}
	return l, nil
}

// Corpus is NewCorpus with these lexical indexes instead of new ones. The
// indexes of another graph or other chunks are an error.
func (l *Lexical) Corpus(g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, vi *VectorIndex) (*Corpus, error) {
	if l.nodes != len(g.Nodes) || l.edges != len(g.Edges) || l.chunks != len(chunks) {
		return nil, fmt.Errorf("read lexical index: %w (of another graph or chunks)", errLexicalFormat)
	}
	for i, n := range l.lex.nodes {
		if l.lex.first[i] && n.key != g.Nodes[i].Key {
			return nil, fmt.Errorf("read lexical index: %w (of another graph)", errLexicalFormat)
		}
	}
	c := newCorpusShell(g, chunks, vi)
	c.besideW, c.bm25, c.lex = l.besideW, l.bm25, l.lex
	return c, nil
}

// lexReader reads the binary form; the first error sticks and every
// later read returns zero values.
type lexReader struct {
	s   string
	err error
}

func (r *lexReader) fail() {
	if r.err == nil {
		r.err = errLexicalFormat
	}
	r.s = ""
}

func (r *lexReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := uvarintAt(r.s)
	if n == 0 {
		r.fail()
		return 0
	}
	r.s = r.s[n:]
	return v
}

// count reads a count no larger than the bytes left could hold.
func (r *lexReader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.s)) {
		r.fail()
		return 0
	}
	return int(v)
}

// index reads a position below n, off by one when signed (-1 stored as 0).
func (r *lexReader) index(n int, signed bool) int {
	v := r.uvarint()
	if signed {
		v-- // wraps to the maximum for 0, caught below unless meant as -1
		if v == math.MaxUint64 {
			return -1
		}
	}
	if v >= uint64(n) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *lexReader) str() string {
	n := r.count()
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *lexReader) bm25() *BM25 {
	n := r.count()
	b := &BM25{length: make([]int, n)}
	for i := range b.length {
		b.length[i] = int(r.uvarint())
	}
	if len(r.s) < 8 {
		r.fail()
		return b
	}
	b.avg = math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.s[:8])))
	r.s = r.s[8:]
	b.postings = readTermTable(r, 2, func(s string) (posting, int) {
		doc, k := uvarintAt(s)
		if k == 0 || doc >= uint64(n) {
			return posting{}, 0
		}
		tf, k2 := uvarintAt(s[k:])
		if k2 == 0 || tf > math.MaxInt32 {
			return posting{}, 0
		}
		return posting{doc: int32(doc), tf: int32(tf)}, k + k2
	})
	return b
}

func (r *lexReader) lexIndex(nodes, edges int) *lexIndex {
	lx := &lexIndex{idx: make(map[string]int, nodes), first: make([]bool, nodes),
		nodes: make([]lexNode, nodes), edges: make([]lexEdge, edges), byName: map[string][]int{},
		// The names' exact and token tables are read at the end, as stored.
		names:    &nameIndex{exact: &termTable[int32]{}, tok: &termTable[int32]{}},
		nodeDesc: newTextIndex(), edgeDesc: newTextIndex()}
	for i := range lx.nodes {
		if r.uvarint() == 0 {
			continue
		}
		ln := lexNode{name: r.str(), key: r.str(), desc: r.str()}
		if r.err != nil {
			return lx
		}
		ln.nameTok = tokens(ln.name)
		lx.first[i] = true
		lx.idx[ln.key] = i
		lx.nodes[i] = ln
		lx.addName(i)
	}
	lx.labels = make([]lexLabel, r.count())
	for i := range lx.labels {
		l := r.str()
		lx.labels[i] = lexLabel{label: l, tok: tokens(l)}
	}
	descs := make([]string, r.count())
	for i := range descs {
		descs[i] = r.str()
	}
	lx.descFirst = make([]int, 0, len(descs))
	for i := range lx.edges {
		e := lexEdge{labelID: r.index(len(lx.labels), false), si: r.index(len(lx.nodes), true), ti: r.index(len(lx.nodes), true),
			descID: r.index(len(descs), true), key: r.str(), vkey: r.str()}
		if r.err != nil {
			return lx
		}
		if e.descID >= 0 {
			e.desc = descs[e.descID]
			if e.descID == len(lx.descFirst) {
				lx.descFirst = append(lx.descFirst, i)
			}
		}
		lx.edges[i] = e
	}
	if len(lx.descFirst) != len(descs) {
		r.fail()
	}
	r.postings(lx.nodeDesc, len(lx.nodes), func(id int) string { return lx.nodes[id].desc })
	r.postings(lx.edgeDesc, len(descs), func(id int) string { return descs[id] })
	lx.names.exact, lx.names.tok = r.ids(len(lx.nodes)), r.ids(len(lx.nodes))
	lx.names.build()
	return lx
}

// ids reads a term table of positions below n.
func (r *lexReader) ids(n int) *termTable[int32] {
	return readTermTable(r, 1, func(s string) (int32, int) {
		id, k := uvarintAt(s)
		if k == 0 || id >= uint64(n) {
			return 0, 0
		}
		return int32(id), k
	})
}

func (r *lexReader) postings(x *textIndex, n int, text func(id int) string) {
	x.ids = make([]int, r.count())
	x.texts = make([]string, len(x.ids))
	for j := range x.ids {
		x.ids[j] = r.index(n, false)
		if r.err != nil {
			return // no id to read a text by
		}
		x.texts[j] = text(x.ids[j])
	}
	x.post = r.ids(n)
}

// The binary form of a corpus's community index (AppendCommunities,
// ReadCommunities): the members of the communities global search reads
// and the BM25 postings of their texts.
//
//	magic "KGCI" | version byte | the graph's node count | communities: count, per
//	community its model rating (float64 bits) and member positions | BM25
const (
	communityMagic   = "KGCI"
	communityVersion = 2
)

// AppendCommunities appends the binary form of the corpus's community
// index (as UseCommunities gave it, or as detected) to b.
func (c *Corpus) AppendCommunities(b []byte) []byte {
	ci := c.communities()
	b = append(b, communityMagic...)
	b = append(b, communityVersion)
	b = binary.AppendUvarint(b, uint64(len(c.g.Nodes)))
	b = binary.AppendUvarint(b, uint64(len(ci.members)))
	for i, ms := range ci.members {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ci.rating[i]))
		b = binary.AppendUvarint(b, uint64(len(ms)))
		for _, m := range ms {
			b = binary.AppendUvarint(b, uint64(m))
		}
	}
	if ci.bm25 == nil {
		return append(b, 0)
	}
	return ci.bm25.appendBinary(append(b, 1))
}

// ReadCommunities gives the corpus its version's communities r (as
// UseCommunities does) with their index read from its binary form
// (AppendCommunities of a corpus of the same graph and communities)
// instead of built. A damaged form is an error, and the corpus is left
// as it was. It has effect only before the first global search.
func (c *Corpus) ReadCommunities(r community.Result, data string) error {
	ci, err := readCommIndex(r, len(c.g.Nodes), data)
	if err != nil {
		return fmt.Errorf("read community index: %w", err)
	}
	c.commOnce.Do(func() { c.comm = ci })
	return nil
}

func readCommIndex(res community.Result, nodes int, s string) (*commIndex, error) {
	r := lexReader{s: s}
	if len(r.s) < 5 || r.s[:4] != communityMagic || r.s[4] != communityVersion {
		return nil, errLexicalFormat
	}
	r.s = r.s[5:]
	if r.count() != nodes {
		r.fail()
	}
	ci := &commIndex{}
	if res.Levels > 0 {
		ci.result = res
		ci.comms = ReportedCommunities(res, nodes)
	}
	n := r.count()
	if r.err == nil && n != len(ci.comms) {
		r.fail() // of other communities
	}
	ci.members = make([][]int, n)
	ci.rating = make([]float64, n)
	for i := range ci.members {
		if len(r.s) < 8 {
			r.fail()
			break
		}
		ci.rating[i] = math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.s[:8])))
		r.s = r.s[8:]
		var ms []int
		if k := r.count(); k > 0 {
			ms = make([]int, k)
		}
		for j := range ms {
			ms[j] = r.index(nodes, false)
		}
		ci.members[i] = ms
	}
	switch {
	case r.s == "":
		r.fail()
	case r.s[0] == 1:
		r.s = r.s[1:]
		ci.bm25 = r.bm25()
		if r.err == nil && len(ci.bm25.length) != n {
			r.fail()
		}
	default:
		r.s = r.s[1:]
	}
	if r.err == nil && r.s != "" {
		r.fail()
	}
	if r.err != nil {
		return nil, r.err
	}
	if n == 0 {
		ci.members, ci.rating = nil, nil
	}
	return ci, nil
}
