package uselite

import (
	"unsafe"

	"github.com/viterin/vek"
)

// useAVX2 is whether the CPU has AVX2 and FMA (as vek detects them).
var useAVX2 = vek.Info().Acceleration

// kern6x16AVX2 is kern6x16Go in AVX2/FMA assembly; the pointers address
// the first elements, lda and ldc count floats.
//
//go:noescape
func kern6x16AVX2(a *float32, lda int, b *float32, k int, c *float32, ldc int)

func kern(a []float32, lda int, b []float32, k int, c []float32, ldc int) {
	if useAVX2 {
		kern6x16AVX2(unsafe.SliceData(a), lda, unsafe.SliceData(b), k, unsafe.SliceData(c), ldc)
		return
	}
	kern6x16Go(a, lda, b, k, c, ldc)
}
