package query

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
)

// Global search answers from the graph's communities (extract/community)
// rather than from single nodes: the communities whose text (their
// members' names and descriptions) matches the question best are taken,
// and the passages that mention their members are ranked by the question.
// Without a model this is GraphRAG's global search with extractive
// reports: the ranked communities stand for their reports.

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

func newCommIndex(r community.Result, g extract.Graph, idx map[string]int) *commIndex {
	ci := &commIndex{}
	if r.Levels == 0 {
		return ci
	}
	level := 0
	for l := r.Levels - 1; l >= 0; l-- {
		cs := r.Level(l)
		if len(cs) > 0 && len(idx)/len(cs) >= minCommunitySize {
			level = l
			break
		}
	}
	var texts []string
	for _, cm := range r.Level(level) {
		if cm.Size < 2 {
			continue
		}
		var b strings.Builder
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
	scores := scale(ci.bm25.Scores(question))
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
