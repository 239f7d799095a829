//go:build !amd64

package uselite

var useAVX2 = false

func kern(a []float32, lda int, b []float32, k int, c []float32, ldc int) {
	kern6x16Go(a, lda, b, k, c, ldc)
}

func widen(dst []float32, q []int16, scale []float32) { widenGo(dst, q, scale) }
