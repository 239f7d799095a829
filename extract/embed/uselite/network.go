package uselite

import (
	"math"
)

// The network, for a batch of windows (token sequences of at most
// MaxTokens) whose rows are stacked into one matrix so that every weight
// matrix is streamed once per batch: x0 = 2·E[id] + timing; layer 0:
// x = x0·Wr + br + Attn(LN(x0)), x += FFN(LN(x)); layer 1: x +=
// Attn(LN(x)), x += FFN(LN(x)); the mean of x over the window's tokens
// goes through tanh(·W + b) and is L2-normalised. Attention is computed
// per window and head. The last FFN projection is linear, so it is
// applied to the mean of its inputs instead of to every token.

// maxBatchRows bounds the rows of one batch: windows are packed into a
// batch while their tokens fit (a longer window still gets a batch of
// its own).
const maxBatchRows = 192

// window is one token sequence to encode and where its vector goes.
type window struct {
	ids []int32
	out []float32 // Dimensions
}

// workspace holds one goroutine's activations for batches of up to rows
// tokens.
type workspace struct {
	rows int
	x0   []float32 // rows×embedWidth
	x    []float32 // rows×modelWidth, the residual stream
	h    []float32 // rows×modelWidth, LayerNorm outputs
	qkv  []float32 // rows×3·modelWidth
	att  []float32 // rows×modelWidth, attention outputs
	f    []float32 // rows×ffnWidth
	s    []float32 // scores of one head, (MaxTokens+blockRows)×MaxTokens
	ctx  []float32 // (MaxTokens+blockRows)×modelWidth
	kp   packed
	vp   packed
	mf   []float32 // per window: mean of the last FFN's hidden layer
	y    []float32 // per window: mean of the stream, then the output
	z    []float32
}

func newWorkspace(maxRows int) *workspace {
	r := roundRows(maxRows) + blockRows // gemm reads whole blocks past a window's end
	return &workspace{
		rows: maxRows,
		x0:   make([]float32, r*embedWidth),
		x:    make([]float32, r*modelWidth),
		h:    make([]float32, r*modelWidth),
		qkv:  make([]float32, r*3*modelWidth),
		att:  make([]float32, r*modelWidth),
		f:    make([]float32, r*ffnWidth),
		s:    make([]float32, (MaxTokens+blockRows)*MaxTokens),
		ctx:  make([]float32, (MaxTokens+blockRows)*modelWidth),
		mf:   make([]float32, r*ffnWidth),
		y:    make([]float32, r*modelWidth),
		z:    make([]float32, r*modelWidth),
	}
}

// fillRows sets rows [0, n) of a (row stride ld) to v.
func fillRows(a []float32, ld, n int, v []float32) {
	for r := range n {
		copy(a[r*ld:r*ld+len(v)], v)
	}
}

// addRows adds v to rows [0, n) of a.
func addRows(a []float32, ld, n int, v []float32) {
	for r := range n {
		row := a[r*ld : r*ld+len(v)]
		for j, x := range v {
			row[j] += x
		}
	}
}

// layerNorm writes the LayerNorm of rows [0, n) of x (width w) to out.
func (m *model) layerNorm(out, x []float32, w, n int, scale, bias []float32) {
	for r := range n {
		row := x[r*w : (r+1)*w]
		o := out[r*w : (r+1)*w]
		var sum float64
		for _, v := range row {
			sum += float64(v)
		}
		mean := float32(sum / float64(w))
		var sq float64
		for _, v := range row {
			d := float64(v - mean)
			sq += d * d
		}
		inv := float32(1 / math.Sqrt(float64(float32(sq/float64(w))+m.normEps)))
		for j, v := range row {
			o[j] = scale[j]*inv*(v-mean) + bias[j]
		}
	}
}

func relu(v []float32) {
	for i, x := range v {
		if x < 0 {
			v[i] = 0
		}
	}
}

// softmax turns rows [0, n) of s (stride ld, first n columns) into
// attention weights.
func softmax(s []float32, ld, n int) {
	for r := range n {
		row := s[r*ld : r*ld+n]
		mx := row[0]
		for _, v := range row[1:] {
			mx = max(mx, v)
		}
		var sum float32
		for j, v := range row {
			e := float32(math.Exp(float64(v - mx)))
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}
}

// attend writes the multi-head attention of every window (before the
// output projection) to ws.att, from the queries, keys and values in
// ws.qkv; in is the layer's width.
func (ws *workspace) attend(wins []window, in, rows int) {
	dh := in / heads
	ld := 3 * in
	o := 0
	for _, w := range wins {
		t := len(w.ids)
		rt := roundRows(t)
		clear(ws.ctx[:rt*in])
		for h := range heads {
			q := ws.qkv[o*ld+h*dh:]
			pack(&ws.kp, ws.qkv[o*ld+in+h*dh:], dh, t, ld, true)
			clear(ws.s[:rt*MaxTokens])
			gemm(ws.s, MaxTokens, q, ld, t, &ws.kp)
			softmax(ws.s, MaxTokens, t)
			pack(&ws.vp, ws.qkv[o*ld+2*in+h*dh:], t, dh, ld, false)
			gemm(ws.ctx[h*dh:], in, ws.s, MaxTokens, t, &ws.vp)
		}
		copy(ws.att[o*in:(o+t)*in], ws.ctx[:t*in])
		o += t
	}
	clear(ws.att[o*in : roundRows(rows)*in])
}

// encodeBatch encodes windows whose tokens fit the workspace, writing
// each window's unit vector to its out.
func (m *model) encodeBatch(ws *workspace, wins []window) {
	rows := 0
	for _, w := range wins {
		rows += len(w.ids)
	}
	if rows > ws.rows {
		panic("uselite: batch larger than its workspace")
	}
	rr := roundRows(rows)
	const E, D, F = embedWidth, modelWidth, ffnWidth

	// Input: the embedding added twice (as the graph does) plus timing.
	r := 0
	for _, w := range wins {
		for pos, id := range w.ids {
			t := m.timing[pos*E : (pos+1)*E]
			x := ws.x0[r*E : (r+1)*E]
			m.embedding(x, int(id))
			for j, v := range x {
				x[j] = v + (v + t[j])
			}
			r++
		}
	}
	clear(ws.x0[rows*E : rr*E])

	// Layer 0.
	a := &m.attn[0]
	fillRows(ws.x, D, rr, m.residualBias)
	addRows(ws.x, D, rr, a.outBias)
	gemm(ws.x, D, ws.x0, E, rows, &m.residual)
	m.layerNorm(ws.h, ws.x0, E, rr, a.normScale, a.normBias)
	fillRows(ws.qkv, 3*E, rr, a.qkvBias)
	gemm(ws.qkv, 3*E, ws.h, E, rows, &a.qkv)
	ws.attend(wins, E, rows)
	gemm(ws.x, D, ws.att, E, rows, &a.out)
	m.feedForward(ws, &m.ffn[0], rr, rows, true)

	// Layer 1.
	a = &m.attn[1]
	m.layerNorm(ws.h, ws.x, D, rr, a.normScale, a.normBias)
	fillRows(ws.qkv, 3*D, rr, a.qkvBias)
	gemm(ws.qkv, 3*D, ws.h, D, rows, &a.qkv)
	ws.attend(wins, D, rows)
	addRows(ws.x, D, rr, a.outBias)
	gemm(ws.x, D, ws.att, D, rows, &a.out)
	f := &m.ffn[1]
	m.feedForward(ws, f, rr, rows, false)

	// Mean over each window's tokens of x + relu(·)·W + b, the
	// projection applied to the mean; then tanh(·W + b), L2-normalised.
	nw := len(wins)
	rw := roundRows(nw)
	r = 0
	for i, w := range wins {
		t := len(w.ids)
		meanRows(ws.y[i*D:(i+1)*D], ws.x[r*D:], D, t)
		meanRows(ws.mf[i*F:(i+1)*F], ws.f[r*F:], F, t)
		r += t
	}
	clear(ws.y[nw*D : rw*D])
	clear(ws.mf[nw*F : rw*F])
	addRows(ws.y, D, rw, f.outBias)
	gemm(ws.y, D, ws.mf, F, nw, &f.out)
	fillRows(ws.z, D, rw, m.poolBias)
	gemm(ws.z, D, ws.y, D, nw, &m.pool)
	for i, w := range wins {
		z := ws.z[i*D : (i+1)*D]
		for j, v := range z {
			w.out[j] = float32(math.Tanh(float64(v)))
		}
		m.l2Normalize(w.out)
	}
}

// feedForward computes x += FFN(LN(x)) for rows [0, rr); with project
// false it stops after the hidden layer (left in ws.f) for the caller
// to pool.
func (m *model) feedForward(ws *workspace, f *ffn, rr, rows int, project bool) {
	const D, F = modelWidth, ffnWidth
	m.layerNorm(ws.h, ws.x, D, rr, f.normScale, f.normBias)
	fillRows(ws.f, F, rr, f.inBias)
	gemm(ws.f, F, ws.h, D, rows, &f.in)
	relu(ws.f[:rr*F])
	if project {
		addRows(ws.x, D, rr, f.outBias)
		gemm(ws.x, D, ws.f, F, rows, &f.out)
	}
}

// meanRows writes the mean of n rows of a (width w, stride w) to dst.
func meanRows(dst, a []float32, w, n int) {
	acc := make([]float64, w)
	for r := range n {
		for j, v := range a[r*w : (r+1)*w] {
			acc[j] += float64(v)
		}
	}
	for j := range dst {
		dst[j] = float32(acc[j] / float64(n))
	}
}
