package query

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// VectorIndex is a version's vectors ready for search: one embed.Index per
// kind (chunks, nodes, edges), exact for small versions and HNSW past
// embed.ExactLimit. Build it once per version and share it between
// searches; it is safe for concurrent use.
type VectorIndex struct {
	Model  string
	chunks kindIndex[extract.ChunkRef]
	nodes  kindIndex[string]
	edges  kindIndex[string]
	// other indexes the fallback model's vectors (Vectors.Other).
	other *VectorIndex
	// load reads the postings of an index read from AppendApart's form,
	// named after prefix (see SetLoader).
	load   PartsLoader
	prefix string
}

// kindIndex is the index of one kind of vector with the keys in its order.
type kindIndex[K comparable] struct {
	keys []K
	ix   *embed.Index
}

func newKindIndex[K comparable](m map[K][]float32, compare func(a, b K) int, limit int) kindIndex[K] {
	keys := slices.SortedFunc(maps.Keys(m), compare)
	vecs := make([][]float32, len(keys))
	for i, k := range keys {
		vecs[i] = m[k]
	}
	return kindIndex[K]{keys: keys, ix: embed.NewIndexLimit(vecs, limit)}
}

// candidates is how many nearest vectors an approximate search keeps per
// query: the rest score zero on the vector side.
func candidates(topK int) int { return max(8*topK, 200) }

// scores returns the cosine of q with the indexed vectors: every one for
// an exact index, the nearest n for an approximate one.
func (k kindIndex[K]) scores(q []float32, n int) map[K]float64 {
	if q == nil || k.ix == nil || k.ix.Len() == 0 {
		return nil
	}
	if !k.ix.Bounded() {
		n = k.ix.Len()
	}
	hits := k.ix.Search(q, n)
	out := make(map[K]float64, len(hits))
	for _, h := range hits {
		out[k.keys[h.I]] = float64(h.Score)
	}
	return out
}

// NewVectorIndex indexes a version's vectors; nil for none. Each kind is
// searched exactly up to embed.ExactLimit vector components and through
// an HNSW graph past it.
func NewVectorIndex(v *Vectors) *VectorIndex {
	return NewVectorIndexLimit(v, embed.ExactLimit)
}

// NewVectorIndexLimit is NewVectorIndex with another exact limit (0
// always builds the graphs).
func NewVectorIndexLimit(v *Vectors, limit int) *VectorIndex {
	if v.Len() == 0 {
		return nil
	}
	vi := &VectorIndex{
		Model:  v.Model,
		chunks: newKindIndex(v.Chunks, compareRef, limit),
		nodes:  newKindIndex(v.Nodes, strings.Compare, limit),
		edges:  newKindIndex(v.Edges, strings.Compare, limit),
		other:  NewVectorIndexLimit(v.Other, limit),
	}
	if vi.Model == "" && vi.other != nil {
		// Only fallback vectors: they are the index.
		return vi.other
	}
	return vi
}

// NewVectorIndexOf is NewVectorIndex over one model's vectors given a
// kind at a time: each kind's index is built when asked for, so the
// kinds' vectors are never all held at once. The chunks come as vectors;
// nodes and edges as their keys, sorted, and the index of their vectors
// in that order, built with the exact limit given (embed.NewSparseIndex
// builds one from vectors made one at a time, so the offline embedder's
// dense vectors of names never exist together). Nil for no vectors.
func NewVectorIndexOf(model string, chunks func() (map[extract.ChunkRef][]float32, error), nodes, edges func(limit int) ([]string, *embed.Index, error)) (*VectorIndex, error) {
	vi := &VectorIndex{Model: model}
	c, err := chunks()
	if err != nil {
		return nil, err
	}
	vi.chunks = newKindIndex(c, compareRef, embed.ExactLimit)
	for _, k := range []struct {
		of   func(int) ([]string, *embed.Index, error)
		into *kindIndex[string]
	}{{nodes, &vi.nodes}, {edges, &vi.edges}} {
		keys, ix, err := k.of(embed.ExactLimit)
		if err != nil {
			return nil, err
		}
		if !slices.IsSorted(keys) || ix == nil || ix.Len() != len(keys) {
			return nil, fmt.Errorf("query: a kind's keys must be sorted and match its index")
		}
		*k.into = kindIndex[string]{keys: keys, ix: ix}
	}
	if vi.Len() == 0 {
		return nil, nil
	}
	return vi, nil
}

// Counts is the number of vectors in each model's index.
func (vi *VectorIndex) Counts() map[string]int {
	out := map[string]int{}
	for x := vi; x != nil; x = x.other {
		out[x.Model] += len(x.chunks.keys) + len(x.nodes.keys) + len(x.edges.keys)
	}
	return out
}

// Len is the number of vectors indexed.
func (vi *VectorIndex) Len() int {
	if vi == nil {
		return 0
	}
	return len(vi.chunks.keys) + len(vi.nodes.keys) + len(vi.edges.keys) + vi.other.Len()
}

// Approximate reports whether any kind is searched through HNSW.
func (vi *VectorIndex) Approximate() bool {
	if vi == nil {
		return false
	}
	return vi.chunks.ix.Approximate() || vi.nodes.ix.Approximate() || vi.edges.ix.Approximate() || vi.other.Approximate()
}

func compareRef(a, b extract.ChunkRef) int {
	return cmp.Or(cmp.Compare(a.DocumentID, b.DocumentID), cmp.Compare(a.Index, b.Index))
}

// Corpus is what Search ranks, built once per version and shared by
// every question: the graph, the chunks in order with their BM25 index,
// and the vector index.
type Corpus struct {
	g      extract.Graph
	chunks map[extract.ChunkRef]extract.Chunk
	vi     *VectorIndex
	refs   []extract.ChunkRef
	pos    map[extract.ChunkRef]int
	bm25   *BM25
	lex    *lexIndex
	// userBM25 and assistantBM25 index each party's words of the chunks
	// of a user–assistant conversation (nil otherwise); see SideChunks.
	userBM25, assistantBM25 *BM25
	// userVec holds, by position, the vector of each chunk's user side
	// (nil where none, or where the model does not serve it), of model
	// userVecModel; see SideVectors.
	userVec      [][]float32
	userVecModel string
	users        []string
	// beside holds, for each chunk, the positions of the chunks before
	// and after it in its document (-1 for none); besideW the share of
	// their score it takes: wBeside for a short chunk, less past
	// shortChunk tokens (a short turn is read in its neighbours' context;
	// a long passage, a round with a long answer, stands alone).
	beside  [][2]int32
	besideW []float64
	// conversation marks the chunks of a conversation (see SideChunks):
	// mix weighs the walk less there.
	conversation bool
	// dates holds, by position, when each chunk was said (zero when
	// unknown); see DateChunks.
	dates []time.Time

	walkOnce sync.Once
	walk     *walkGraph

	commOnce sync.Once
	comm     *commIndex

	revOnce   sync.Once
	revChains map[int][]int
}

// NewCorpus prepares a version for search; vi may be nil (lexical
// ranking only).
func NewCorpus(g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, vi *VectorIndex) *Corpus {
	c := newCorpusShell(g, chunks, vi)
	texts := make([]string, len(c.refs))
	c.besideW = make([]float64, len(c.refs))
	for i, r := range c.refs {
		ch := chunks[r]
		texts[i] = ch.Text
		c.besideW[i] = wBeside * min(1, float64(shortChunk)/float64(max(1, ch.Tokens, extract.EstimateTokens(ch.Text))))
	}
	// The passages' index and the graph's are built at once, on two
	// cores where there are.
	lexDone := make(chan *lexIndex, 1)
	go func() { lexDone <- newLexIndex(g) }()
	c.bm25 = NewBM25(texts)
	c.lex = <-lexDone
	return c
}

// newCorpusShell is a corpus without its lexical indexes and chunk
// weights: the chunks in order and their neighbours.
func newCorpusShell(g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, vi *VectorIndex) *Corpus {
	refs := slices.SortedFunc(maps.Keys(chunks), compareRef)
	pos := make(map[extract.ChunkRef]int, len(refs))
	for i, r := range refs {
		pos[r] = i
	}
	beside := make([][2]int32, len(refs))
	for i, r := range refs {
		beside[i] = [2]int32{-1, -1}
		if p, ok := pos[extract.ChunkRef{DocumentID: r.DocumentID, Index: r.Index - 1}]; ok {
			beside[i][0] = int32(p)
		}
		if p, ok := pos[extract.ChunkRef{DocumentID: r.DocumentID, Index: r.Index + 1}]; ok {
			beside[i][1] = int32(p)
		}
	}
	return &Corpus{g: g, chunks: chunks, vi: vi, refs: refs, pos: pos, beside: beside}
}

// DateChunks records when each chunk was said (for a dialogue, its
// session's start; chunks absent from dates stay undated). Searches then
// read the relative times of a question ("two weeks ago", "in the past
// month", "in March") against Request.Now, and mix prefers the chunks
// said in that span. Call it before the corpus is shared between
// searches.
func (c *Corpus) DateChunks(dates map[extract.ChunkRef]time.Time) {
	c.dates = make([]time.Time, len(c.refs))
	for i, r := range c.refs {
		c.dates[i] = dates[r]
	}
}

// latest is the time of the last dated chunk, zero when none is dated.
func (c *Corpus) latest() time.Time {
	var t time.Time
	for _, d := range c.dates {
		if d.After(t) {
			t = d
		}
	}
	return t
}
