package query

import (
	"math"

	"github.com/kgstudio/kgstudio/extract/embed"
)

// BM25 is an Okapi BM25 index over a fixed list of texts (k1 1.2, b
// 0.75), on the same terms as the offline embedder (embed.Terms). It is
// the lexical half of chunk ranking and the baseline of the evaluations.
// Each term keeps its postings (the texts holding it, with the count), so
// a query touches only the texts that share a term with it.
type BM25 struct {
	postings *termTable[posting]
	length   []int
	avg      float64
}

type posting struct {
	doc int32
	tf  int32
}

// NewBM25 indexes texts.
func NewBM25(texts []string) *BM25 {
	b := &BM25{postings: newTermTable[posting](), length: make([]int, len(texts))}
	total := 0
	for i, t := range texts {
		terms := embed.Terms(t)
		m := map[string]int32{}
		for _, w := range terms {
			m[w]++
		}
		for w, n := range m {
			b.postings.m[w] = append(b.postings.m[w], posting{int32(i), n})
		}
		b.length[i] = len(terms)
		total += len(terms)
	}
	if len(texts) > 0 {
		b.avg = float64(total) / float64(len(texts))
	}
	return b
}

// Scores returns the BM25 score of every text for the query, in the
// order the texts were given.
func (b *BM25) Scores(query string) []float64 {
	const k1, bb = 1.2, 0.75
	out := make([]float64, len(b.length))
	seen := map[string]bool{}
	for _, w := range embed.Terms(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		ps := b.postings.get(w)
		if len(ps) == 0 {
			continue
		}
		idf := b.IDF(w)
		for _, p := range ps {
			f := float64(p.tf)
			norm := 1 - bb + bb*float64(b.length[p.doc])/max(b.avg, 1)
			out[p.doc] += idf * f * (k1 + 1) / (f + k1*norm)
		}
	}
	return out
}

// IDF is a term's inverse document frequency as Scores weighs it; a term
// no text holds gets the highest.
func (b *BM25) IDF(term string) float64 {
	n, df := float64(len(b.length)), float64(b.postings.count(term))
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}
