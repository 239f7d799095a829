package embed

import (
	"cmp"
	"slices"

	"github.com/viterin/vek/vek32"
)

// ExactLimit is the largest index, in vector components (vectors times
// dimensions), that is searched exactly; past it NewIndex builds an HNSW
// graph. 8M components is about 10k vectors of 768 dimensions (7.8k of
// the offline embedder's 1024), which an exact scan answers in about 5 ms
// (BenchmarkExact; the README has the figures).
const ExactLimit = 8_000_000

// HNSW parameters: neighbours per node, the candidate list while building
// and while searching (at least k).
const (
	hnswM              = 16
	hnswEfConstruction = 64
	hnswEfSearch       = 128
)

// Hit is one nearest vector: its position in the indexed list and its
// cosine with the query.
type Hit struct {
	I     int
	Score float32
}

// Index finds the vectors nearest a query by cosine (the dot product of
// unit vectors): an exact scan for small sets, an HNSW graph (hnsw.go)
// past ExactLimit. It is built once per version and is safe for
// concurrent searches.
type Index struct {
	vecs  [][]float32
	graph *hnsw
}

// NewIndex indexes unit vectors of one length. The list is kept, not
// copied.
func NewIndex(vecs [][]float32) *Index {
	return NewIndexLimit(vecs, ExactLimit)
}

// NewIndexLimit is NewIndex with another exact limit (0 always builds the
// graph), for measurements.
func NewIndexLimit(vecs [][]float32, limit int) *Index {
	ix := &Index{vecs: vecs}
	if len(vecs) == 0 || len(vecs)*len(vecs[0]) <= limit {
		return ix
	}
	ix.graph = buildHNSW(vecs, hnswM, hnswEfConstruction, 1)
	return ix
}

// Len is the number of vectors indexed.
func (ix *Index) Len() int { return len(ix.vecs) }

// Approximate reports whether searches go through the HNSW graph.
func (ix *Index) Approximate() bool { return ix.graph != nil }

// Search returns the k vectors nearest q, best first; ties break by
// position.
func (ix *Index) Search(q []float32, k int) []Hit {
	if k <= 0 || len(ix.vecs) == 0 {
		return nil
	}
	if ix.graph == nil {
		return ix.Exact(q, k)
	}
	// The graph is read-only after the build; the candidate list is at
	// least k long.
	return ix.graph.search(q, k, max(k, hnswEfSearch))
}

// Exact returns the k vectors nearest q by a full scan.
func (ix *Index) Exact(q []float32, k int) []Hit {
	k = min(k, len(ix.vecs))
	// A bounded min-heap of the best k.
	h := make([]Hit, 0, k)
	for i, v := range ix.vecs {
		s := vek32.Dot(q, v[:len(q)])
		if len(h) < k {
			h = append(h, Hit{i, s})
			up(h, len(h)-1)
			continue
		}
		if worse(h[0], Hit{i, s}) {
			h[0] = Hit{i, s}
			down(h, 0)
		}
	}
	sortHits(h)
	return h
}

// worse orders hits worst first: lower score, then later position.
func worse(a, b Hit) bool { return a.Score < b.Score || (a.Score == b.Score && a.I > b.I) }

func up(h []Hit, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func down(h []Hit, i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && worse(h[l], h[m]) {
			m = l
		}
		if r := l + 1; r < len(h) && worse(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func sortHits(h []Hit) {
	slices.SortFunc(h, func(a, b Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.I, b.I)) })
}
