package query

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// Options bound the context.
type Options struct {
	TopNodes  int
	TopEdges  int
	TopChunks int
}

// DefaultOptions are the bounds used when a field is zero.
func DefaultOptions() Options { return Options{TopNodes: 10, TopEdges: 10, TopChunks: 5} }

// Entity is a ranked node of the context.
type Entity struct {
	Ref         string  `json:"ref"`
	Key         string  `json:"key"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Description string  `json:"description,omitempty"`
	Score       float64 `json:"score"`
	Mentions    int     `json:"mentions"`
}

// Relation is a ranked edge of the context; Source and Target are node
// names.
type Relation struct {
	Ref         string  `json:"ref"`
	SourceKey   string  `json:"source_key"`
	TargetKey   string  `json:"target_key"`
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Label       string  `json:"label"`
	Keywords    string  `json:"keywords,omitempty"`
	Description string  `json:"description,omitempty"`
	Score       float64 `json:"score"`
}

// ChunkHit is a ranked document chunk of the context. Entities and
// Relations list the references of the chosen items it mentions.
type ChunkHit struct {
	Ref        string `json:"ref"`
	DocumentID int    `json:"document_id"`
	// Document is the document's title, when the caller knows it.
	Document  string   `json:"document,omitempty"`
	Index     int      `json:"index"`
	Text      string   `json:"text"`
	Score     float64  `json:"score"`
	Entities  []string `json:"entities,omitempty"`
	Relations []string `json:"relations,omitempty"`
}

// Context is what a question is answered from.
type Context struct {
	Entities  []Entity   `json:"entities"`
	Relations []Relation `json:"relations"`
	Chunks    []ChunkHit `json:"chunks"`
}

// Empty reports whether nothing was retrieved.
func (c Context) Empty() bool {
	return len(c.Entities) == 0 && len(c.Relations) == 0 && len(c.Chunks) == 0
}

// Name-match weights: an exact normalised name beats token overlap, which
// beats a substring; descriptions count least.
const (
	wExact       = 10.0
	wOverlap     = 6.0
	wSubstring   = 3.0
	wDescription = 1.0
	wEdgeLabel   = 4.0
	wEndpoint    = 0.5
	wNeighbour   = 0.5
)

type keyword struct {
	norm   string
	tokens []string
	// latin reports that the keyword has no Han, kana or Hangul: it is
	// matched by whole tokens, not as a substring.
	latin bool
}

func prepare(words []string) []keyword {
	var out []keyword
	seen := map[string]bool{}
	for _, w := range words {
		n := extract.NormalizeName(w)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, keyword{norm: n, tokens: tokens(n), latin: isLatin(n)})
	}
	return out
}

// tokens splits normalised text into words (Han characters one by one are
// not tokens: they are matched as substrings).
func tokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// nameScore is the best match of a keyword on a normalised name.
func nameScore(kw keyword, name string, nameTokens []string) float64 {
	if name == kw.norm {
		return wExact
	}
	if len(kw.tokens) > 0 && len(nameTokens) > 0 {
		hit := 0
		for _, t := range kw.tokens {
			if slices.Contains(nameTokens, t) {
				hit++
			}
		}
		if hit > 0 {
			// Share of the keyword found, scaled down by extra name words.
			return wOverlap * float64(hit) / float64(max(len(kw.tokens), len(nameTokens)))
		}
	}
	if len([]rune(kw.norm)) >= 2 && strings.Contains(name, kw.norm) ||
		len([]rune(name)) >= 2 && strings.Contains(kw.norm, name) {
		return wSubstring
	}
	return 0
}

// textScore counts a keyword found in free text (a description); tt are
// the text's tokens.
func textScore(kw keyword, text string, tt []string) float64 {
	if text == "" {
		return 0
	}
	if len(kw.tokens) > 0 && kw.latin {
		for _, t := range kw.tokens {
			// A token the text does not hold as a substring is not one of
			// its tokens either (the substring test is the cheap one).
			if !strings.Contains(text, t) || !slices.Contains(tt, t) {
				return 0
			}
		}
		return 1
	}
	if strings.Contains(text, kw.norm) {
		return 1
	}
	return 0
}

func isLatin(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			return false
		}
	}
	return true
}

// Retrieve ranks the graph's nodes, edges and chunks for the keywords.
// Nodes score by low-level keywords on their names and descriptions; edges
// by high-level keywords on keywords, label and description plus their
// endpoints' scores, and lend half their score to each endpoint; chunks
// score by the chosen nodes and edges they mention. Ties break by mention
// count, then by name or key, so the result is deterministic. Cost is
// linear in the graph size times the number of keywords.
func Retrieve(g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, high, low []string, opts Options) Context {
	def := DefaultOptions()
	if opts.TopNodes <= 0 {
		opts.TopNodes = def.TopNodes
	}
	if opts.TopEdges <= 0 {
		opts.TopEdges = def.TopEdges
	}
	if opts.TopChunks <= 0 {
		opts.TopChunks = def.TopChunks
	}
	lowKW, highKW := prepare(low), prepare(high)

	idx, direct := nodeLexical(g, lowKW, highKW)
	// Edges: high-level matches plus endpoint scores.
	type scoredEdge struct {
		i     int
		score float64
	}
	var edges []scoredEdge
	for i, s := range edgeLexical(g, idx, direct, highKW) {
		if s > 0 {
			edges = append(edges, scoredEdge{i, s})
		}
	}
	slices.SortFunc(edges, func(a, b scoredEdge) int {
		ea, eb := g.Edges[a.i], g.Edges[b.i]
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(eb.Weight, ea.Weight),
			cmp.Compare(len(eb.Mentions), len(ea.Mentions)), strings.Compare(ea.Source, eb.Source),
			strings.Compare(ea.Label, eb.Label), strings.Compare(ea.Target, eb.Target), cmp.Compare(a.i, b.i))
	})
	if len(edges) > opts.TopEdges {
		edges = edges[:opts.TopEdges]
	}

	// Nodes: direct score plus a share of each chosen incident edge, so a
	// node tied to the matched ones by several relations rises.
	final := slices.Clone(direct)
	for _, se := range edges {
		e := g.Edges[se.i]
		final[idx[e.Source]] += wNeighbour * se.score
		if e.Target != e.Source {
			final[idx[e.Target]] += wNeighbour * se.score
		}
	}
	var nodes []int
	for _, i := range idx {
		if final[i] > 0 {
			nodes = append(nodes, i)
		}
	}
	slices.SortFunc(nodes, func(a, b int) int {
		na, nb := g.Nodes[a], g.Nodes[b]
		return cmp.Or(cmp.Compare(final[b], final[a]), cmp.Compare(len(nb.Mentions), len(na.Mentions)),
			strings.Compare(na.Name, nb.Name), strings.Compare(na.Key, nb.Key))
	})
	if len(nodes) > opts.TopNodes {
		nodes = nodes[:opts.TopNodes]
	}

	var out Context
	refOf := map[string]string{}
	for r, i := range nodes {
		n := g.Nodes[i]
		ref := fmt.Sprintf("E%d", r+1)
		refOf[n.Key] = ref
		out.Entities = append(out.Entities, Entity{Ref: ref, Key: n.Key, Name: n.Name, Type: n.Type,
			Description: n.Description, Score: round(final[i]), Mentions: len(n.Mentions)})
	}
	for r, se := range edges {
		e := g.Edges[se.i]
		out.Relations = append(out.Relations, Relation{Ref: fmt.Sprintf("R%d", r+1), SourceKey: e.Source, TargetKey: e.Target,
			Source: g.Nodes[idx[e.Source]].Name, Target: g.Nodes[idx[e.Target]].Name, Label: e.Label,
			Keywords: e.Keywords, Description: e.Description, Score: round(se.score)})
	}

	// Chunks: each chosen node or edge adds its score once per chunk that
	// mentions it.
	type acc struct {
		score     float64
		ents, rel []string
	}
	byChunk := map[extract.ChunkRef]*acc{}
	get := func(m extract.Mention) *acc {
		ref := extract.ChunkRef{DocumentID: m.DocumentID, Index: m.ChunkIndex}
		if _, ok := chunks[ref]; !ok {
			return nil
		}
		a := byChunk[ref]
		if a == nil {
			a = &acc{}
			byChunk[ref] = a
		}
		return a
	}
	for _, ent := range out.Entities {
		for _, m := range g.Nodes[idx[ent.Key]].Mentions {
			if a := get(m); a != nil && !slices.Contains(a.ents, ent.Ref) {
				a.ents = append(a.ents, ent.Ref)
				a.score += ent.Score
			}
		}
	}
	for r, se := range edges {
		ref := out.Relations[r].Ref
		for _, m := range g.Edges[se.i].Mentions {
			if a := get(m); a != nil && !slices.Contains(a.rel, ref) {
				a.rel = append(a.rel, ref)
				a.score += se.score
			}
		}
	}
	refs := make([]extract.ChunkRef, 0, len(byChunk))
	for ref := range byChunk {
		refs = append(refs, ref)
	}
	slices.SortFunc(refs, func(a, b extract.ChunkRef) int {
		return cmp.Or(cmp.Compare(byChunk[b].score, byChunk[a].score), cmp.Compare(len(byChunk[b].ents), len(byChunk[a].ents)),
			cmp.Compare(a.DocumentID, b.DocumentID), cmp.Compare(a.Index, b.Index))
	})
	if len(refs) > opts.TopChunks {
		refs = refs[:opts.TopChunks]
	}
	for r, ref := range refs {
		a, ch := byChunk[ref], chunks[ref]
		slices.SortFunc(a.ents, compareRefs)
		slices.SortFunc(a.rel, compareRefs)
		out.Chunks = append(out.Chunks, ChunkHit{Ref: fmt.Sprintf("C%d", r+1), DocumentID: ref.DocumentID, Index: ref.Index,
			Text: ch.Text, Score: round(a.score), Entities: a.ents, Relations: a.rel})
	}
	return out
}

// nodeLexical scores every node by the keywords on its name and
// description; idx maps a key to its first node.
func nodeLexical(g extract.Graph, lowKW, highKW []keyword) (map[string]int, []float64) {
	idx := make(map[string]int, len(g.Nodes))
	direct := make([]float64, len(g.Nodes))
	for i, n := range g.Nodes {
		if _, dup := idx[n.Key]; dup {
			continue
		}
		idx[n.Key] = i
		name := extract.NormalizeName(n.Name)
		nt := tokens(name)
		desc := strings.ToLower(n.Description)
		dt := tokens(desc)
		for _, kw := range lowKW {
			s := max(nameScore(kw, name, nt), nameScore(kw, n.Key, nt))
			direct[i] += s + wDescription*textScore(kw, desc, dt)
		}
		for _, kw := range highKW {
			direct[i] += 0.5 * wDescription * textScore(kw, desc, dt)
		}
	}
	return idx, direct
}

// edgeLexical scores every edge by the high-level keywords on its label,
// keywords and description plus its endpoints' scores; an edge whose
// endpoint is missing scores -1.
func edgeLexical(g extract.Graph, idx map[string]int, direct []float64, highKW []keyword) []float64 {
	out := make([]float64, len(g.Edges))
	labelScore := map[string]float64{}
	for i, e := range g.Edges {
		si, sok := idx[e.Source]
		ti, tok := idx[e.Target]
		if !sok || !tok {
			out[i] = -1
			continue
		}
		s := 0.0
		if len(highKW) > 0 {
			// Labels repeat across edges: score each distinct one once.
			lk := e.Label + "\x1f" + e.Keywords
			ls, ok := labelScore[lk]
			if !ok {
				label := extract.NormalizeName(e.Label + " " + e.Keywords)
				lt := tokens(label)
				for _, kw := range highKW {
					if m := nameScore(kw, label, lt); m > 0 {
						ls += wEdgeLabel * m / wExact * 2
					}
				}
				labelScore[lk] = ls
			}
			s += ls
			if e.Description != "" {
				desc := strings.ToLower(e.Description)
				dt := tokens(desc)
				for _, kw := range highKW {
					s += wDescription * textScore(kw, desc, dt)
				}
			}
		}
		out[i] = s + wEndpoint*(direct[si]+direct[ti])
	}
	return out
}

// compareRefs orders "E2" before "E10".
func compareRefs(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

func round(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }
