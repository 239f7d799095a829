package layout

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Nodes start where the graph page seeds them (graph.js seeded: FNV-1a
// over UTF-16 code units, then mulberry32); the values are the page's,
// computed by its code in Node for a graph of 1,000 nodes.
func TestSeed_AsThePage(t *testing.T) {
	for key, want := range map[string][2]float32{
		"marie curie": {107.46022033691406, 115.75933074951172},
		"Ünïcödé":     {32.170658111572266, 49.26176452636719},
		"北京":          {47.21186065673828, 152.5674591064453},
		"😀 emoji":     {-6.3699631690979, -89.78397369384766},
		"":            {35.178585052490234, -2.0477986335754395},
	} {
		if x, y := Seed(key, 1000); x != want[0] || y != want[1] {
			t.Errorf("Seed(%q) = %v, %v; the page: %v", key, x, y, want)
		}
	}
}

// communities builds k groups of size nodes, densely linked inside
// (each node to 4 others of its group) and by one edge between
// consecutive groups, plus isolated nodes.
func communities(k, size, isolated int) (n int, edges [][2]uint32, group []int) {
	rng := rand.New(rand.NewPCG(1, 2))
	n = k*size + isolated
	group = make([]int, n)
	for g := range k {
		for i := range size {
			u := g*size + i
			group[u] = g
			for range 4 {
				v := g*size + rng.IntN(size)
				if v != u {
					edges = append(edges, [2]uint32{uint32(u), uint32(v)})
				}
			}
		}
		if g > 0 {
			edges = append(edges, [2]uint32{uint32(g*size - 1), uint32(g * size)})
		}
	}
	for i := k * size; i < n; i++ {
		group[i] = -1
	}
	return n, edges, group
}

func seeded(n int) (x, y []float32) {
	x, y = make([]float32, n), make([]float32, n)
	for i := range n {
		x[i], y[i] = Seed(string(rune('a'+i%26))+string(rune(i)), n)
	}
	return x, y
}

// Four communities of 300 nodes (more than the exact-repulsion limit, so
// Barnes-Hut and the levels run) converge, every place is finite, and
// each community sits apart: its members are nearer their own centroid
// than the other centroids are.
func TestRun_CommunitiesApart(t *testing.T) {
	const k, size = 4, 300
	n, edges, group := communities(k, size, 40)
	x, y := seeded(n)
	res := Run(n, x, y, edges)
	if !res.Converged || res.Iterations == 0 || res.CoarseIterations == 0 {
		t.Fatalf("converged %v after %d iterations (%d coarse)", res.Converged, res.Iterations, res.CoarseIterations)
	}
	var cx, cy [k]float64
	for i := range n {
		if math.IsNaN(float64(res.X[i])) || math.IsInf(float64(res.X[i]), 0) || math.IsNaN(float64(res.Y[i])) || math.IsInf(float64(res.Y[i]), 0) {
			t.Fatalf("node %d at %v, %v", i, res.X[i], res.Y[i])
		}
		if g := group[i]; g >= 0 {
			cx[g] += float64(res.X[i]) / size
			cy[g] += float64(res.Y[i]) / size
		}
	}
	for g := range k {
		var spread float64
		for i := g * size; i < (g+1)*size; i++ {
			spread += math.Hypot(float64(res.X[i])-cx[g], float64(res.Y[i])-cy[g]) / size
		}
		for h := range k {
			if h != g {
				if d := math.Hypot(cx[g]-cx[h], cy[g]-cy[h]); d < 1.5*spread {
					t.Errorf("communities %d and %d: centroids %.1f apart, %d's members %.1f from theirs on average", g, h, d, g, spread)
				}
			}
		}
	}
}

// Components are laid out alone and packed side by side: no two
// components' boxes overlap, and an isolated node is a component.
func TestRun_ComponentsPacked(t *testing.T) {
	// Three paths of 30 nodes and 20 isolated nodes.
	n := 3*30 + 20
	var edges [][2]uint32
	for c := range 3 {
		for i := range 29 {
			edges = append(edges, [2]uint32{uint32(c*30 + i), uint32(c*30 + i + 1)})
		}
	}
	x, y := seeded(n)
	res := Run(n, x, y, edges)
	type box struct{ x0, y0, x1, y1 float32 }
	boxes := map[int]*box{}
	comp := func(i int) int {
		if i < 90 {
			return i / 30
		}
		return i
	}
	for i := range n {
		b := boxes[comp(i)]
		if b == nil {
			b = &box{res.X[i], res.Y[i], res.X[i], res.Y[i]}
			boxes[comp(i)] = b
		}
		b.x0, b.y0 = min(b.x0, res.X[i]), min(b.y0, res.Y[i])
		b.x1, b.y1 = max(b.x1, res.X[i]), max(b.y1, res.Y[i])
	}
	if len(boxes) != 23 {
		t.Fatalf("%d components", len(boxes))
	}
	for a, p := range boxes {
		for b, q := range boxes {
			if a < b && p.x0 <= q.x1 && q.x0 <= p.x1 && p.y0 <= q.y1 && q.y0 <= p.y1 {
				t.Errorf("components %d and %d overlap: %+v %+v", a, b, *p, *q)
			}
		}
	}
}

// An empty graph and a graph of one node lay out without trouble.
func TestRun_Tiny(t *testing.T) {
	if res := Run(0, nil, nil, nil); len(res.X) != 0 {
		t.Fatal(res)
	}
	res := Run(1, []float32{5}, []float32{7}, nil)
	if len(res.X) != 1 || math.IsNaN(float64(res.X[0])) {
		t.Fatal(res)
	}
	// Two nodes on one place, joined twice and to themselves.
	res = Run(2, []float32{1, 1}, []float32{1, 1}, [][2]uint32{{0, 1}, {1, 0}, {0, 0}})
	for i := range 2 {
		if math.IsNaN(float64(res.X[i])) || math.IsNaN(float64(res.Y[i])) {
			t.Fatalf("node %d at %v, %v", i, res.X[i], res.Y[i])
		}
	}
}

// BenchmarkRun lays out graphs shaped as the graph page's benchmark
// draws them (handlers BenchmarkGraphRender: preferential attachment, 3
// edges a node).
func BenchmarkRun(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"10k-30k", 10_000}, {"100k-300k", 100_000}} {
		b.Run(size.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			var edges [][2]uint32
			ends := []uint32{0}
			for i := 1; i < size.n; i++ {
				for range 3 {
					t := ends[rng.IntN(len(ends))]
					edges = append(edges, [2]uint32{uint32(i), t})
					ends = append(ends, t)
				}
				ends = append(ends, uint32(i))
			}
			x, y := seeded(size.n)
			for b.Loop() {
				res := Run(size.n, x, y, edges)
				b.ReportMetric(float64(res.Iterations), "iterations")
				b.ReportMetric(float64(res.CoarseIterations), "coarse-iterations")
			}
		})
	}
}

// The components about one subject are packed next to each other: three
// subjects of a big and a small component each, the small ones the
// smallest of all (packed last by size alone), land beside their big
// one: its nodes are the nearest to them.
func TestRun_SubjectsPackedTogether(t *testing.T) {
	var edges [][2]uint32
	var subject []int32
	var comps [][]int
	add := func(size int, s int32) {
		start := len(subject)
		var c []int
		for i := range size {
			subject = append(subject, s)
			c = append(c, start+i)
			if i > 0 {
				edges = append(edges, [2]uint32{uint32(start + i - 1), uint32(start + i)})
			}
		}
		comps = append(comps, c)
	}
	for s := range int32(3) {
		add(40-int(s), s)
	}
	for s := range int32(3) {
		add(6, s)
	}
	n := len(subject)
	x, y := seeded(n)
	res := RunWith(n, x, y, edges, Hints{Subject: subject})
	centre := func(c []int) (float64, float64) {
		var cx, cy float64
		for _, i := range c {
			cx += float64(res.X[i]) / float64(len(c))
			cy += float64(res.Y[i]) / float64(len(c))
		}
		return cx, cy
	}
	for s := range 3 {
		sx, sy := centre(comps[3+s])
		own := math.Inf(1)
		nearest := -1
		for b := range 3 {
			for _, i := range comps[b] {
				if d := math.Hypot(sx-float64(res.X[i]), sy-float64(res.Y[i])); d < own {
					own, nearest = d, b
				}
			}
		}
		if nearest != s {
			t.Errorf("subject %d's small component lies nearest subject %d's big one", s, nearest)
		}
	}
}

// With groups, two communities that share one hub (one component) take
// sides of it: each member nearer its own community's centre than the
// other's.
func TestRun_GroupsTakeRegions(t *testing.T) {
	const size = 60
	var edges [][2]uint32
	group := make([]int32, 2*size+1)
	hub := uint32(2 * size)
	group[hub] = -1
	for g := range 2 {
		for i := range size {
			u := uint32(g*size + i)
			group[u] = int32(g)
			edges = append(edges, [2]uint32{u, hub}, [2]uint32{u, uint32(g*size + (i+1)%size)})
		}
	}
	n := 2*size + 1
	x, y := seeded(n)
	res := RunWith(n, x, y, edges, Hints{Group: group})
	var cx, cy [2]float64
	for i := range 2 * size {
		cx[group[i]] += float64(res.X[i]) / size
		cy[group[i]] += float64(res.Y[i]) / size
	}
	wrong := 0
	for i := range 2 * size {
		g := group[i]
		if math.Hypot(float64(res.X[i])-cx[g], float64(res.Y[i])-cy[g]) > math.Hypot(float64(res.X[i])-cx[1-g], float64(res.Y[i])-cy[1-g]) {
			wrong++
		}
	}
	if wrong > size/10 {
		t.Errorf("%d of %d members nearer the other community's centre", wrong, 2*size)
	}
}
