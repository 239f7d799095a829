package uselite

import "sync"

// The network's products all go through one kernel: C += A·B with A a
// row-major matrix of token rows and B packed into panels of panelWidth
// columns, each panel's rows contiguous (element (k, j) of panel p at
// p·K·panelWidth + k·panelWidth + j). The kernel computes a block of
// blockRows rows by one panel, so every packed weight is loaded once per
// blockRows tokens and every token value once per panel; on amd64 with
// AVX2 and FMA it is the assembly in gemm_amd64.s, elsewhere kern6x16Go.

const (
	panelWidth = 16
	blockRows  = 6
)

// packed is a K×N matrix in panels; N is rounded up to panelWidth with
// zero columns. A weight matrix keeps its int16 values (q, in the same
// panel order) with one scale per column (scale, padded with zeros):
// gemm widens one panel at a time, float32(q)·scale, the values the
// float32 weights had, so the weights take half the memory and no copy
// of them as float32 is ever held whole.
type packed struct {
	k, n  int // n is the logical column count
	data  []float32
	q     []int16
	scale []float32
}

func (p *packed) panels() int { return (p.n + panelWidth - 1) / panelWidth }

// pack16 packs the k×n int16 matrix src (row-major) with its column
// scales into dst, in panels as pack does.
func pack16(dst *packed, src []int16, scale []float32, k, n int) {
	np := (n + panelWidth - 1) / panelWidth
	dst.k, dst.n = k, n
	dst.q = make([]int16, np*k*panelWidth)
	dst.scale = make([]float32, np*panelWidth)
	copy(dst.scale, scale[:n])
	for p := 0; p < np; p++ {
		panel := dst.q[p*k*panelWidth : (p+1)*k*panelWidth]
		j0 := p * panelWidth
		w := min(panelWidth, n-j0)
		for i := 0; i < k; i++ {
			copy(panel[i*panelWidth:i*panelWidth+w], src[i*n+j0:i*n+j0+w])
		}
	}
}

// panelPool holds the buffers gemm widens an int16 panel into.
var panelPool = sync.Pool{New: func() any { return new([]float32) }}

// roundRows rounds a row count up to whole kernel blocks.
func roundRows(r int) int { return (r + blockRows - 1) / blockRows * blockRows }

// pack packs the k×n matrix whose element (i, j) is src[i*ld+j], or
// src[j*ld+i] when transposed, into dst (reusing its storage).
func pack(dst *packed, src []float32, k, n, ld int, transposed bool) {
	np := (n + panelWidth - 1) / panelWidth
	size := np * k * panelWidth
	if cap(dst.data) < size {
		dst.data = make([]float32, size)
	}
	dst.k, dst.n, dst.data = k, n, dst.data[:size]
	for p := 0; p < np; p++ {
		panel := dst.data[p*k*panelWidth : (p+1)*k*panelWidth]
		j0 := p * panelWidth
		w := min(panelWidth, n-j0)
		for i := 0; i < k; i++ {
			row := panel[i*panelWidth : (i+1)*panelWidth]
			if transposed {
				for j := 0; j < w; j++ {
					row[j] = src[(j0+j)*ld+i]
				}
			} else {
				copy(row[:w], src[i*ld+j0:i*ld+j0+w])
			}
			clear(row[w:])
		}
	}
}

// gemm adds A·B to C for rows [0, rows) rounded up to whole blocks: A's
// and C's rows are lda and ldc floats apart, and both must hold the
// rounded-up rows (the extra rows are computed and ignored). C receives
// B's columns rounded up to whole panels.
func gemm(c []float32, ldc int, a []float32, lda int, rows int, b *packed) {
	if rows <= 0 {
		return
	}
	rr := roundRows(rows)
	np := b.panels()
	kw := b.k * panelWidth
	if len(a) < (rr-1)*lda+b.k || len(c) < (rr-1)*ldc+np*panelWidth || max(len(b.data), len(b.q)) < np*kw || b.k == 0 {
		panic("uselite: gemm operands too small")
	}
	var buf *[]float32
	if b.q != nil {
		buf = panelPool.Get().(*[]float32)
		if cap(*buf) < kw {
			*buf = make([]float32, kw)
		}
		defer panelPool.Put(buf)
	}
	for p := 0; p < np; p++ {
		var bp []float32
		if b.q != nil {
			bp = (*buf)[:kw]
			widen(bp, b.q[p*kw:(p+1)*kw], b.scale[p*panelWidth:(p+1)*panelWidth])
		} else {
			bp = b.data[p*kw : (p+1)*kw]
		}
		for r := 0; r < rr; r += blockRows {
			kern(a[r*lda:], lda, bp, b.k, c[r*ldc+p*panelWidth:], ldc)
		}
	}
}

// widenGo sets dst[i·16+j] = float32(q[i·16+j])·scale[j].
func widenGo(dst []float32, q []int16, scale []float32) {
	sc := (*[panelWidth]float32)(scale)
	for i := 0; i+panelWidth <= len(q); i += panelWidth {
		d, s := (*[panelWidth]float32)(dst[i:]), (*[panelWidth]int16)(q[i:])
		for j := range d {
			d[j] = float32(s[j]) * sc[j]
		}
	}
}

// kern6x16Go is the portable kernel: c[r*ldc+j] += Σ_i a[r*lda+i]·b[i*16+j]
// for r < 6, j < 16, i < k.
func kern6x16Go(a []float32, lda int, b []float32, k int, c []float32, ldc int) {
	var acc [blockRows][panelWidth]float32
	for r := range acc {
		copy(acc[r][:], c[r*ldc:r*ldc+panelWidth])
	}
	for i := 0; i < k; i++ {
		br := (*[panelWidth]float32)(b[i*panelWidth : (i+1)*panelWidth])
		for r := range acc {
			x := a[r*lda+i]
			ar := &acc[r]
			for j := range ar {
				ar[j] += x * br[j]
			}
		}
	}
	for r := range acc {
		copy(c[r*ldc:r*ldc+panelWidth], acc[r][:])
	}
}
