package embed

import (
	"cmp"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/viterin/vek/vek32"
)

// hnsw is a Hierarchical Navigable Small World graph (Malkov and Yashunin,
// 2016) over unit vectors, by cosine distance: every vector sits on layer
// 0 and, with falling probability, on the layers above; a search descends
// greedily from the top layer's entry point, then widens to a candidate
// list of ef on layer 0. Neighbours are chosen by the paper's heuristic (a
// candidate is kept when it is nearer the new vector than any neighbour
// kept so far), for new vectors and for neighbour lists that overflow,
// which keeps clustered data connected. The build inserts on every core;
// a node's lists are guarded by its lock while the graph grows.
type hnsw struct {
	vecs  [][]float32
	m     int
	links [][][]int32   // links[node][layer]
	dists [][][]float32 // dists[node][layer][i]: distance to links[node][layer][i]
	locks []sync.Mutex  // locks[node] guards links[node] and dists[node]
	// top guards entry and top, the entry point and its layer.
	topMu sync.RWMutex
	entry int32
	top   int
	seen  sync.Pool // *visited
}

type visited struct {
	mark []uint32
	gen  uint32
}

// cand is a vector and its distance to the query.
type cand struct {
	d  float32
	id int32
}

func dist(a, b []float32) float32 { return 1 - vek32.Dot(a, b) }

// buildHNSW links every vector, on as many goroutines as there are cores;
// seed fixes the levels (the links depend on the order of inserts).
func buildHNSW(vecs [][]float32, m, efConstruction int, seed int64) *hnsw {
	n := len(vecs)
	h := &hnsw{vecs: vecs, m: m, links: make([][][]int32, n), dists: make([][][]float32, n), locks: make([]sync.Mutex, n), top: -1}
	h.seen.New = func() any { return &visited{mark: make([]uint32, n)} }
	rng := rand.New(rand.NewSource(seed))
	ml := 1 / math.Log(float64(m))
	levels := make([]int, n)
	for i := range levels {
		levels[i] = int(-math.Log(1-rng.Float64()) * ml)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), n/1000)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				h.insert(int32(i), levels[i], efConstruction)
			}
		}()
	}
	wg.Wait()
	return h
}

// neighbours copies a node's links on a layer into buf.
func (h *hnsw) neighbours(id int32, l int, buf []int32) []int32 {
	h.locks[id].Lock()
	buf = append(buf[:0], h.links[id][l]...)
	h.locks[id].Unlock()
	return buf
}

func (h *hnsw) maxLinks(layer int) int {
	if layer == 0 {
		return 2 * h.m
	}
	return h.m
}

func (h *hnsw) insert(id int32, level, ef int) {
	links, dists := make([][]int32, level+1), make([][]float32, level+1)
	for l := range links {
		links[l] = make([]int32, 0, h.maxLinks(l)+1)
		dists[l] = make([]float32, 0, h.maxLinks(l)+1)
	}
	h.locks[id].Lock()
	h.links[id], h.dists[id] = links, dists
	h.locks[id].Unlock()

	// The first node is the entry; a node above the top layer becomes the
	// entry once linked, so the top lock is held through its insert.
	h.topMu.RLock()
	top, entry := h.top, h.entry
	h.topMu.RUnlock()
	if top < 0 || level > top {
		h.topMu.Lock()
		defer h.topMu.Unlock()
		if h.top < 0 {
			h.entry, h.top = id, level
			return
		}
		top, entry = h.top, h.entry
		if level > top {
			defer func() { h.entry, h.top = id, level }()
		}
	}
	q := h.vecs[id]
	ep := cand{dist(q, h.vecs[entry]), entry}
	for l := top; l > level; l-- {
		ep = h.greedy(q, ep, l)
	}
	eps := []cand{ep}
	for l := min(level, top); l >= 0; l-- {
		found := h.layer(q, eps, ef, l)
		nb := h.pick(found, h.m)
		h.locks[id].Lock()
		for _, c := range nb {
			h.links[id][l] = append(h.links[id][l], c.id)
			h.dists[id][l] = append(h.dists[id][l], c.d)
		}
		h.locks[id].Unlock()
		for _, c := range nb {
			h.link(c.id, id, c.d, l)
		}
		eps = found
	}
}

// link adds to from's neighbours on a layer; a list that overflows is
// pruned by the same heuristic (the distances are kept with the links).
func (h *hnsw) link(from, to int32, d float32, l int) {
	h.locks[from].Lock()
	defer h.locks[from].Unlock()
	ns, ds := append(h.links[from][l], to), append(h.dists[from][l], d)
	if len(ns) > h.maxLinks(l) {
		cs := make([]cand, len(ns))
		for i, n := range ns {
			cs[i] = cand{ds[i], n}
		}
		slices.SortFunc(cs, func(a, b cand) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.id, b.id)) })
		ns, ds = ns[:0], ds[:0]
		for _, c := range h.pick(cs, h.maxLinks(l)) {
			ns, ds = append(ns, c.id), append(ds, c.d)
		}
	}
	h.links[from][l], h.dists[from][l] = ns, ds
}

// pick picks up to m neighbours from candidates sorted nearest first:
// a candidate nearer an already picked neighbour than the base is
// skipped, then the skipped fill what is left.
func (h *hnsw) pick(cs []cand, m int) []cand {
	if len(cs) <= m {
		return cs
	}
	out := make([]cand, 0, m)
	var skipped []cand
	for _, c := range cs {
		if len(out) == m {
			break
		}
		ok := true
		for _, o := range out {
			if dist(h.vecs[c.id], h.vecs[o.id]) < c.d {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, c)
		} else {
			skipped = append(skipped, c)
		}
	}
	for _, c := range skipped {
		if len(out) == m {
			break
		}
		out = append(out, c)
	}
	return out
}

// greedy walks a layer to the neighbour nearest q.
func (h *hnsw) greedy(q []float32, ep cand, l int) cand {
	var buf []int32
	for changed := true; changed; {
		changed = false
		buf = h.neighbours(ep.id, l, buf)
		for _, n := range buf {
			if d := dist(q, h.vecs[n]); d < ep.d {
				ep, changed = cand{d, n}, true
			}
		}
	}
	return ep
}

// layer is the beam search of one layer: the ef nearest found from the
// entry points, nearest first.
func (h *hnsw) layer(q []float32, eps []cand, ef, l int) []cand {
	vs := h.seen.Get().(*visited)
	defer h.seen.Put(vs)
	vs.gen++
	if vs.gen == 0 {
		clear(vs.mark)
		vs.gen = 1
	}
	var todo minHeap
	var best maxHeap
	for _, e := range eps {
		if vs.mark[e.id] == vs.gen {
			continue
		}
		vs.mark[e.id] = vs.gen
		todo.push(e)
		best.push(e)
		if len(best) > ef {
			best.pop()
		}
	}
	var buf []int32
	for len(todo) > 0 {
		c := todo.pop()
		if len(best) >= ef && c.d > best[0].d {
			break
		}
		buf = h.neighbours(c.id, l, buf)
		for _, n := range buf {
			if vs.mark[n] == vs.gen {
				continue
			}
			vs.mark[n] = vs.gen
			d := dist(q, h.vecs[n])
			if len(best) < ef || d < best[0].d {
				todo.push(cand{d, n})
				best.push(cand{d, n})
				if len(best) > ef {
					best.pop()
				}
			}
		}
	}
	out := make([]cand, len(best))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = best.pop()
	}
	return out
}

// search returns the k nearest q with a candidate list of ef.
func (h *hnsw) search(q []float32, k, ef int) []Hit {
	if h.top < 0 {
		return nil
	}
	ep := cand{dist(q, h.vecs[h.entry]), h.entry}
	for l := h.top; l > 0; l-- {
		ep = h.greedy(q, ep, l)
	}
	found := h.layer(q, []cand{ep}, ef, 0)
	out := make([]Hit, 0, min(k, len(found)))
	for _, c := range found[:min(k, len(found))] {
		out = append(out, Hit{I: int(c.id), Score: 1 - c.d})
	}
	sortHits(out)
	return out
}

func lessCand(a, b cand) bool { return a.d < b.d || (a.d == b.d && a.id < b.id) }

// minHeap pops the nearest candidate; maxHeap the farthest.
type minHeap []cand
type maxHeap []cand

func (h *minHeap) push(c cand) { *h = append(*h, c); siftUp(*h, len(*h)-1, lessCand) }
func (h *minHeap) pop() cand   { return popHeap((*[]cand)(h), lessCand) }
func (h *maxHeap) push(c cand) { *h = append(*h, c); siftUp(*h, len(*h)-1, moreCand) }
func (h *maxHeap) pop() cand   { return popHeap((*[]cand)(h), moreCand) }

func moreCand(a, b cand) bool { return lessCand(b, a) }

func siftUp(h []cand, i int, less func(a, b cand) bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func popHeap(hp *[]cand, less func(a, b cand) bool) cand {
	h := *hp
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && less(h[l], h[m]) {
			m = l
		}
		if r := l + 1; r < n && less(h[r], h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*hp = h
	return top
}
