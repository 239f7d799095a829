package query

import (
	"math"

	"github.com/kgstudio/kgstudio/extract/embed"
)

// BM25 is an Okapi BM25 index over a fixed list of texts (k1 1.2, b
// 0.75), on the same terms as the offline embedder (embed.Terms). It is
// the lexical half of chunk ranking and the baseline of the LoCoMo eval.
type BM25 struct {
	tf     []map[string]int
	length []int
	df     map[string]int
	avg    float64
}

// NewBM25 indexes texts.
func NewBM25(texts []string) *BM25 {
	b := &BM25{tf: make([]map[string]int, len(texts)), length: make([]int, len(texts)), df: map[string]int{}}
	total := 0
	for i, t := range texts {
		terms := embed.Terms(t)
		m := map[string]int{}
		for _, w := range terms {
			m[w]++
		}
		for w := range m {
			b.df[w]++
		}
		b.tf[i], b.length[i] = m, len(terms)
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
	out := make([]float64, len(b.tf))
	n := float64(len(b.tf))
	seen := map[string]bool{}
	for _, w := range embed.Terms(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		df := float64(b.df[w])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, m := range b.tf {
			f := float64(m[w])
			if f == 0 {
				continue
			}
			norm := 1 - bb + bb*float64(b.length[i])/max(b.avg, 1)
			out[i] += idf * f * (k1 + 1) / (f + k1*norm)
		}
	}
	return out
}

// IDF is a term's inverse document frequency as Scores weighs it; a term
// no text holds gets the highest.
func (b *BM25) IDF(term string) float64 {
	n, df := float64(len(b.tf)), float64(b.df[term])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}
