package query

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// Global search answers from the graph's communities (extract/community)
// rather than from single nodes: the communities whose text (their
// members' names and descriptions, and a model's report when one was
// written) matches the question best are taken, and the passages that
// mention their members are ranked by the question. When the reports
// have vectors (UseReportVectors), a report's cosine with the question
// joins its BM25 score. Without a model this is GraphRAG's global search
// with extractive reports: the ranked communities stand for their
// reports (GlobalReports lists them); with one, GlobalAnswer maps the
// ranked reports to key points and reduces them to an answer.

// globalCommunities is how many of the best matching communities global
// search reads.
const globalCommunities = 3

// minCommunitySize is the average size of the communities of the level
// global search reads: the finest level whose communities hold at least
// this many nodes on average (finer levels split topics apart).
const minCommunitySize = 8

// commIndex is a version's communities as global search reads them.
type commIndex struct {
	members [][]int // node positions of each community
	bm25    *BM25   // over each community's text
	// comms are the communities indexed; result holds their reports.
	comms  []community.Community
	result community.Result
	// vecs are the communities' report vectors (nil for none), of model
	// vecModel; see UseReportVectors.
	vecs     [][]float32
	vecModel string
	// rating is each community's model rating (0 without a model report).
	rating []float64
}

// communities indexes the version's communities once: those given by
// UseCommunities, else detected over its graph.
func (c *Corpus) communities() *commIndex {
	c.commOnce.Do(func() { c.comm = newCommIndex(community.Detect(c.g, community.Options{}), c.g, c.lex.idx) })
	return c.comm
}

// UseCommunities gives the corpus its version's communities as they were
// stored (detected over the same graph), so global search does not detect
// them again. It has effect only before the first global search.
func (c *Corpus) UseCommunities(r community.Result) {
	c.commOnce.Do(func() { c.comm = newCommIndex(r, c.g, c.lex.idx) })
}

// GlobalLevel is the level of r global search reads in a graph of that
// many nodes: the finest whose communities hold minCommunitySize nodes on
// average (level 0 when none does).
func GlobalLevel(r community.Result, nodes int) int {
	for l := r.Levels - 1; l >= 0; l-- {
		cs := r.Level(l)
		if len(cs) > 0 && nodes/len(cs) >= minCommunitySize {
			return l
		}
	}
	return 0
}

func newCommIndex(r community.Result, g extract.Graph, idx map[string]int) *commIndex {
	ci := &commIndex{}
	if r.Levels == 0 {
		return ci
	}
	ci.result = r
	model := map[int]community.Report{}
	for _, rep := range r.Reports {
		model[rep.Community] = rep
	}
	var texts []string
	for _, cm := range ReportedCommunities(r, len(idx)) {
		ci.comms = append(ci.comms, cm)
		var b strings.Builder
		rep, ok := model[cm.ID]
		if ok {
			b.WriteString(rep.Text())
			b.WriteString("\n")
		}
		ci.rating = append(ci.rating, rep.Rating)
		var ms []int
		for _, k := range cm.Members {
			i, ok := idx[k]
			if !ok {
				continue
			}
			ms = append(ms, i)
			n := g.Nodes[i]
			b.WriteString(n.Name)
			b.WriteString(". ")
			b.WriteString(n.Description)
			b.WriteString("\n")
		}
		ci.members = append(ci.members, ms)
		texts = append(texts, b.String())
	}
	ci.bm25 = NewBM25(texts)
	return ci
}

// global ranks the communities for the question and returns the nodes of
// the best ones (scored by their community and their own match) and each
// chunk's community score (0 for a chunk no member of them mentions).
func (s *searcher) global(question string) ([]scored, []float64) {
	ci := s.communities()
	chunkScore := make([]float64, len(s.refs))
	if ci.bm25 == nil || len(ci.members) == 0 {
		return nil, chunkScore
	}
	scores := ci.scores(question, s.qv, s.wv)
	order := make([]int, 0, len(scores))
	for i, sc := range scores {
		if sc > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	order = order[:min(globalCommunities, len(order))]
	best := map[int]float64{}
	for _, c := range order {
		for _, i := range ci.members[c] {
			sc := scores[c] + s.lexNode[i]
			if sc > best[i] {
				best[i] = sc
			}
			for _, m := range s.g.Nodes[i].Mentions {
				if p, ok := s.pos[extract.ChunkRef{DocumentID: m.DocumentID, Index: m.ChunkIndex}]; ok {
					chunkScore[p] = max(chunkScore[p], scores[c])
				}
			}
		}
	}
	nodes := make([]scored, 0, len(best))
	for i, sc := range best {
		nodes = append(nodes, scored{i, sc})
	}
	slices.SortFunc(nodes, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(s.g.Nodes[a.i].Key, s.g.Nodes[b.i].Key))
	})
	return nodes[:min(s.topK, len(nodes))], chunkScore
}

// scores is each indexed community's score for the question: its BM25
// (scaled to the best) plus, when its report has a vector of qv's
// dimensions, wv times their cosine.
func (ci *commIndex) scores(question string, qv []float32, wv float64) []float64 {
	out := scale(ci.bm25.Scores(question))
	if qv == nil {
		return out
	}
	for i, v := range ci.vecs {
		if len(v) == len(qv) {
			out[i] += wv * max(0, float64(embed.Dot(qv, v)))
		}
	}
	return out
}

// ReportVectors are the vectors of a version's community reports by
// community id, all of one model.
type ReportVectors struct {
	Model   string
	Vectors map[int][]float32
}

// UseReportVectors gives global search the vectors of the communities'
// reports (made by the model of the version's other vectors, see
// ReportText). Call it after UseCommunities, before the corpus is shared
// between searches.
func (c *Corpus) UseReportVectors(rv ReportVectors) {
	ci := c.communities()
	ci.vecModel = rv.Model
	ci.vecs = make([][]float32, len(ci.comms))
	for i, cm := range ci.comms {
		ci.vecs[i] = rv.Vectors[cm.ID]
	}
}

// ReportTexts are the texts of the reports global search reads, by
// community id (ReportText of each): what their vectors embed.
func (c *Corpus) ReportTexts() map[int]string {
	ci := c.communities()
	out := make(map[int]string, len(ci.comms))
	for i, rep := range ci.result.ReportsOf(ci.comms, c.g) {
		out[ci.comms[i].ID] = ReportText(rep)
	}
	return out
}

// MaxReportText bounds the text embedded for a report (bytes).
const MaxReportText = 1000

// ReportText is what the vectorizer embeds for a community's report.
func ReportText(r community.Report) string {
	return extract.Clip(r.Text(), MaxReportText)
}

// ReportedCommunities lists the communities whose reports global search
// reads in a graph of that many nodes (GlobalLevel; those of at least two
// members): the ones the vectorizer embeds.
func ReportedCommunities(r community.Result, nodes int) []community.Community {
	var out []community.Community
	for _, cm := range r.Level(GlobalLevel(r, nodes)) {
		if cm.Size >= 2 {
			out = append(out, cm)
		}
	}
	return out
}

// ReportHit is a community report global search read, with its score
// for the question.
type ReportHit struct {
	Level int     `json:"level"`
	Size  int     `json:"size"`
	Score float64 `json:"score"`
	community.Report
}

// MaxGlobalReports bounds the reports GlobalReports lists.
const MaxGlobalReports = 16

// GlobalReports ranks the communities global search reads for the
// question and returns the best n reports (at most MaxGlobalReports):
// those that match it, best first, then, to fill n (a question about the
// whole corpus matches few words), the others by their model's rating
// and their size. emb embeds the question when the reports have vectors
// of its model; nil ranks by BM25 alone.
func (c *Corpus) GlobalReports(ctx context.Context, emb extract.Embedder, question string, n int) ([]ReportHit, error) {
	ci := c.communities()
	if ci.bm25 == nil || len(ci.comms) == 0 {
		return nil, nil
	}
	var qv []float32
	if emb != nil && ci.vecs != nil && emb.Model() == ci.vecModel {
		if se, ok := emb.(extract.SplitEmbedder); !ok || se.Serves(question) {
			vs, _, err := emb.Embed(ctx, []string{question})
			if err != nil {
				return nil, err
			}
			qv = vs[0]
		}
	}
	scores := ci.scores(question, qv, vectorWeight(ci.vecModel))
	order := make([]int, len(ci.comms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(scores[b], scores[a]), cmp.Compare(ci.rating[b], ci.rating[a]),
			cmp.Compare(ci.comms[b].Size, ci.comms[a].Size), cmp.Compare(ci.comms[a].ID, ci.comms[b].ID))
	})
	order = order[:min(n, MaxGlobalReports, len(order))]
	cs := make([]community.Community, len(order))
	for j, i := range order {
		cs[j] = ci.comms[i]
	}
	reports := ci.result.ReportsOf(cs, c.g)
	out := make([]ReportHit, len(order))
	for j, i := range order {
		out[j] = ReportHit{Level: cs[j].Level, Size: cs[j].Size, Score: round(scores[i]), Report: reports[j]}
	}
	return out, nil
}
