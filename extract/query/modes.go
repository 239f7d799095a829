package query

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// Mode is how a question is answered from a version's graph and
// chunks, as in LightRAG (plus ppr).
type Mode string

// The query modes.
const (
	// ModeLocal ranks entities by the low-level keywords, then takes their
	// relations and the chunks that mention them.
	ModeLocal Mode = "local"
	// ModeGlobal ranks the graph's communities by the question and takes
	// their members and the chunks that mention them (global.go).
	ModeGlobal Mode = "global"
	// ModeHybrid is local and global together.
	ModeHybrid Mode = "hybrid"
	// ModeNaive ranks chunks by the question alone (vector and BM25),
	// without the graph.
	ModeNaive Mode = "naive"
	// ModeMix is hybrid's graph with chunks ranked by the question and by
	// the graph (hybrid's entities and relations, and the ppr walk)
	// together; the default.
	ModeMix Mode = "mix"
	// ModePPR ranks chunks by a personalized PageRank over entities and
	// passages from the question's entities (HippoRAG, see ppr.go).
	ModePPR Mode = "ppr"
)

// Modes lists the query modes.
var Modes = []Mode{ModeLocal, ModeGlobal, ModeHybrid, ModeNaive, ModeMix, ModePPR}

// ModeSummary says in a few words what a mode searches, for a user
// choosing one.
func ModeSummary(mode Mode) string {
	switch mode {
	case ModeLocal:
		return "entities named in the question, their relations and chunks"
	case ModeGlobal:
		return "communities of the graph that match the question's themes"
	case ModeHybrid:
		return "local and global together"
	case ModeNaive:
		return "text chunks alone, without the graph: conversations, questions that name nothing"
	case ModeMix:
		return "the graph, the walk and the text chunks together: the default, for any question"
	case ModePPR:
		return "chunks reached by a PageRank walk from the entities the question names: questions that link them"
	}
	return ""
}

// ParseMode checks a mode name; empty means ModeMix. An unknown one is a
// KindInvalid error.
func ParseMode[S ~string](s S) (Mode, error) {
	m := Mode(strings.ToLower(strings.TrimSpace(string(s))))
	if m == "" {
		return ModeMix, nil
	}
	if !slices.Contains(Modes, m) {
		return "", extract.Errorf(extract.KindInvalid, "unknown mode %q (use one of %s)", m, strings.Join(ModeNames(), ", "))
	}
	return m, nil
}

// ModeNames are the modes' names, for help texts, pickers and schemas.
func ModeNames() []string { return extract.Names(Modes) }

// Vectors are a version's stored embeddings, all of one model: chunks by
// reference, nodes by key, edges by EdgeKey.
type Vectors struct {
	Model  string
	Chunks map[extract.ChunkRef][]float32
	Nodes  map[string][]float32
	Edges  map[string][]float32
	// Other holds the vectors of the texts the model does not serve, made
	// by its fallback (see extract.SplitEmbedder); nil when there are none.
	Other *Vectors
}

// Len is the number of vectors held, the fallback's included.
func (v *Vectors) Len() int {
	if v == nil {
		return 0
	}
	return len(v.Chunks) + len(v.Nodes) + len(v.Edges) + v.Other.Len()
}

// EdgeKey names an edge among a version's vectors.
func EdgeKey(e extract.Edge) string { return e.Source + "\x1f" + e.Label + "\x1f" + e.Target }

// Budget bounds each part of the context in estimated tokens
// (extract.EstimateTokens); zero fields take DefaultBudget's.
type Budget struct {
	Entities  int `json:"entities"`
	Relations int `json:"relations"`
	Chunks    int `json:"chunks"`
}

// DefaultBudget is the token budget of each part.
func DefaultBudget() Budget { return Budget{Entities: 3000, Relations: 3000, Chunks: 8000} }

// DefaultTopK is the number of items of each part when a request names
// none; MaxTopK is the most a request may ask for.
const (
	DefaultTopK = 10
	MaxTopK     = 200
)

// Request is one search: the mode, the question and its keywords, how many
// items of each part and their token budget.
type Request struct {
	Question string
	Mode     Mode
	High     []string
	Low      []string
	TopK     int
	Budget   Budget
	// Now is when the question is asked (an as-of date, when the
	// question asks of the past): relative times in it ("two weeks ago",
	// "last month", "in May") are read against it, over the chunks dated
	// by Corpus.DateChunks. Zero: the latest chunk's date.
	Now time.Time
}

// Score weights, measured on LoCoMo conversations (see the README). A
// chunk's question score is BM25 (scaled to the best chunk's) plus its
// vector's cosine with the question's (weighed by vectorWeight), plus
// wBeside of the better of the same scores of the chunks just before and
// after it in its document; in mix mode the graph adds a small share,
// enough to reorder close chunks. An item's graph share is damped by how
// many chunks mention it, so a speaker named everywhere does not crowd out
// the turn that answers.
//
// wBeside: a chunk is read in its context. In a conversation the turn
// that answers is often not the one that holds the question's words: the
// question is put in one segment and answered in the next ("Got any fave
// styles?" / "contemporary is my top pick"), and a reply leans on the
// turn before it ("Yeah, I painted that last year"). On two LoCoMo
// conversations, before this share, two thirds of the questions whose
// evidence mix missed in the first 10 chunks had it next to one it
// ranked there; with half the neighbour's score, recall@10 of naive and
// mix rose by 0.05 to 0.10 with either embedder (0.3 and 0.7 gave
// about the same). A passage that is a document of its own (the
// multi-hop corpora) has no neighbours and is scored as before.
//
// shortChunk: the neighbours' share is for short chunks. In LongMemEval's
// conversations a round is a question and an answer of several hundred
// tokens, and the round that holds the evidence stands on its own; there
// the full share pulled the neighbours of one strong round above the
// evidence of other sessions (turn recall@10 of mix 0.842 against 0.864
// with the share scaled down past 100 tokens, on a third of the dev
// questions; LoCoMo's turns, 20 to 60 tokens, keep the full share).
//
// wChunkTie: in local and hybrid, among the chunks that mention the
// entities and relations found, the question's own score counts as much
// as the graph's (both scaled to the best chunk's). As a tie-breaker
// (0.1) it left the graph's order, which favours the chunk that names
// the most of what was found, not the one that answers: evidence
// recall@10 of local on LoCoMo conv 26 and 30 rose from 0.594 and 0.495
// to 0.650 and 0.724 (3 gave 0.660 and 0.724), multi-hop R@5 of local
// from 0.725 to 0.790 (HotpotQA) and hybrid from 0.452 to 0.483
// (MuSiQue).
//
// wSide: in a conversation with an assistant, a round's lexical score
// adds the BM25 of the side the question asks of (see SideChunks).
const (
	shortChunk  = 100
	wVector     = 0.25
	wLexical    = 1.0
	wGraphMix   = 0.05
	wChunkTie   = 1.0
	wBeside     = 0.5
	wSide       = 1.0
	minItemSide = 0.05
)

// wWhen: in mix, a chunk said within the span of time a question names
// ("two weeks ago", "in the past month", "in March", read against
// Request.Now) counts twice. On the 30 LongMemEval dev questions that
// name such a span (with the sentence encoder), mix's evidence-turn
// recall@10 rose from 0.740 to 0.794 (BM25 0.649): three questions
// gained, none lost. On every fifth dev question 2 and 4 did the same
// as 1, 0.5 less and 0.2 nothing.
const wWhen = 1.0

// wSideVec: in a conversation with an assistant, a round's vector share
// adds the cosine of the question with the user's side alone (see
// Corpus.SideVectors), as much again as the whole round's.
const wSideVec = 1.0

// Weights measured on the HotpotQA and MuSiQue subsets, two LoCoMo
// conversations and LongMemEval (see docs/measured.md): in mix over
// documents, a walk from entities the question names counts wWalkDocs
// times the question's own score (a bridge question's second passage
// shares no word with it, and only the walk reaches it); otherwise, and
// over a conversation, whose graph is its speakers and what they did, as
// much (more lost LoCoMo and LongMemEval evidence); in ppr the question's
// own score only breaks near ties; a sentence encoder's cosine counts as
// much as BM25.
const (
	wCommunity   = 0.5
	wWalkMix     = 1.0
	wWalkDocs    = 20.0
	wWalkTie     = 0.03
	wVectorModel = 1.0
)

// Search retrieves the context of a question in one of the modes (see the
// Mode constants). emb embeds the question and its keywords; it must be
// the model the vectors were made with. Without vectors (none indexed, or
// emb nil) ranking is lexical only. Entities, relations and chunks each
// keep at most TopK items within their token budget. Ties break by key,
// so the result is deterministic.
func (c *Corpus) Search(ctx context.Context, emb extract.Embedder, req Request) (Context, error) {
	g := c.g
	mode, err := ParseMode(req.Mode)
	if err != nil {
		return Context{}, err
	}
	if req.TopK <= 0 {
		req.TopK = DefaultTopK
	}
	req.TopK = min(req.TopK, MaxTopK)
	def := DefaultBudget()
	b := req.Budget
	b.Entities, b.Relations, b.Chunks = cmp.Or(b.Entities, def.Entities), cmp.Or(b.Relations, def.Relations), cmp.Or(b.Chunks, def.Chunks)

	// Query vectors: the question, the low-level and the high-level keywords.
	s := searcher{Corpus: c, topK: req.TopK}
	if c.dates != nil {
		s.when, s.hasWhen = periodOf(req.Question, cmp.Or(req.Now, c.latest()))
	}
	// A question the model does not serve is searched among the
	// fallback's vectors, with the fallback (vectors of two models are
	// never compared).
	vi := c.vi
	if se, ok := emb.(extract.SplitEmbedder); ok && vi != nil && !se.Serves(req.Question) {
		emb, vi = se.Fallback(), vi.other
	}
	if emb != nil && vi.Len() > 0 {
		if emb.Model() != vi.Model {
			return Context{}, extract.Errorf(extract.KindInvalid, "the version's vectors are of model %s, not %s", vi.Model, emb.Model())
		}
		// The question and its keywords, each embedded once (a question
		// without high-level keywords stands for them).
		texts := []string{req.Question, orQuestion(req.Low, req.Question), orQuestion(req.High, req.Question)}
		uniq := slices.Compact(slices.Sorted(slices.Values(texts)))
		uv, _, err := emb.Embed(ctx, uniq)
		if err != nil {
			return Context{}, err
		}
		if err := embed.Check(emb, uniq, uv); err != nil {
			return Context{}, err
		}
		vs := make([][]float32, len(texts))
		for i, t := range texts {
			j, _ := slices.BinarySearch(uniq, t)
			vs[i] = uv[j]
		}
		if err := vi.prepare(ctx, vs[0], vs[1], vs[2]); err != nil {
			return Context{}, err
		}
		n := candidates(req.TopK)
		s.wv = vectorWeight(emb.Model())
		s.qv = vs[0]
		s.chunkVec = vi.chunks.scores(vs[0], n)
		s.sideVec = c.sideVecScores(req.Question, emb.Model(), vs[0])
		s.nodeVec = vi.nodes.scores(vs[1], n)
		s.edgeVec = vi.edges.scores(vs[2], n)
	}
	s.lowKW, s.highKW = prepare(req.Low), prepare(req.High)
	s.idx, s.lexNode = c.lex.idx, c.lex.nodeScores(s.lowKW, s.highKW)
	s.lexEdge = c.lex.edgeScores(s.lexNode, s.highKW)

	var nodes, edges []scored
	var walk []float64
	if mode == ModePPR || mode == ModeMix {
		mass := s.ppr(req.Question, s.direct(req.Question))
		walk = mass[len(g.Nodes):]
		if mode == ModePPR {
			nodes = s.topByMass(mass[:len(g.Nodes)])
			edges = s.edgesOf(nodes)
		}
	}
	switch mode {
	case ModeLocal:
		nodes = s.topNodes()
		edges = s.edgesOf(nodes)
	case ModeGlobal:
		nodes, s.commChunks = s.global(req.Question)
		edges = s.edgesOf(nodes)
	case ModeHybrid, ModeMix:
		ln := s.topNodes()
		ge := s.topEdges()
		nodes = mergeScored(ln, s.nodesOf(ge), s.topK)
		edges = mergeScored(ge, s.edgesOf(ln), s.topK)
	case ModeNaive, ModePPR:
		// Naive takes no entities; ppr took the walk's above.
	}
	out := Context{}
	nodes = s.fitNodes(nodes, b.Entities)
	edges = s.fitEdges(edges, b.Relations)
	for r, n := range nodes {
		node := g.Nodes[n.i]
		out.Entities = append(out.Entities, Entity{Ref: fmt.Sprintf("E%d", r+1), Key: node.Key, Name: node.Name, Type: node.Type,
			Description: node.Description, Score: round(n.score), Mentions: len(node.Mentions)})
	}
	for r, se := range edges {
		e := g.Edges[se.i]
		out.Relations = append(out.Relations, Relation{Ref: fmt.Sprintf("R%d", r+1), SourceKey: e.Source, TargetKey: e.Target,
			Source: g.Nodes[s.idx[e.Source]].Name, Target: g.Nodes[s.idx[e.Target]].Name, Label: e.Label,
			Keywords: e.Keywords, Description: e.Description, Score: round(se.score)})
	}
	out.Chunks = s.rankChunks(mode, req.Question, nodes, edges, walk, out, b.Chunks)
	return out, nil
}

func orQuestion(words []string, q string) string {
	if len(words) == 0 {
		return q
	}
	return strings.Join(words, ", ")
}

type scored struct {
	i     int
	score float64
}

type searcher struct {
	// walkNamed says the walk started from entities the question names
	// (see ppr), not from the nearest by vector.
	walkNamed bool
	*Corpus
	topK int
	// qv is the question's vector; chunkVec, nodeVec and edgeVec the
	// cosines of the question, the low-level and the high-level keywords
	// with the chunks, nodes and edges (the nearest only, past the exact
	// limit).
	qv       []float32
	chunkVec map[extract.ChunkRef]float64
	// sideVec is each chunk's user-side cosine (by position; nil without
	// side vectors).
	sideVec          []float64
	nodeVec, edgeVec map[string]float64
	lowKW, highKW    []keyword
	idx              map[string]int
	lexNode          []float64
	lexEdge          []float64
	directScores     []float64
	// wv weighs the vector side against the lexical (vectorWeight).
	wv float64
	// commChunks is each chunk's community score in global search.
	commChunks []float64
	// when is the span of time the question names, if hasWhen.
	when    period
	hasWhen bool
}

// vectorWeight is the weight of a model's cosines beside the lexical
// scores: a quarter for the hashed offline embedder, whose cosine counts
// shared words and pieces (BM25 does that better), wVectorModel for a
// model that embeds meaning.
func vectorWeight(model string) float64 {
	if model == embed.OfflineModel {
		return wVector
	}
	return wVectorModel
}

// scale divides by the largest value so scores from different scales
// (keyword matches, cosines, BM25) can be added.
func scale(xs []float64) []float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	out := make([]float64, len(xs))
	if m <= 0 {
		return out
	}
	for i, x := range xs {
		if x > 0 {
			out[i] = x / m
		}
	}
	return out
}

// direct is every chunk's score for the question alone: BM25 (scaled to
// the best chunk's) plus its vector's cosine weighed by vectorWeight, plus
// wBeside of the better of its neighbours' such scores (the chunks before
// and after it in its document). It is computed once per search.
func (s *searcher) direct(question string) []float64 {
	if s.directScores != nil {
		return s.directScores
	}
	lex := scale(s.bm25.Scores(question))
	for i, x := range s.sideScores(question) {
		lex[i] += wSide * x
	}
	own := make([]float64, len(s.refs))
	for i, r := range s.refs {
		own[i] = wLexical*lex[i] + s.wv*s.chunkVec[r]
		if s.sideVec != nil {
			own[i] += wSideVec * s.wv * s.sideVec[i]
		}
	}
	d := make([]float64, len(own))
	for i, o := range own {
		near := 0.0
		for _, p := range s.beside[i] {
			if p >= 0 {
				near = max(near, own[p])
			}
		}
		d[i] = o + s.besideW[i]*near
	}
	s.directScores = d
	return d
}

// topByMass ranks nodes by the walk's mass.
func (s *searcher) topByMass(mass []float64) []scored {
	var out []scored
	for i, m := range mass {
		if m > 0 && s.lex.first[i] {
			out = append(out, scored{i, m})
		}
	}
	out = s.sortNodes(out)
	if len(out) > 0 {
		top := out[0].score
		for i := range out {
			out[i].score /= top
		}
	}
	return out
}

// topNodes ranks nodes by the low-level keywords: lexical match plus the
// cosine of the node's vector with the keywords' vector.
func (s *searcher) topNodes() []scored {
	lex := scale(s.lexNode)
	var out []scored
	for key, i := range s.idx {
		sc := wLexical*lex[i] + s.wv*s.nodeVec[key]
		if sc > minItemSide {
			out = append(out, scored{i, sc})
		}
	}
	return s.sortNodes(out)
}

func (s *searcher) sortNodes(out []scored) []scored {
	return topSorted(out, s.topK, func(a, b scored) int {
		na, nb := &s.g.Nodes[a.i], &s.g.Nodes[b.i]
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(len(nb.Mentions), len(na.Mentions)), strings.Compare(na.Key, nb.Key))
	})
}

func (s *searcher) sortEdges(out []scored) []scored {
	return topSorted(out, s.topK, func(a, b scored) int {
		ea, eb := &s.g.Edges[a.i], &s.g.Edges[b.i]
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(eb.Weight, ea.Weight), strings.Compare(s.lex.edges[a.i].key, s.lex.edges[b.i].key), cmp.Compare(a.i, b.i))
	})
}

// topSorted returns the first k of xs in the order of compare, sorted: a
// heap of k keeps the cost near linear when xs holds most of the graph.
// xs is reordered.
func topSorted[T any](xs []T, k int, compare func(a, b T) int) []T {
	if k <= 0 || len(xs) <= 2*k {
		slices.SortFunc(xs, compare)
		return xs[:min(k, len(xs))]
	}
	// h is a heap with the worst kept element at its root.
	h := xs[:0:0]
	down := func(i int) {
		for {
			w, l, r := i, 2*i+1, 2*i+2
			if l < len(h) && compare(h[l], h[w]) > 0 {
				w = l
			}
			if r < len(h) && compare(h[r], h[w]) > 0 {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for _, x := range xs {
		switch {
		case len(h) < k:
			h = append(h, x)
			for i := len(h) - 1; i > 0 && compare(h[i], h[(i-1)/2]) > 0; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		case compare(x, h[0]) < 0:
			h[0] = x
			down(0)
		}
	}
	slices.SortFunc(h, compare)
	return h
}

// edgeCosine is edge i's cosine with the high-level keywords: its text's
// vector, or the edge's own in versions vectorized before edges of one
// text shared a vector.
func (s *searcher) edgeCosine(i int) float64 {
	e := &s.lex.edges[i]
	if c, ok := s.edgeVec[e.vkey]; ok {
		return c
	}
	return s.edgeVec[e.key]
}

// topEdges ranks relations by the high-level keywords: lexical match on
// label, keywords and description plus the cosine of the edge's vector.
func (s *searcher) topEdges() []scored {
	lex := scale(s.lexEdge)
	var out []scored
	for i := range s.g.Edges {
		if s.lexEdge[i] < 0 {
			continue
		}
		sc := wLexical*lex[i] + s.wv*s.edgeCosine(i)
		if sc > minItemSide {
			out = append(out, scored{i, sc})
		}
	}
	return s.sortEdges(out)
}

// edgesOf takes the relations of the chosen entities, scored by their
// endpoints' scores and weight (LightRAG's local mode).
func (s *searcher) edgesOf(nodes []scored) []scored {
	score := map[string]float64{}
	for _, n := range nodes {
		score[s.g.Nodes[n.i].Key] = n.score
	}
	var out []scored
	for i, e := range s.g.Edges {
		if s.lexEdge[i] < 0 {
			continue
		}
		sc := score[e.Source] + score[e.Target]
		if sc > 0 {
			out = append(out, scored{i, sc/2 + 0.01*math.Log1p(e.Weight)})
		}
	}
	return s.sortEdges(out)
}

// nodesOf takes the endpoints of the chosen relations, each scored by its
// best relation (LightRAG's global mode).
func (s *searcher) nodesOf(edges []scored) []scored {
	best := map[int]float64{}
	for _, se := range edges {
		e := s.g.Edges[se.i]
		for _, k := range []string{e.Source, e.Target} {
			i := s.idx[k]
			best[i] = max(best[i], se.score)
		}
	}
	out := make([]scored, 0, len(best))
	for i, sc := range best {
		out = append(out, scored{i, sc})
	}
	return s.sortNodes(out)
}

// mergeScored joins two rankings of the same kind, keeping each item's
// best score and the order by score.
func mergeScored(a, b []scored, k int) []scored {
	best := map[int]float64{}
	for _, x := range append(slices.Clone(a), b...) {
		best[x.i] = max(best[x.i], x.score)
	}
	out := make([]scored, 0, len(best))
	for i, sc := range best {
		out = append(out, scored{i, sc})
	}
	slices.SortFunc(out, func(x, y scored) int { return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.i, y.i)) })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// fitNodes keeps the ranked entities that fit the token budget.
func (s *searcher) fitNodes(nodes []scored, budget int) []scored {
	used := 0
	for i, n := range nodes {
		node := s.g.Nodes[n.i]
		used += extract.EstimateTokens(node.Name + " " + node.Type + " " + node.Description)
		if used > budget && i > 0 {
			return nodes[:i]
		}
	}
	return nodes
}

// fitEdges keeps the ranked relations that fit the token budget.
func (s *searcher) fitEdges(edges []scored, budget int) []scored {
	used := 0
	for i, se := range edges {
		e := s.g.Edges[se.i]
		used += extract.EstimateTokens(e.Source + " " + e.Label + " " + e.Target + " " + e.Keywords + " " + e.Description)
		if used > budget && i > 0 {
			return edges[:i]
		}
	}
	return edges
}

// rankChunks scores the chunks: by the graph (the chosen entities and
// relations that mention them, damped by how widely each is mentioned) in
// local, global and hybrid; by the question (BM25 plus vector) in naive;
// by both in mix.
func (s *searcher) rankChunks(mode Mode, question string, nodes, edges []scored, walk []float64, out Context, budget int) []ChunkHit {
	refs, pos := s.refs, s.pos
	ents := make([][]string, len(refs))
	rels := make([][]string, len(refs))
	graph := make([]float64, len(refs))
	if mode != ModeNaive && mode != ModePPR {
		add := func(ms []extract.Mention, ref string, sc float64, into [][]string) {
			spread := 0
			seen := map[int]bool{}
			for _, m := range ms {
				if p, ok := pos[extract.ChunkRef{DocumentID: m.DocumentID, Index: m.ChunkIndex}]; ok && !seen[p] {
					seen[p] = true
					spread++
				}
			}
			damp := 1 / math.Log2(1+float64(max(spread, 1)))
			for p := range seen {
				into[p] = append(into[p], ref)
				graph[p] += sc * damp
			}
		}
		for r, n := range nodes {
			add(s.g.Nodes[n.i].Mentions, out.Entities[r].Ref, n.score, ents)
		}
		for r, se := range edges {
			add(s.g.Edges[se.i].Mentions, out.Relations[r].Ref, se.score, rels)
		}
		graph = scale(graph)
	}
	// The question's own score: BM25 and the chunk vector's cosine, with a
	// share of the neighbours'.
	var direct []float64
	if mode == ModeNaive || mode == ModeMix || mode == ModePPR || mode == ModeGlobal || s.qv != nil {
		direct = s.direct(question)
	}
	walk = scale(walk)
	// The walk leads mix over documents when it starts from what the
	// question names: a bridge question's second passage shares no word
	// with it. From vector seeds, or in a conversation, it counts as much
	// as the question's own score.
	walkW := wWalkMix
	if s.walkNamed && !s.conversation {
		walkW = wWalkDocs
	}
	final := make([]float64, len(refs))
	for i := range refs {
		switch mode {
		case ModeNaive:
			final[i] = direct[i]
		case ModePPR:
			if walk[i] > 0 {
				final[i] = walk[i] + wWalkTie*direct[i]
			}
		case ModeMix:
			final[i] = direct[i] + wGraphMix*graph[i]*(wLexical+s.wv) + walkW*walk[i]*(wLexical+s.wv)
		case ModeGlobal:
			// The passages of the best communities, by the question.
			if s.commChunks[i] > 0 {
				final[i] = direct[i] + wCommunity*s.commChunks[i]
			}
		default:
			if graph[i] > 0 {
				final[i] = graph[i]
				if direct != nil {
					final[i] += wChunkTie * direct[i]
				}
			}
		}
	}
	// A question that names a span of time ("two weeks ago", "in the
	// past month") prefers the chunks said in it.
	if mode == ModeMix && s.hasWhen {
		for i := range final {
			if s.when.contains(s.dates[i]) {
				final[i] *= 1 + wWhen
			}
		}
	}
	order := make([]int, 0, len(refs))
	for i := range refs {
		if final[i] > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(final[b], final[a]), cmp.Compare(a, b)) })
	// The value that holds now goes first, unless the question asks of a
	// span of time: it asks of then, not now.
	if mode != ModeNaive && !s.hasWhen {
		order = s.currentFirst(order, nodes, s.topK)
	}
	var hits []ChunkHit
	used := 0
	for _, i := range order {
		if len(hits) == s.topK {
			break
		}
		ch := s.chunks[refs[i]]
		used += max(ch.Tokens, extract.EstimateTokens(ch.Text))
		if used > budget && len(hits) > 0 {
			break
		}
		slices.SortFunc(ents[i], compareRefs)
		slices.SortFunc(rels[i], compareRefs)
		hits = append(hits, ChunkHit{Ref: fmt.Sprintf("C%d", len(hits)+1), DocumentID: refs[i].DocumentID, Index: refs[i].Index,
			Text: ch.Text, Score: round(final[i]), Entities: ents[i], Relations: rels[i]})
	}
	return hits
}
