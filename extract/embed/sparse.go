package embed

import "sync"

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
		for j := p.start[d]; j < p.start[d+1]; j++ {
			acc[p.ids[j]] += x * p.vals[j]
		}
	}
	h := make([]Hit, 0, k)
	for i, s := range acc {
		h = pushHit(h, k, Hit{i, s})
	}
	sortHits(h)
	return h
}
