// Package community splits a graph into communities, level by level, and
// writes a report of each from its own nodes, relations and sentences.
//
// Detection is Louvain's method (Blondel et al. 2008) with a refinement
// step: nodes move to the neighbouring community that most raises the
// modularity until none does, each community that came apart is split
// into its connected parts, and the communities become the nodes of the
// next, coarser level. It runs on flat arrays (compressed adjacency, one
// pass over a node's edges per move), so 100k nodes and 300k edges take
// about a second, where gonum's general implementation took 27 s.
package community

import (
	"math"
	"math/rand/v2"
	"slices"
)

// wgraph is an undirected weighted graph in compressed adjacency form: the
// neighbours of node i are adj[start[i]:start[i+1]], with weights w; a
// self-loop is listed once, with its weight counted twice in degree.
type wgraph struct {
	start []int32
	adj   []int32
	w     []float64
	deg   []float64 // weighted degree
	m2    float64   // twice the total edge weight
}

// edge is an undirected edge between a and b.
type edge struct {
	a, b int32
	w    float64
}

// build makes a wgraph of n nodes from edges (duplicates summed).
func build(n int, edges []edge) *wgraph {
	g := &wgraph{start: make([]int32, n+1), deg: make([]float64, n)}
	count := make([]int32, n)
	for _, e := range edges {
		count[e.a]++
		if e.a != e.b {
			count[e.b]++
		}
	}
	for i := 0; i < n; i++ {
		g.start[i+1] = g.start[i] + count[i]
	}
	g.adj = make([]int32, g.start[n])
	g.w = make([]float64, g.start[n])
	pos := slices.Clone(g.start[:n])
	put := func(a, b int32, w float64) {
		g.adj[pos[a]], g.w[pos[a]] = b, w
		pos[a]++
	}
	for _, e := range edges {
		put(e.a, e.b, e.w)
		if e.a != e.b {
			put(e.b, e.a, e.w)
			g.deg[e.a] += e.w
			g.deg[e.b] += e.w
		} else {
			g.deg[e.a] += 2 * e.w
		}
		g.m2 += 2 * e.w
	}
	return g
}

// moveNodes is Louvain's local moving phase, visiting nodes as Leiden's
// fast local moving does: every node once in a random order, then only
// the neighbours of a node that moved (those outside its new community),
// until no node is waiting. A pass over every node until none moves, as
// first published, revisits all of them many times on a graph without
// clear communities (a random one took 24x the time at 10x the nodes);
// the queue revisits only where something changed. It returns each node's
// community (numbered 0..k-1) and whether any node moved.
func (g *wgraph) moveNodes(r *rand.Rand, resolution float64) ([]int32, bool) {
	n := len(g.deg)
	comm := make([]int32, n)
	tot := make([]float64, n)
	for i := range comm {
		comm[i] = int32(i)
		tot[i] = g.deg[i]
	}
	if g.m2 == 0 {
		return comm, false
	}
	// queue is a ring of the nodes waiting to be visited; waiting marks
	// them, so a node waits at most once.
	queue := make([]int32, n)
	for i, oi := range r.Perm(n) {
		queue[i] = int32(oi)
	}
	waiting := make([]bool, n)
	for i := range waiting {
		waiting[i] = true
	}
	head, size := 0, n
	// Weights from the node at hand to each neighbouring community.
	wto := make([]float64, n)
	var touched []int32
	moved := false
	// A bound on visits, far above what convergence takes, so that
	// rounding can never keep two nodes trading places forever.
	for visits := 0; size > 0 && visits < 64*n; visits++ {
		i := queue[head]
		head = (head + 1) % n
		size--
		waiting[i] = false
		ci := comm[i]
		touched = touched[:0]
		for k := g.start[i]; k < g.start[i+1]; k++ {
			j := g.adj[k]
			if j == i {
				continue
			}
			c := comm[j]
			if wto[c] == 0 {
				touched = append(touched, c)
			}
			wto[c] += g.w[k]
		}
		ki := g.deg[i]
		tot[ci] -= ki
		// The gain of joining c, up to terms common to every c.
		gain := func(c int32) float64 { return wto[c] - resolution*tot[c]*ki/g.m2 }
		best, bestGain := ci, gain(ci)
		for _, c := range touched {
			if gg := gain(c); gg > bestGain+1e-12 || (math.Abs(gg-bestGain) <= 1e-12 && c < best) {
				best, bestGain = c, gg
			}
		}
		tot[best] += ki
		for _, c := range touched {
			wto[c] = 0
		}
		wto[ci] = 0
		if best == ci {
			continue
		}
		comm[i] = best
		moved = true
		for k := g.start[i]; k < g.start[i+1]; k++ {
			if j := g.adj[k]; !waiting[j] && comm[j] != best {
				waiting[j] = true
				queue[(head+size)%n] = j
				size++
			}
		}
	}
	return g.split(comm), moved
}

// split renumbers communities 0..k-1, making each connected part of a
// community its own (the refinement: a community must hang together).
func (g *wgraph) split(comm []int32) []int32 {
	n := len(comm)
	out := make([]int32, n)
	for i := range out {
		out[i] = -1
	}
	next := int32(0)
	stack := []int32{}
	for s := 0; s < n; s++ {
		if out[s] >= 0 {
			continue
		}
		out[s] = next
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for k := g.start[i]; k < g.start[i+1]; k++ {
				j := g.adj[k]
				if out[j] < 0 && comm[j] == comm[s] {
					out[j] = next
					stack = append(stack, j)
				}
			}
		}
		next++
	}
	return out
}

// aggregate makes the graph of communities: one node per community, the
// edges between communities summed, those inside a community a self-loop.
func (g *wgraph) aggregate(comm []int32) *wgraph {
	k := int32(0)
	for _, c := range comm {
		k = max(k, c+1)
	}
	type pair struct{ a, b int32 }
	sum := map[pair]float64{}
	for i := range comm {
		for p := g.start[i]; p < g.start[i+1]; p++ {
			j := g.adj[p]
			if int32(i) > j {
				continue // each undirected edge once
			}
			a, b := comm[i], comm[j]
			if a > b {
				a, b = b, a
			}
			sum[pair{a, b}] += g.w[p]
		}
	}
	edges := make([]edge, 0, len(sum))
	for p, w := range sum {
		edges = append(edges, edge{p.a, p.b, w})
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.b - y.b)
	})
	return build(int(k), edges)
}

// modularity is Q of a partition of g.
func (g *wgraph) modularity(comm []int32, resolution float64) float64 {
	if g.m2 == 0 {
		return 0
	}
	k := int32(0)
	for _, c := range comm {
		k = max(k, c+1)
	}
	in := make([]float64, k)
	tot := make([]float64, k)
	for i := range comm {
		tot[comm[i]] += g.deg[i]
		for p := g.start[i]; p < g.start[i+1]; p++ {
			if comm[g.adj[p]] == comm[i] {
				if g.adj[p] == int32(i) {
					in[comm[i]] += 2 * g.w[p]
				} else {
					in[comm[i]] += g.w[p]
				}
			}
		}
	}
	q := 0.0
	for c := range in {
		q += in[c]/g.m2 - resolution*(tot[c]/g.m2)*(tot[c]/g.m2)
	}
	return q
}

// louvain returns, finest first, each level's community of every original
// node, and the modularity of each level.
func louvain(n int, edges []edge, resolution float64, seed uint64) ([][]int32, []float64) {
	g := build(n, edges)
	base := build(n, edges)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	member := make([]int32, n) // original node -> node of the current graph
	for i := range member {
		member[i] = int32(i)
	}
	var levels [][]int32
	var qs []float64
	for range 32 {
		comm, moved := g.moveNodes(r, resolution)
		k := int32(0)
		for _, c := range comm {
			k = max(k, c+1)
		}
		if !moved || int(k) == len(comm) {
			break
		}
		level := make([]int32, n)
		for i := range member {
			level[i] = comm[member[i]]
		}
		levels = append(levels, level)
		qs = append(qs, base.modularity(level, resolution))
		member = level
		g = g.aggregate(comm)
	}
	return levels, qs
}
