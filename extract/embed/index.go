package embed

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"
)

// ExactLimit is the largest index, in vector components (vectors times
// dimensions), that is searched exactly; past it NewIndex builds an HNSW
// graph. 8M components is about 10k vectors of 768 dimensions (7.8k of
// the offline embedder's 1024), which an exact scan answers in about 5 ms
// (BenchmarkExact; the README has the figures).
const ExactLimit = 8_000_000

// ScanLimit is the largest index, in vector components, that is scanned
// whole for each search past ExactLimit (keeping the best candidates
// only): 32M components (62k vectors of 512 dimensions) take about 20 ms
// a scan and no build, where an HNSW graph over them takes tens of CPU
// seconds to build in every process that opens the version. Past it the
// graph is built (see NewIndexLimit).
const ScanLimit = 32_000_000

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
// unit vectors). Sparse vectors (the offline embedder's vectors of names
// and short texts: a few dozen components of 1,024) are held as postings
// by dimension and searched exactly at any size; dense ones are scanned.
// Up to ExactLimit components callers may ask for every score; past it
// searches return the best candidates (Bounded), and dense vectors past
// ScanLimit go through an HNSW graph (hnsw.go). It is built once per version
// and is safe for concurrent searches.
type Index struct {
	vecs [][]float32 // nil when the postings or half hold them
	// half holds, for an index of float16 vectors read from its binary
	// form, the vectors one after the other (dims each) as they were
	// stored: scanned as they lie, half the room of float32 ones.
	half    []uint16
	dims    int
	n       int
	graph   *hnsw
	sparse  *postings
	bounded bool
}

// NewIndex indexes unit vectors of one length. The list is kept, not
// copied (unless the vectors are sparse, when postings replace it).
func NewIndex(vecs [][]float32) *Index {
	return NewIndexLimit(vecs, ExactLimit)
}

// NewIndexLimit is NewIndex with another exact limit, for measurements: 0
// always builds the HNSW graph.
func NewIndexLimit(vecs [][]float32, limit int) *Index {
	ix := &Index{vecs: vecs, n: len(vecs)}
	if len(vecs) == 0 {
		return ix
	}
	comps := len(vecs) * len(vecs[0])
	ix.bounded = comps > limit
	switch {
	case limit == 0:
		ix.graph = buildHNSW(vecs, hnswM, hnswEfConstruction, 1)
	case sparseEnough(vecs):
		// Postings at any size: exact, a quarter of the room at most.
		ix.sparse = newPostings(vecs)
		ix.vecs = nil
	case comps <= limit, comps <= ScanLimit:
	default:
		ix.graph = buildHNSW(vecs, hnswM, hnswEfConstruction, 1)
	}
	return ix
}

// Len is the number of vectors indexed.
func (ix *Index) Len() int { return ix.n }

// Approximate reports whether searches go through the HNSW graph.
func (ix *Index) Approximate() bool { return ix.graph != nil }

// Bounded reports whether a search returns only the best candidates
// (the index is past its exact limit), not every vector's score.
func (ix *Index) Bounded() bool { return ix.bounded }

// Search returns the k vectors nearest q, best first; ties break by
// position.
func (ix *Index) Search(q []float32, k int) []Hit {
	if k <= 0 || ix.n == 0 {
		return nil
	}
	if ix.graph == nil {
		return ix.Exact(q, k)
	}
	// The graph is read-only after the build; the candidate list is at
	// least k long.
	return ix.graph.search(q, k, max(k, hnswEfSearch))
}

// Exact returns the k vectors nearest q by a full scan (of the postings,
// for sparse vectors).
func (ix *Index) Exact(q []float32, k int) []Hit {
	k = min(k, ix.n)
	if ix.sparse != nil {
		return ix.sparse.search(q, k)
	}
	if ix.half != nil {
		return ix.exactHalf(q, k)
	}
	// A bounded min-heap of the best k.
	h := make([]Hit, 0, k)
	for i, v := range ix.vecs {
		s := vek32.Dot(q, v[:len(q)])
		h = pushHit(h, k, Hit{i, s})
	}
	sortHits(h)
	return h
}

// pushHit adds a hit to the min-heap h of the best k so far.
func pushHit(h []Hit, k int, x Hit) []Hit {
	if len(h) < k {
		h = append(h, x)
		up(h, len(h)-1)
		return h
	}
	if worse(h[0], x) {
		h[0] = x
		down(h, 0)
	}
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

// halfTable widens every float16 to its float32.
var halfTable = sync.OnceValue(func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = fromHalf(uint16(i))
	}
	return &t
})

// halfScanSplit is the size, in vector components, past which a scan of
// float16 vectors is split between the processors.
const halfScanSplit = 1 << 20

// exactHalf is Exact over float16 vectors: each is widened into a
// buffer and its dot product taken as a float32 vector's is, so the
// scores are those of the widened vectors, bit for bit; a big index is
// scanned in parts at once, their best merged.
func (ix *Index) exactHalf(q []float32, k int) []Hit {
	d, t := ix.dims, halfTable()
	workers := 1
	if ix.n*d > halfScanSplit {
		workers = min(runtime.GOMAXPROCS(0), ix.n)
	}
	parts := make([][]Hit, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*ix.n/workers, (w+1)*ix.n/workers
		wg.Go(func() {
			buf := make([]float32, len(q))
			h := make([]Hit, 0, k)
			for i := lo; i < hi; i++ {
				for j, x := range ix.half[i*d : i*d+len(q)] {
					buf[j] = t[x]
				}
				h = pushHit(h, k, Hit{i, vek32.Dot(q, buf)})
			}
			parts[w] = h
		})
	}
	wg.Wait()
	h := make([]Hit, 0, k)
	for _, p := range parts {
		for _, x := range p {
			h = pushHit(h, k, x)
		}
	}
	sortHits(h)
	return h
}

// vector returns the i-th vector indexed (widened, for float16 ones).
func (ix *Index) vector(i int) []float32 {
	if ix.half == nil {
		return ix.vecs[i]
	}
	v := make([]float32, ix.dims)
	for j, x := range ix.half[i*ix.dims : (i+1)*ix.dims] {
		v[j] = fromHalf(x)
	}
	return v
}
