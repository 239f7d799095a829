package query

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// topSorted keeps the same first k as sorting everything, ties included.
func TestTopSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	compare := func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.i, b.i)) }
	for round := range 200 {
		n := rng.IntN(300)
		xs := make([]scored, n)
		for i := range xs {
			xs[i] = scored{i: rng.IntN(50), score: float64(rng.IntN(8))}
		}
		k := rng.IntN(40)
		want := slices.Clone(xs)
		slices.SortFunc(want, compare)
		want = want[:min(k, n)]
		if got := topSorted(slices.Clone(xs), k, compare); !slices.Equal(got, want) {
			t.Fatalf("round %d (n %d, k %d): got %v, want %v", round, n, k, got, want)
		}
	}
}
