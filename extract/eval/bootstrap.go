package eval

import (
	"math/rand/v2"
	"slices"
)

// Paired is the paired bootstrap of two systems' scores on the same
// questions: the mean difference b−a and its 95% interval (the 2.5th and
// 97.5th percentiles of the mean difference over resamples of the
// questions with replacement). Significant says the interval excludes 0.
type Paired struct {
	N           int     `json:"n"`
	Mean        float64 `json:"mean"`
	Low         float64 `json:"low"`
	High        float64 `json:"high"`
	Significant bool    `json:"significant"`
	Resamples   int     `json:"resamples"`
}

// PairedBootstrap compares b with a question by question: a[i] and b[i]
// are the two scores of question i, and a negative score marks a
// question not scored on that measure (left out). The resamples are drawn
// from a generator seeded with seed, so a comparison is the same every
// time it is made.
func PairedBootstrap(a, b []float64, resamples int, seed uint64) Paired {
	var diffs []float64
	for i := range min(len(a), len(b)) {
		if a[i] < 0 || b[i] < 0 {
			continue
		}
		diffs = append(diffs, b[i]-a[i])
	}
	p := Paired{N: len(diffs), Resamples: resamples}
	if len(diffs) == 0 || resamples <= 0 {
		return p
	}
	p.Mean = mean(diffs)
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	means := make([]float64, resamples)
	for r := range means {
		s := 0.0
		for range diffs {
			s += diffs[rng.IntN(len(diffs))]
		}
		means[r] = s / float64(len(diffs))
	}
	slices.Sort(means)
	p.Low, p.High = means[int(0.025*float64(resamples))], means[min(resamples-1, int(0.975*float64(resamples)))]
	p.Significant = p.Low > 0 || p.High < 0
	return p
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
