package eval

import (
	"math/rand/v2"
	"testing"
)

// A planted difference (b finds the evidence of 30 more questions of 200)
// is significant with an interval around it; two systems that differ only
// by noise (each question's score flipped at random either way) are not;
// questions a side did not score are left out; the same inputs give the
// same interval.
func TestPairedBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 200
	a, planted, noise := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range a {
		if rng.IntN(2) == 0 {
			a[i] = 1
		}
		planted[i], noise[i] = a[i], a[i]
	}
	// Planted: 30 questions a missed, b finds.
	added := 0
	for i := range planted {
		if a[i] == 0 && added < 30 {
			planted[i], added = 1, added+1
		}
	}
	p := PairedBootstrap(a, planted, 2000, 1)
	if !p.Significant || p.Mean != 0.15 || p.Low <= 0 || p.Low > 0.15 || p.High < 0.15 || p.N != n {
		t.Errorf("planted difference: %+v", p)
	}
	// Null: 20 questions change each way.
	up, down := 0, 0
	for i := range noise {
		switch {
		case a[i] == 0 && up < 20:
			noise[i], up = 1, up+1
		case a[i] == 1 && down < 20:
			noise[i], down = 0, down+1
		}
	}
	if p := PairedBootstrap(a, noise, 2000, 1); p.Significant || p.Mean != 0 || p.Low >= 0 || p.High <= 0 {
		t.Errorf("noise only: %+v", p)
	}
	if again := PairedBootstrap(a, planted, 2000, 1); again != p {
		t.Errorf("not repeatable: %+v", again)
	}
	if p := PairedBootstrap([]float64{-1, 1, 0}, []float64{1, -1, 1}, 100, 1); p.N != 1 || p.Mean != 1 {
		t.Errorf("unscored questions: %+v", p)
	}
	if p := PairedBootstrap(nil, nil, 100, 1); p.N != 0 || p.Significant {
		t.Errorf("no questions: %+v", p)
	}
}
