package query

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// The ppr mode follows HippoRAG: a personalized PageRank over one graph of
// entities and passages. Entities are linked by the version's relations,
// and every passage (chunk) to the entities it mentions. The walk starts
// from the question's seeds: the entities it names, the entities whose
// vectors are closest to it (each weighted by its specificity, one over
// the passages that mention it, so a name met everywhere leads nowhere in
// particular), and, lightly, the passages the question itself matches
// (BM25 and vectors). Passages are ranked by the mass the walk leaves on
// them, so a passage two hops from the question (the director's page
// reached through the film's) rises without sharing a word with it.

// walkGraph is the version's walk graph in compressed rows: vertices
// 0..nodes-1 are the graph's nodes (by index; a repeated key has no
// links), nodes..nodes+passages-1 the passages in corpus order.
type walkGraph struct {
	nodes, passages int
	// byName maps a name (tokens joined by spaces) to the vertices so
	// named: nodes and passage titles.
	byName  map[string][]int32
	maxName int
	off     []int32
	to      []int32
	p       []float32 // transition probability of each link
	// spread is the number of passages that mention each node.
	spread []int32
}

// Walk weights: a passage-entity link counts as much as a relation.
const (
	wWalkRelation = 1.0
	wWalkMention  = 1.0
	wWalkMain     = 10.0
)

// PPR settings: the damping (the chance to follow a link rather than
// restart; HippoRAG uses 0.5) and the iterations (mass moves at most this
// many hops from the seeds; 0.5^20 is negligible).
const (
	pprDamping    = 0.7
	pprIterations = 20
)

func (c *Corpus) walkGraph() *walkGraph {
	c.walkOnce.Do(func() { c.walk = newWalkGraph(c.g, c.lex, c.refs, c.pos, c.chunks) })
	return c.walk
}

// PassageTitle is the title a chunk opens with: the first line of a
// document's first chunk when it is short (at most maxTitleTokens words)
// and more text follows, as a corpus passage ("Title\ntext") or a headed
// article has. A parenthesised qualifier is dropped ("Scott Howell
// (political consultant)" -> "Scott Howell"). Empty when there is none.
func PassageTitle(c extract.Chunk) string {
	if c.Index != 0 {
		return ""
	}
	line, rest, ok := strings.Cut(c.Text, "\n")
	line = strings.TrimSpace(line)
	if !ok || strings.TrimSpace(rest) == "" || line == "" {
		return ""
	}
	if i := strings.Index(line, " ("); i > 0 && strings.HasSuffix(line, ")") {
		line = line[:i]
	}
	if strings.HasSuffix(line, ".") && !strings.HasSuffix(line, "..") && len(strings.Fields(line)) > 3 {
		return "" // a sentence, not a title
	}
	if n := len(tokens(extract.NormalizeName(line))); n == 0 || n > maxTitleTokens {
		return ""
	}
	return line
}

const maxTitleTokens = 12

func newWalkGraph(g extract.Graph, lx *lexIndex, refs []extract.ChunkRef, pos map[extract.ChunkRef]int, chunks map[extract.ChunkRef]extract.Chunk) *walkGraph {
	n, np := len(g.Nodes), len(refs)
	type link struct {
		to int32
		w  float32
	}
	adj := make([][]link, n+np)
	wg := &walkGraph{nodes: n, passages: np, spread: make([]int32, n), byName: make(map[string][]int32, len(lx.byName)), maxName: lx.maxName}
	for name, ids := range lx.byName {
		vs := make([]int32, len(ids))
		for i, id := range ids {
			vs[i] = int32(id)
		}
		wg.byName[name] = vs
	}
	// Links are undirected; one met again keeps its strongest weight.
	links := map[[2]int32]float32{}
	add := func(a, b int32, w float32) {
		if a == b {
			return
		}
		k := [2]int32{min(a, b), max(a, b)}
		links[k] = max(links[k], w)
	}
	// Titles: a passage's title is its main entity. A node of that name
	// gets a strong link to the passage; a title no node has becomes a
	// vertex of its own.
	for p, r := range refs {
		t := PassageTitle(chunks[r])
		if t == "" {
			continue
		}
		tt := tokens(extract.NormalizeName(t))
		name := strings.Join(tt, " ")
		// "Leland, North Carolina": the place is Leland; a node of the
		// head's name is the main entity too.
		if head, _, ok := strings.Cut(t, ","); ok {
			for _, id := range lx.byName[strings.Join(tokens(extract.NormalizeName(head)), " ")] {
				add(int32(id), int32(n+p), wWalkMain)
			}
		}
		if ids := lx.byName[name]; len(ids) > 0 {
			for _, id := range ids {
				add(int32(id), int32(n+p), wWalkMain)
			}
			continue
		}
		v := int32(len(adj))
		adj = append(adj, nil)
		wg.byName[name] = append(wg.byName[name], v)
		wg.maxName = max(wg.maxName, len(tt))
		add(v, int32(n+p), wWalkMain)
	}
	mentioned := map[[2]int32]bool{}
	for i, nd := range g.Nodes {
		if !lx.first[i] {
			continue
		}
		for _, m := range nd.Mentions {
			if p, ok := pos[extract.ChunkRef{DocumentID: m.DocumentID, Index: m.ChunkIndex}]; ok {
				if !mentioned[[2]int32{int32(i), int32(p)}] {
					mentioned[[2]int32{int32(i), int32(p)}] = true
					wg.spread[i]++
				}
				add(int32(i), int32(n+p), wWalkMention)
			}
		}
	}
	for _, e := range lx.edges {
		if e.si >= 0 {
			add(int32(e.si), int32(e.ti), wWalkRelation)
		}
	}
	keys := slices.SortedFunc(maps.Keys(links), func(a, b [2]int32) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, k := range keys {
		w := links[k]
		adj[k[0]] = append(adj[k[0]], link{k[1], w})
		adj[k[1]] = append(adj[k[1]], link{k[0], w})
	}
	nv := len(adj)
	wg.off = make([]int32, nv+1)
	for v, ls := range adj {
		wg.off[v+1] = wg.off[v] + int32(len(ls))
	}
	wg.to = make([]int32, wg.off[nv])
	wg.p = make([]float32, wg.off[nv])
	for v, ls := range adj {
		sum := float32(0)
		for _, l := range ls {
			sum += l.w
		}
		o := wg.off[v]
		for j, l := range ls {
			wg.to[o+int32(j)] = l.to
			wg.p[o+int32(j)] = l.w / sum
		}
	}
	return wg
}

// run is a personalized PageRank from the reset distribution (any
// non-negative weights; normalised here). Mass at a vertex without links
// returns to the seeds.
func (wg *walkGraph) run(reset []float64) []float64 {
	total := 0.0
	for _, r := range reset {
		total += r
	}
	x := make([]float64, len(reset))
	if total <= 0 {
		return x
	}
	r := make([]float64, len(reset))
	for i, v := range reset {
		r[i] = v / total
	}
	copy(x, r)
	next := make([]float64, len(x))
	for it := 0; it < pprIterations; it++ {
		clear(next)
		lost := 0.0
		for v, m := range x {
			if m == 0 {
				continue
			}
			lo, hi := wg.off[v], wg.off[v+1]
			if lo == hi {
				lost += m
				continue
			}
			for j := lo; j < hi; j++ {
				next[wg.to[j]] += m * float64(wg.p[j])
			}
		}
		for v := range next {
			next[v] = pprDamping*next[v] + (1-pprDamping+pprDamping*lost)*r[v]
		}
		x, next = next, x
	}
	return x
}

// Seed weights of the ppr mode: an entity or title the question names
// (times the IDF of its words), one of the seedVectorTop entities closest
// to the question by vector (times its cosine; only when it names
// nothing), and the share of the reset mass the seedPassages passages the
// question matches best hold together.
const (
	wSeedNamed    = 1.0
	wSeedVector   = 0.5
	seedVectorTop = 5
	wSeedPassage  = 0.05
	seedPassages  = 10
)

// specificity is a vertex's weight as a seed: one over the passages
// that mention it (HippoRAG's node specificity).
func (wg *walkGraph) specificity(v int) float64 {
	if v >= wg.nodes {
		return 1
	}
	return 1 / math.Max(1, float64(wg.spread[v]))
}

// linked reports whether a vertex has any link.
func (wg *walkGraph) linked(v int) bool { return wg.off[v] < wg.off[v+1] }

// namedIn returns the vertices whose whole name the text spells out (as a
// run of its tokens) with the tokens matched; a longer name hides the
// shorter ones inside it ("New York" in "New York City" counts once).
func (wg *walkGraph) namedIn(tt []string) map[int32][]string {
	out := map[int32][]string{}
	covered := make([]bool, len(tt))
	for n := min(wg.maxName, len(tt)); n >= 1; n-- {
		for s := 0; s+n <= len(tt); s++ {
			if !slices.Contains(covered[s:s+n], false) {
				continue
			}
			if n == 1 && stopWords[tt[s]] {
				continue
			}
			ids := wg.byName[strings.Join(tt[s:s+n], " ")]
			if len(ids) == 0 {
				continue
			}
			for _, v := range ids {
				out[v] = tt[s : s+n]
			}
			for k := s; k < s+n; k++ {
				covered[k] = true
			}
		}
	}
	return out
}

// ppr runs the walk for the searcher's question and returns the mass of
// every vertex (see walkGraph).
func (s *searcher) ppr(question string, direct []float64) []float64 {
	wg := s.walkGraph()
	reset := make([]float64, len(wg.off)-1)
	// Named entities: each weighted by how rare its words are among the
	// passages (a name made of common words says little) and by its
	// specificity.
	maxIDF := math.Log(1 + float64(len(s.refs)) + 0.5)
	for v, words := range wg.namedIn(tokens(extract.NormalizeName(question))) {
		if !wg.linked(int(v)) {
			continue
		}
		w := 0.0
		for _, t := range words {
			w += s.bm25.IDF(t) / maxIDF
		}
		reset[v] += wSeedNamed * w * wg.specificity(int(v))
	}
	named := false
	for _, r := range reset {
		named = named || r > 0
	}
	s.walkNamed = named
	// A question that names nothing the graph holds starts from the
	// entities closest to it by vector. (Beside named seeds they add
	// noise: on the HotpotQA and MuSiQue subsets recall@5 fell by 0.05
	// and 0.08 with them.)
	if !named && len(s.nodeVec) > 0 {
		type cand struct {
			i   int
			cos float64
		}
		var cs []cand
		for key, cos := range s.nodeVec {
			if i, ok := s.idx[key]; ok && cos > 0 && wg.linked(i) {
				cs = append(cs, cand{i, cos})
			}
		}
		slices.SortFunc(cs, func(a, b cand) int { return cmp.Or(cmp.Compare(b.cos, a.cos), cmp.Compare(a.i, b.i)) })
		for _, c := range cs[:min(seedVectorTop, len(cs))] {
			reset[c.i] += wSeedVector * c.cos * wg.specificity(c.i)
		}
	}
	seedTotal := 0.0
	for _, r := range reset {
		seedTotal += r
	}
	if direct != nil {
		order := make([]int, 0, len(direct))
		for p, d := range direct {
			if d > 0 {
				order = append(order, p)
			}
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(direct[b], direct[a]), cmp.Compare(a, b)) })
		top := order[:min(seedPassages, len(order))]
		dsum := 0.0
		for _, p := range top {
			dsum += direct[p]
		}
		// Passages carry a fixed share of the reset mass beside the
		// entities (all of it when the question names no entity).
		for _, p := range top {
			if seedTotal == 0 {
				reset[wg.nodes+p] += direct[p] / dsum
			} else {
				reset[wg.nodes+p] += seedTotal * wSeedPassage / (1 - wSeedPassage) * direct[p] / dsum
			}
		}
	}
	return wg.run(reset)
}
