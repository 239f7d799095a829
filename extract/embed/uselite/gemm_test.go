package uselite

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

func naiveMul(a []float32, lda, rows int, b []float32, k, n int) []float32 {
	c := make([]float32, rows*n)
	for r := 0; r < rows; r++ {
		for j := 0; j < n; j++ {
			var s float64
			for i := 0; i < k; i++ {
				s += float64(a[r*lda+i]) * float64(b[i*n+j])
			}
			c[r*n+j] = float32(s)
		}
	}
	return c
}

func randSlice(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

// The kernel (assembly where the CPU has it) and the portable kernel agree
// with a float64 product, transposed packing included.
func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ rows, k, n int }{{1, 1, 1}, {5, 7, 20}, {13, 64, 37}, {32, 256, 512}} {
		rr := roundRows(tc.rows)
		a := randSlice(rng, rr*tc.k)
		b := randSlice(rng, tc.k*tc.n)
		want := naiveMul(a, tc.k, tc.rows, b, tc.k, tc.n)
		bt := make([]float32, tc.n*tc.k)
		for i := 0; i < tc.k; i++ {
			for j := 0; j < tc.n; j++ {
				bt[j*tc.k+i] = b[i*tc.n+j]
			}
		}
		var p, pt packed
		pack(&p, b, tc.k, tc.n, tc.n, false)
		pack(&pt, bt, tc.k, tc.n, tc.k, true)
		ldc := p.panels() * panelWidth
		for name, run := range map[string]func(c []float32, bp *packed){
			"kern": func(c []float32, bp *packed) { gemm(c, ldc, a, tc.k, tc.rows, bp) },
			"go": func(c []float32, bp *packed) {
				for q := 0; q < bp.panels(); q++ {
					for r := 0; r < rr; r += blockRows {
						kern6x16Go(a[r*tc.k:], tc.k, bp.data[q*tc.k*panelWidth:], tc.k, c[r*ldc+q*panelWidth:], ldc)
					}
				}
			},
		} {
			for _, bp := range []*packed{&p, &pt} {
				c := make([]float32, rr*ldc)
				run(c, bp)
				for r := 0; r < tc.rows; r++ {
					for j := 0; j < tc.n; j++ {
						if d := math.Abs(float64(c[r*ldc+j] - want[r*tc.n+j])); d > 1e-4 {
							t.Fatalf("%s %v: c[%d][%d] = %v, want %v", name, tc, r, j, c[r*ldc+j], want[r*tc.n+j])
						}
					}
				}
			}
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ rows, k, n int }{{32, 512, 1536}, {128, 512, 1536}, {128, 1536, 512}, {256, 1536, 512}} {
		rr := roundRows(tc.rows)
		a := randSlice(rng, rr*tc.k)
		w := randSlice(rng, tc.k*tc.n)
		var p packed
		pack(&p, w, tc.k, tc.n, tc.n, false)
		c := make([]float32, rr*tc.n)
		b.Run("", func(b *testing.B) {
			for b.Loop() {
				gemm(c, tc.n, a, tc.k, tc.rows, &p)
			}
			b.ReportMetric(float64(2*tc.rows*tc.k*tc.n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// TestWiden: the widening of int16 weight panels (AVX2 where the CPU has
// it) gives float32(value)·scale, bit for bit the portable code's.
func TestWiden(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k = 37
	q := make([]int16, k*panelWidth)
	for i := range q {
		q[i] = int16(rng.IntN(65536) - 32768)
	}
	scale := make([]float32, panelWidth)
	for j := range scale {
		scale[j] = rng.Float32() * 1e-3
	}
	got, want := make([]float32, len(q)), make([]float32, len(q))
	widen(got, q, scale)
	widenGo(want, q, scale)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) || want[i] != float32(q[i])*scale[i%panelWidth] {
			t.Fatalf("value %d: widened %v, portable %v, want %v", i, got[i], want[i], float32(q[i])*scale[i%panelWidth])
		}
	}
}

// TestRelease: giving the embedded weights' pages back leaves their
// bytes as they were (read from the binary again).
func TestRelease(t *testing.T) {
	before := bytes.Clone(weightsBin)
	release(weightsBin)
	if !bytes.Equal(before, weightsBin) {
		t.Fatal("the weights changed after their pages were released")
	}
}
