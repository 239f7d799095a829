// Package layout places a graph's nodes in the plane as the graph page
// does (static/js/graph-fa2.js), so a version's layout can be computed
// once, where the graph is written, and stored with it: reopening a big
// graph then draws its final picture at once instead of settling it in
// the browser.
//
// The forces are ForceAtlas2's with linear attraction and strong gravity
// (repulsion SCALING * m_i * m_j / d between every two nodes, Barnes-Hut
// past exactMax nodes; attraction w * d along each edge; gravity
// m_i * gravity * d towards the centre; each node's adaptive speed from
// its swinging and traction), masses 1 + degree. A graph is coarsened by
// maximal independent sets in degree order until at most coarsest nodes
// remain; the coarsest is laid out, each finer level starts around its
// clusters' places and is refined, and the finest runs until the mean
// step per iteration has stayed below tolerance times the layout's extent
// for calm iterations. Each connected component is laid out alone and the
// components are packed side by side in rows, largest first.
package layout

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"
)

const (
	tolerance     = 5e-4 // mean step per iteration, as a share of the extent
	calm          = 5    // iterations in a row below tolerance
	maxIterations = 3000 // the finest level, if it never calms down
	coarsest      = 200  // stop coarsening at this many nodes
	coarsestMax   = 300  // iterations on the coarsest graph at most
	levelMax      = 50   // and on each graph between it and the finest
	shrink        = 0.8  // a coarser graph must have at most this share of nodes
	exactMax      = 500  // exact repulsion up to this many nodes
	theta         = 1.2  // Barnes-Hut: a region of width w at distance d is one body when w/d < theta
	scaling       = 10.0
	gravity       = 0.05
	maxDepth      = 30  // quadtree depth; deeper points share a leaf
	spread        = 0.3 // prolonged nodes start this share of a coarse edge from their centre
	gap           = 2.0 // packed components stand this many mean edges apart
	groupPull     = 0.5 // a node's pull towards its group's centre, as gravity's towards the origin
	goldenAngle   = 2.399963229728653
)

// Result is a finished layout: each node's place, and how it ended.
type Result struct {
	X, Y []float32
	// Iterations ran at the finest level of the largest component,
	// CoarseIterations on the levels above it.
	Iterations, CoarseIterations int
	// Converged is false when some component stopped at maxIterations.
	Converged bool
}

// Seed returns the place a node of the given key starts at in a graph of
// n nodes, as the graph page seeds it (FNV-1a, then mulberry32, in a
// square of side sqrt(n) * 10), so a layout computed here and one the
// page computes from the same start draw the same picture.
func Seed(key string, n int) (x, y float32) {
	h := uint32(2166136261)
	for i := 0; i < len(key); {
		// The page hashes UTF-16 code units.
		r, size := utf8.DecodeRuneInString(key[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			h = (h ^ uint32(0xD800+(r>>10))) * 16777619
			h = (h ^ uint32(0xDC00+(r&0x3FF))) * 16777619
			continue
		}
		h = (h ^ uint32(r)) * 16777619
	}
	next := func() float64 {
		h += 0x6D2B79F5
		t := (h ^ h>>15) * (1 | h)
		t = (t + (t^t>>7)*(61|t)) ^ t
		return float64(t^t>>14)/4294967296 - 0.5
	}
	s := math.Sqrt(math.Max(float64(n), 1)) * 10
	return float32(next() * s), float32(next() * s)
}

// Run lays out n nodes (masses 1 + their degree) joined by edges (pairs
// of node indexes) from the places x, y (as many as nodes; Seed makes
// them) until it has converged.
func Run(n int, x, y []float32, edges [][2]uint32) Result {
	return RunWith(n, x, y, edges, Hints{})
}

// Hints say more of the nodes than the edges do, each a number per node
// (-1 for none), or nil.
type Hints struct {
	// Group is each node's community: beside the page's forces, a node
	// is drawn towards its group's centre of mass (groupPull times its
	// mass and distance), so the groups of one connected component take
	// regions of their own instead of mixing around the hubs they share.
	Group []int32
	// Subject is what each node is about (the document that mentions
	// it): the components of one subject are packed next to each other,
	// subjects in the order of their largest component.
	Subject []int32
}

// RunWith is Run with hints.
func RunWith(n int, x, y []float32, edges [][2]uint32, hints Hints) Result {
	group := hints.Group
	up := make([]int32, n)
	for i := range up {
		up[i] = int32(i)
	}
	root := func(a int32) int32 {
		for up[a] != a {
			up[a] = up[up[a]]
			a = up[a]
		}
		return a
	}
	degree := make([]float64, n)
	for _, e := range edges {
		degree[e[0]]++
		degree[e[1]]++
		a, b := root(int32(e[0])), root(int32(e[1]))
		if a != b {
			up[max(a, b)] = min(a, b)
		}
	}
	type part struct {
		nodes  []int32
		es, et []uint32
		lay    *multilevel
		x, y   []float64
	}
	byRoot := map[int32]*part{}
	var parts []*part
	local := make([]uint32, n)
	for i := range n {
		r := root(int32(i))
		p := byRoot[r]
		if p == nil {
			p = &part{}
			byRoot[r] = p
			parts = append(parts, p)
		}
		local[i] = uint32(len(p.nodes))
		p.nodes = append(p.nodes, int32(i))
	}
	for _, e := range edges {
		p := byRoot[root(int32(e[0]))]
		p.es = append(p.es, local[e[0]])
		p.et = append(p.et, local[e[1]])
	}
	slices.SortStableFunc(parts, func(a, b *part) int { return cmp.Compare(len(b.nodes), len(a.nodes)) })
	// blocks are runs of parts packed as one: a subject's parts.
	blocks := make([]int, len(parts))
	for i := range blocks {
		blocks[i] = i
	}
	if hints.Subject != nil {
		parts, blocks = bySubject(parts, func(p *part) []int32 { return p.nodes }, hints.Subject)
	}
	res := Result{X: make([]float32, n), Y: make([]float32, n), Converged: true}
	for _, p := range parts {
		m := len(p.nodes)
		if m == 1 {
			p.x, p.y = []float64{0}, []float64{0}
			continue
		}
		mass := make([]float64, m)
		px, py := make([]float64, m), make([]float64, m)
		var groups []int32
		if group != nil {
			groups = make([]int32, m)
		}
		for j, g := range p.nodes {
			mass[j] = 1 + degree[g]
			px[j], py[j] = float64(x[g]), float64(y[g])
			if groups != nil {
				groups[j] = group[g]
			}
		}
		p.lay = newMultilevel(px, py, mass, p.es, p.et, groups)
		p.lay.run()
		p.x, p.y = p.lay.levels[0].x, p.lay.levels[0].y
		res.Converged = res.Converged && p.lay.converged
	}
	if len(parts) > 0 && parts[0].lay != nil {
		res.Iterations, res.CoarseIterations = parts[0].lay.iterations, parts[0].lay.coarseIterations
	}
	// Pack the components in rows, gap mean edge lengths apart, the rows
	// as wide as makes the whole best fill a 3:2 frame.
	boxes := make([][4]float64, len(parts))
	var length float64
	var count int
	for q, p := range parts {
		b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for j := range p.x {
			b[0], b[2] = math.Min(b[0], p.x[j]), math.Max(b[2], p.x[j])
			b[1], b[3] = math.Min(b[1], p.y[j]), math.Max(b[3], p.y[j])
		}
		boxes[q] = b
		for k := range p.es {
			length += math.Hypot(p.x[p.es[k]]-p.x[p.et[k]], p.y[p.es[k]]-p.y[p.et[k]])
		}
		count += len(p.es)
	}
	g := 10.0
	if count > 0 && length > 0 {
		g = length / float64(count)
	}
	g *= gap
	sizes := make([][2]float64, len(parts))
	for q, b := range boxes {
		sizes[q] = [2]float64{b[2] - b[0] + g, b[3] - b[1] + g}
	}
	at := blockShelves(sizes, blocks, g)
	for q, p := range parts {
		ox, oy := at[q][0]-boxes[q][0], at[q][1]-boxes[q][1]
		for j, gi := range p.nodes {
			res.X[gi], res.Y[gi] = float32(p.x[j]+ox), float32(p.y[j]+oy)
		}
	}
	return res
}

// blockShelves packs boxes of the given sizes as shelves does, each
// block (the boxes of one number in blocks, which come in runs) first
// packed on its own into one box, and the blocks pad further apart than
// the boxes within one.
func blockShelves(sizes [][2]float64, blocks []int, pad float64) [][2]float64 {
	at := make([][2]float64, len(sizes))
	var outer [][2]float64
	var runs [][2]int // each block's boxes, from and to
	for from := 0; from < len(sizes); {
		to := from + 1
		for to < len(sizes) && blocks[to] == blocks[from] {
			to++
		}
		inner := shelves(sizes[from:to], frameAspect)
		var w, h float64
		for q := from; q < to; q++ {
			at[q] = inner[q-from]
			w, h = math.Max(w, at[q][0]+sizes[q][0]), math.Max(h, at[q][1]+sizes[q][1])
		}
		if to-from > 1 {
			w, h = w+pad, h+pad
		}
		outer = append(outer, [2]float64{w, h})
		runs = append(runs, [2]int{from, to})
		from = to
	}
	for b, corner := range shelves(outer, frameAspect) {
		for q := runs[b][0]; q < runs[b][1]; q++ {
			at[q][0] += corner[0]
			at[q][1] += corner[1]
		}
	}
	return at
}

// frameAspect is the width over the height of the frame packed
// components fill best: about a wide screen's graph canvas.
const frameAspect = 1.5

// shelves places boxes of the given sizes in rows, in their order, and
// returns each box's corner. Of the row widths from the widest box to
// all boxes in one row, it keeps the one whose packing a frame of the
// given aspect shows largest.
func shelves(sizes [][2]float64, aspect float64) [][2]float64 {
	var widest, total float64
	for _, s := range sizes {
		widest = math.Max(widest, s[0])
		total += s[0]
	}
	pack := func(rowW float64, at [][2]float64) (w, h float64) {
		var cx, cy, rowH float64
		for q, s := range sizes {
			if cx > 0 && cx+s[0] > rowW {
				cx, cy, rowH = 0, cy+rowH, 0
			}
			if at != nil {
				at[q] = [2]float64{cx, cy}
			}
			cx += s[0]
			rowH = math.Max(rowH, s[1])
			w = math.Max(w, cx)
		}
		return w, cy + rowH
	}
	best, bestScale := widest, -1.0
	const steps = 24
	for i := range steps + 1 {
		rowW := widest * math.Pow(math.Max(total/widest, 1), float64(i)/steps)
		w, h := pack(rowW, nil)
		if scale := math.Min(aspect/w, 1/h); scale > bestScale {
			best, bestScale = rowW, scale
		}
	}
	at := make([][2]float64, len(sizes))
	pack(best, at)
	return at
}

// bySubject orders parts (largest first) by subject: each part's subject
// is the one most of its nodes have; the subjects come in the order of
// their largest part, each with its parts, largest first; parts of no
// subject keep their place among them as a subject of their own. blocks
// numbers each part's subject (one number per run of parts).
func bySubject[P any](parts []P, nodes func(P) []int32, subject []int32) ([]P, []int) {
	first := map[int32]int{} // subject -> its first (largest) part's rank
	subj := make([]int32, len(parts))
	for i, p := range parts {
		count := map[int32]int{}
		best, most := int32(-1), 0
		for _, v := range nodes(p) {
			if s := subject[v]; s >= 0 {
				count[s]++
				if c := count[s]; c > most || c == most && s < best {
					best, most = s, c
				}
			}
		}
		if best < 0 || len(nodes(p)) == 1 {
			// No subject, or a node alone: kept in place (the nodes
			// alone, smallest, end the packing together).
			best = int32(-2 - i)
		}
		subj[i] = best
		if _, ok := first[best]; !ok {
			first[best] = i
		}
	}
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(first[subj[a]], first[subj[b]]) })
	out, blocks := make([]P, len(parts)), make([]int, len(parts))
	for i, o := range order {
		out[i], blocks[i] = parts[o], first[subj[o]]
	}
	return out, blocks
}

// level is one graph of the hierarchy with its ForceAtlas2 state.
type level struct {
	n                      int
	es, et                 []uint32
	w                      []float64 // edge weights, nil for 1
	mass                   []float64
	x, y, dx, dy, odx, ody []float64
	conv                   []float64
	slowDown               float64
	parent                 []int32 // each node's cluster in the next coarser level
	centre                 []int32 // the node each cluster is centred on
	tree                   *tree
	fx, fy                 []float64 // repulsion, per node
	workers                int
	// group is each node's group (nil: none); gx, gy, gm the groups'
	// centres of mass, as dense group indexes.
	group      []int32
	gx, gy, gm []float64
}

func newLevel(n int, es, et []uint32, w, mass []float64) *level {
	lv := &level{n: n, es: es, et: et, w: w, mass: mass,
		x: make([]float64, n), y: make([]float64, n), dx: make([]float64, n), dy: make([]float64, n),
		odx: make([]float64, n), ody: make([]float64, n), conv: make([]float64, n),
		slowDown: 1 + math.Log(math.Max(float64(n), 1))}
	for i := range lv.conv {
		lv.conv[i] = 1
	}
	if n > exactMax {
		lv.tree = newTree(n)
		lv.fx, lv.fy = make([]float64, n), make([]float64, n)
		lv.workers = min(runtime.GOMAXPROCS(0), max(1, n/2000))
	}
	return lv
}

// tree is a Barnes-Hut quadtree in preorder: region r's subtree is
// r .. skip[r]-1. A leaf holds the nodes idx[lo[r]] .. idx[hi[r]-1].
type tree struct {
	idx                 []uint32
	mass, cx, cy, width []float64
	skip, lo, hi        []int32
	leaf                []bool
}

func newTree(n int) *tree {
	return &tree{idx: make([]uint32, n)}
}

func (t *tree) build(lv *level) {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range lv.n {
		t.idx[i] = uint32(i)
		x0, x1 = math.Min(x0, lv.x[i]), math.Max(x1, lv.x[i])
		y0, y1 = math.Min(y0, lv.y[i]), math.Max(y1, lv.y[i])
	}
	t.mass, t.cx, t.cy, t.width = t.mass[:0], t.cx[:0], t.cy[:0], t.width[:0]
	t.skip, t.lo, t.hi, t.leaf = t.skip[:0], t.lo[:0], t.hi[:0], t.leaf[:0]
	w := math.Max(x1-x0, y1-y0)
	if w == 0 {
		w = 1
	}
	t.region(lv, 0, lv.n, x0, y0, w, 0)
}

// region adds the region of idx[lo..hi), a square at (left, bottom) of
// the given width, and its subtree.
func (t *tree) region(lv *level, lo, hi int, left, bottom, width float64, depth int) {
	r := len(t.mass)
	t.mass, t.cx, t.cy, t.width = append(t.mass, 0), append(t.cx, 0), append(t.cy, 0), append(t.width, width)
	t.skip, t.lo, t.hi, t.leaf = append(t.skip, 0), append(t.lo, int32(lo)), append(t.hi, int32(hi)), append(t.leaf, false)
	var m, cx, cy float64
	if hi-lo <= 1 || depth >= maxDepth {
		for k := lo; k < hi; k++ {
			i := t.idx[k]
			m += lv.mass[i]
			cx += lv.x[i] * lv.mass[i]
			cy += lv.y[i] * lv.mass[i]
		}
		t.leaf[r] = true
	} else {
		h := width / 2
		mx, my := left+h, bottom+h
		split := partition(t.idx, lv.x, lo, hi, mx)
		cut0, cut1 := partition(t.idx, lv.y, lo, split, my), partition(t.idx, lv.y, split, hi, my)
		bounds := [5]int{lo, cut0, split, cut1, hi}
		for q := range 4 {
			if bounds[q+1] <= bounds[q] {
				continue
			}
			c := len(t.mass)
			l, b := left, bottom
			if q >= 2 {
				l = mx
			}
			if q%2 == 1 {
				b = my
			}
			t.region(lv, bounds[q], bounds[q+1], l, b, h, depth+1)
			m += t.mass[c]
			cx += t.cx[c] * t.mass[c]
			cy += t.cy[c] * t.mass[c]
		}
	}
	t.mass[r] = m
	if m > 0 {
		t.cx[r], t.cy[r] = cx/m, cy/m
	} else {
		t.cx[r], t.cy[r] = left+width/2, bottom+width/2
	}
	t.skip[r] = int32(len(t.mass))
}

// partition puts idx[lo..hi) with v < mid first and returns where the
// rest starts.
func partition(idx []uint32, v []float64, lo, hi int, mid float64) int {
	a, b := lo, hi-1
	for a <= b {
		if v[idx[a]] < mid {
			a++
		} else {
			idx[a], idx[b] = idx[b], idx[a]
			b--
		}
	}
	return a
}

// iterate runs one ForceAtlas2 iteration and returns its energy: the
// mean distance a node moved over the layout's extent.
func (lv *level) iterate() float64 {
	n, x, y, dx, dy, mass := lv.n, lv.x, lv.y, lv.dx, lv.dy, lv.mass
	copy(lv.odx, dx)
	copy(lv.ody, dy)
	clear(dx)
	clear(dy)
	if lv.tree != nil {
		lv.repelTree()
	} else {
		for i := range n {
			xi, yi, mi := x[i], y[i], scaling*mass[i]
			for j := range i {
				ddx, ddy := xi-x[j], yi-y[j]
				if d2 := ddx*ddx + ddy*ddy; d2 > 0 {
					f := mi * mass[j] / d2
					dx[i] += ddx * f
					dy[i] += ddy * f
					dx[j] -= ddx * f
					dy[j] -= ddy * f
				}
			}
		}
	}
	for i := range n {
		f := mass[i] * gravity
		dx[i] -= x[i] * f
		dy[i] -= y[i] * f
	}
	if lv.group != nil {
		clear(lv.gx)
		clear(lv.gy)
		clear(lv.gm)
		for i, g := range lv.group {
			if g >= 0 {
				lv.gx[g] += x[i] * mass[i]
				lv.gy[g] += y[i] * mass[i]
				lv.gm[g] += mass[i]
			}
		}
		for i, g := range lv.group {
			if g >= 0 {
				f := mass[i] * groupPull
				dx[i] -= (x[i] - lv.gx[g]/lv.gm[g]) * f
				dy[i] -= (y[i] - lv.gy[g]/lv.gm[g]) * f
			}
		}
	}
	for e := range lv.es {
		s, t := lv.es[e], lv.et[e]
		we := 1.0
		if lv.w != nil {
			we = lv.w[e]
		}
		ddx, ddy := (x[s]-x[t])*we, (y[s]-y[t])*we
		dx[s] -= ddx
		dy[s] -= ddy
		dx[t] += ddx
		dy[t] += ddy
	}
	var moved float64
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range n {
		ax, ay, bx, by := lv.odx[i]-dx[i], lv.ody[i]-dy[i], lv.odx[i]+dx[i], lv.ody[i]+dy[i]
		swing := 1 + math.Sqrt(mass[i]*math.Sqrt(ax*ax+ay*ay))
		speed := lv.conv[i] * math.Log(1+math.Sqrt(bx*bx+by*by)/2) / swing
		lv.conv[i] = math.Min(1, math.Sqrt(speed*(dx[i]*dx[i]+dy[i]*dy[i])/swing))
		sx, sy := dx[i]*speed/lv.slowDown, dy[i]*speed/lv.slowDown
		x[i] += sx
		y[i] += sy
		moved += math.Sqrt(sx*sx + sy*sy)
		x0, x1 = math.Min(x0, x[i]), math.Max(x1, x[i])
		y0, y1 = math.Min(y0, y[i]), math.Max(y1, y[i])
	}
	extent := math.Hypot(x1-x0, y1-y0)
	if n == 0 || extent <= 0 {
		return 0
	}
	return moved / float64(n) / extent
}

// repelTree adds the repulsion, approximated by Barnes-Hut, node ranges
// on the processors in parallel.
func (lv *level) repelTree() {
	t := lv.tree
	t.build(lv)
	var wg sync.WaitGroup
	chunk := (lv.n + lv.workers - 1) / lv.workers
	for lo := 0; lo < lv.n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			lv.repelRange(lo, hi)
		}(lo, min(lo+chunk, lv.n))
	}
	wg.Wait()
	for i := range lv.n {
		lv.dx[i] += lv.fx[i]
		lv.dy[i] += lv.fy[i]
	}
}

func (lv *level) repelRange(from, to int) {
	t := lv.tree
	x, y, mass := lv.x, lv.y, lv.mass
	regions := int32(len(t.mass))
	t2 := theta * theta
	for i := from; i < to; i++ {
		xi, yi, mi := x[i], y[i], scaling*mass[i]
		var fx, fy float64
		for r := int32(0); r < regions; {
			if t.leaf[r] {
				for k := t.lo[r]; k < t.hi[r]; k++ {
					j := t.idx[k]
					ddx, ddy := xi-x[j], yi-y[j]
					if d2 := ddx*ddx + ddy*ddy; d2 > 0 {
						f := mi * mass[j] / d2
						fx += ddx * f
						fy += ddy * f
					}
				}
				r++
				continue
			}
			ddx, ddy := xi-t.cx[r], yi-t.cy[r]
			d2 := ddx*ddx + ddy*ddy
			if t.width[r]*t.width[r] < t2*d2 {
				f := mi * t.mass[r] / d2
				fx += ddx * f
				fy += ddy * f
				r = t.skip[r]
			} else {
				r++
			}
		}
		lv.fx[i], lv.fy[i] = fx, fy
	}
}

// coarsen returns the next coarser level of lv, or nil when it would
// not shrink enough.
func (lv *level) coarsen() *level {
	n := lv.n
	start := make([]uint32, n+1)
	for e := range lv.es {
		start[lv.es[e]+1]++
		start[lv.et[e]+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	adj := make([]uint32, 2*len(lv.es))
	fill := slices.Clone(start[:n])
	for e := range lv.es {
		s, t := lv.es[e], lv.et[e]
		adj[fill[s]] = t
		fill[s]++
		adj[fill[t]] = s
		fill[t]++
	}
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	deg := func(u uint32) uint32 { return start[u+1] - start[u] }
	slices.SortFunc(order, func(p, q uint32) int {
		if c := cmp.Compare(deg(q), deg(p)); c != 0 {
			return c
		}
		return cmp.Compare(p, q)
	})
	// A maximal independent set, the best connected first.
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = -1
	}
	blocked := make([]bool, n)
	var centre []int32
	for _, u := range order {
		if blocked[u] {
			continue
		}
		parent[u] = int32(len(centre))
		centre = append(centre, int32(u))
		for a := start[u]; a < start[u+1]; a++ {
			blocked[adj[a]] = true
		}
	}
	c := len(centre)
	if float64(c) > shrink*float64(n) {
		return nil
	}
	cmass := make([]float64, c)
	for i := range c {
		cmass[i] = lv.mass[centre[i]]
	}
	// Every other node joins its lightest neighbouring cluster.
	for _, u := range order {
		if parent[u] >= 0 && centre[parent[u]] == int32(u) {
			continue
		}
		best := int32(-1)
		for a := start[u]; a < start[u+1]; a++ {
			v := adj[a]
			if parent[v] >= 0 && centre[parent[v]] == int32(v) && (best < 0 || cmass[parent[v]] < cmass[best]) {
				best = parent[v]
			}
		}
		parent[u] = best
		cmass[best] += lv.mass[u]
	}
	index := map[uint64]int{}
	var ces, cet []uint32
	var cw []float64
	for e := range lv.es {
		p, q := parent[lv.es[e]], parent[lv.et[e]]
		if p == q {
			continue
		}
		if p > q {
			p, q = q, p
		}
		we := 1.0
		if lv.w != nil {
			we = lv.w[e]
		}
		key := uint64(p)*uint64(c) + uint64(q)
		if at, ok := index[key]; ok {
			cw[at] += we
			continue
		}
		index[key] = len(ces)
		ces, cet, cw = append(ces, uint32(p)), append(cet, uint32(q)), append(cw, we)
	}
	lv.parent, lv.centre = parent, centre
	next := newLevel(c, ces, cet, cw, cmass)
	if lv.group != nil {
		// A cluster is of its centre's group.
		g := make([]int32, c)
		for i, u := range centre {
			g[i] = lv.group[u]
		}
		next.group, next.gx, next.gy, next.gm = g, make([]float64, len(lv.gm)), make([]float64, len(lv.gm)), make([]float64, len(lv.gm))
	}
	return next
}

// setGroups numbers groups densely (-1 stays none); one group or none
// pulls nothing.
func (lv *level) setGroups(groups []int32) {
	if groups == nil {
		return
	}
	dense := map[int32]int32{}
	g := make([]int32, len(groups))
	for i, v := range groups {
		if v < 0 {
			g[i] = -1
			continue
		}
		d, ok := dense[v]
		if !ok {
			d = int32(len(dense))
			dense[v] = d
		}
		g[i] = d
	}
	if len(dense) < 2 {
		return
	}
	lv.group = g
	lv.gx, lv.gy, lv.gm = make([]float64, len(dense)), make([]float64, len(dense)), make([]float64, len(dense))
}

// prolong places the nodes of fine around their clusters in coarse: each
// cluster's centre on its place, the others spread of a mean coarse edge
// away, in directions of the golden angle.
func prolong(fine, coarse *level) {
	var length float64
	for e := range coarse.es {
		length += math.Hypot(coarse.x[coarse.es[e]]-coarse.x[coarse.et[e]], coarse.y[coarse.es[e]]-coarse.y[coarse.et[e]])
	}
	if len(coarse.es) > 0 {
		length = spread * length / float64(len(coarse.es))
	} else {
		length = 1
	}
	for i := range fine.n {
		p := fine.parent[i]
		a := float64(i) * goldenAngle
		r := length
		if fine.centre[p] == int32(i) {
			r = 0
		}
		fine.x[i] = coarse.x[p] + r*math.Cos(a)
		fine.y[i] = coarse.y[p] + r*math.Sin(a)
	}
}

// multilevel runs the levels from the coarsest to the finest.
type multilevel struct {
	levels                       []*level
	iterations, coarseIterations int
	converged                    bool
}

func newMultilevel(x, y, mass []float64, es, et []uint32, groups []int32) *multilevel {
	finest := newLevel(len(x), es, et, nil, mass)
	finest.setGroups(groups)
	m := &multilevel{levels: []*level{finest}}
	for lv := finest; lv.n > coarsest; {
		if lv = lv.coarsen(); lv == nil {
			break
		}
		m.levels = append(m.levels, lv)
	}
	// The coarsest graph starts where its centres are.
	top := m.levels[len(m.levels)-1]
	var ids []int32
	for i := len(m.levels) - 2; i >= 0; i-- {
		below := m.levels[i]
		next := make([]int32, top.n)
		for c := range next {
			if ids != nil {
				next[c] = below.centre[ids[c]]
			} else {
				next[c] = below.centre[c]
			}
		}
		ids = next
	}
	for i := range top.n {
		j := int32(i)
		if ids != nil {
			j = ids[i]
		}
		top.x[i], top.y[i] = x[j], y[j]
	}
	return m
}

// run iterates every level until it calms down (or uses its iterations)
// and moves to the next finer one; the finest runs until it converges.
func (m *multilevel) run() {
	for at := len(m.levels) - 1; at >= 0; at-- {
		lv := m.levels[at]
		most := levelMax
		switch {
		case at == 0:
			most = maxIterations
		case at == len(m.levels)-1:
			most = coarsestMax
		}
		still := 0
		for it := 0; it < most; it++ {
			energy := lv.iterate()
			if at == 0 {
				m.iterations++
			} else {
				m.coarseIterations++
			}
			if energy < tolerance {
				still++
			} else {
				still = 0
			}
			if still >= calm {
				if at == 0 {
					m.converged = true
				}
				break
			}
		}
		if at > 0 {
			prolong(m.levels[at-1], lv)
		}
	}
}
