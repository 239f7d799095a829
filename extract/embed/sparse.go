package embed

import (
	"fmt"
	"sync"
)

// sparseEnough reports whether vectors are sparse enough for postings:
// at most one component in eight is not zero, so the postings (8 bytes a
// component) take at most a quarter of the dense vectors' room.
func sparseEnough(vecs [][]float32) bool {
	nz, all := 0, 0
	for _, v := range vecs {
		all += len(v)
		for _, x := range v {
			if x != 0 {
				nz++
			}
		}
	}
	return nz*8 <= all
}

// postings hold sparse vectors by dimension: for dimension d, the
// vectors whose component d is not zero (ids[start[d]:start[d+1]]) and
// those components. A search adds up the query's products dimension by
// dimension, so it reads only the components the query shares.
type postings struct {
	n     int
	start []int32
	ids   []int32
	vals  []float32
	acc   sync.Pool // *[]float32 of n
	// apart holds the postings of an index whose postings are stored
	// apart from it (ids and vals nil): each dimension's, once loaded.
	apart *apartPostings
}

// apartPostings are the postings of each dimension of an index stored
// without them (ReadIndex of AppendApart's form), loaded as questions
// need them (Index.Missing, Index.Fill).
type apartPostings struct {
	mu     sync.Mutex
	loaded []bool
	ids    [][]int32
	vals   [][]float32
}

// dim returns the postings of dimension d.
func (p *postings) dim(d int) ([]int32, []float32) {
	if p.apart == nil {
		return p.ids[p.start[d]:p.start[d+1]], p.vals[p.start[d]:p.start[d+1]]
	}
	if p.start[d] == p.start[d+1] {
		return nil, nil
	}
	a := p.apart
	a.mu.Lock()
	ids, vals, ok := a.ids[d], a.vals[d], a.loaded[d]
	a.mu.Unlock()
	if !ok {
		panic(fmt.Sprintf("embed: dimension %d searched before its postings were loaded (Index.Fill)", d))
	}
	return ids, vals
}

func newPostings(vecs [][]float32) *postings {
	dims := len(vecs[0])
	p := &postings{n: len(vecs), start: make([]int32, dims+1)}
	for _, v := range vecs {
		for d, x := range v {
			if x != 0 {
				p.start[d+1]++
			}
		}
	}
	for d := range dims {
		p.start[d+1] += p.start[d]
	}
	total := p.start[dims]
	p.ids = make([]int32, total)
	p.vals = make([]float32, total)
	next := make([]int32, dims)
	copy(next, p.start[:dims])
	for i, v := range vecs {
		for d, x := range v {
			if x != 0 {
				p.ids[next[d]] = int32(i)
				p.vals[next[d]] = x
				next[d]++
			}
		}
	}
	p.acc.New = func() any { a := make([]float32, p.n); return &a }
	return p
}

// NewSparseIndex indexes n unit vectors of dims components given one at
// a time: vec(i, v) writes the i-th into v (dims zeros). Each goes into
// postings as it comes and none is held whole, so a set whose dense
// vectors would not fit indexes in the room of its non-zero components.
// It is the index NewIndexLimit(vectors, limit) makes of the same vectors;
// vectors not sparse enough for postings are made dense again for it.
func NewSparseIndex(n, dims, limit int, vec func(i int, v []float32)) *Index {
	if n == 0 {
		return NewIndexLimit(nil, limit)
	}
	ids, vals := make([][]int32, dims), make([][]float32, dims)
	v := make([]float32, dims)
	nz := 0
	for i := range n {
		clear(v)
		vec(i, v)
		for d, x := range v {
			if x != 0 {
				ids[d], vals[d] = append(ids[d], int32(i)), append(vals[d], x)
				nz++
			}
		}
	}
	if limit == 0 || nz*8 > n*dims {
		dense := make([][]float32, n)
		for i := range dense {
			dense[i] = make([]float32, dims)
		}
		for d := range dims {
			for j, id := range ids[d] {
				dense[id][d] = vals[d][j]
			}
		}
		return NewIndexLimit(dense, limit)
	}
	p := &postings{n: n, start: make([]int32, dims+1), ids: make([]int32, 0, nz), vals: make([]float32, 0, nz)}
	for d := range dims {
		p.ids, p.vals = append(p.ids, ids[d]...), append(p.vals, vals[d]...)
		p.start[d+1] = int32(len(p.ids))
		ids[d], vals[d] = nil, nil
	}
	p.acc.New = func() any { a := make([]float32, p.n); return &a }
	return &Index{n: n, sparse: p, bounded: n*dims > limit}
}

// search returns the k vectors whose dot product with q is largest, best
// first, ties by position: the same hits as a scan of the dense vectors.
func (p *postings) search(q []float32, k int) []Hit {
	ap := p.acc.Get().(*[]float32)
	acc := *ap
	defer func() {
		clear(acc)
		p.acc.Put(ap)
	}()
	for d, x := range q[:min(len(q), len(p.start)-1)] {
		if x == 0 {
			continue
		}
		ids, vals := p.dim(d)
		for j, id := range ids {
			acc[id] += x * vals[j]
		}
	}
	h := make([]Hit, 0, k)
	for i, s := range acc {
		h = pushHit(h, k, Hit{i, s})
	}
	sortHits(h)
	return h
}
