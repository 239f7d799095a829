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

// widen16AVX2 is widenGo in AVX2 assembly over k rows of 16.
//
//go:noescape
func widen16AVX2(dst *float32, q *int16, scale *float32, k int)

func widen(dst []float32, q []int16, scale []float32) {
	if useAVX2 {
		widen16AVX2(unsafe.SliceData(dst), unsafe.SliceData(q), unsafe.SliceData(scale), len(q)/panelWidth)
		return
	}
	widenGo(dst, q, scale)
}

func kern(a []float32, lda int, b []float32, k int, c []float32, ldc int) {
	if useAVX2 {
		kern6x16AVX2(unsafe.SliceData(a), lda, unsafe.SliceData(b), k, unsafe.SliceData(c), ldc)
		return
	}
	kern6x16Go(a, lda, b, k, c, ldc)
}
