package uselite

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
)

//go:embed model/weights.bin
var weightsBin []byte

//go:embed model/vocab.txt
var vocabTxt []byte

// Network sizes.
const (
	embedWidth = 256 // token embeddings, layer 0's attention
	modelWidth = 512 // the residual stream from layer 0's output on
	ffnWidth   = 1536
	heads      = 4
	vocabSize  = 8000
	embedRows  = 8002
)

// attention is one layer's pre-LayerNorm self-attention block. The query
// scale is folded into the query third of qkv (weights and bias).
type attention struct {
	normScale, normBias []float32
	qkv                 packed // in×3in
	qkvBias             []float32
	out                 packed // in×modelWidth
	outBias             []float32
}

// ffn is one layer's pre-LayerNorm feed-forward block.
type ffn struct {
	normScale, normBias []float32
	in                  packed // modelWidth×ffnWidth
	inBias              []float32
	out                 packed // ffnWidth×modelWidth
	outBias             []float32
}

// model is the loaded network and vocabulary; it is read-only once built.
type model struct {
	tok *tokenizer

	// embeddings is embedRows×embedWidth, as float32 (data) or int16
	// values with a scale per column (q, scales); see embedding.
	embeddings tensor
	timing     []float32 // MaxTokens×embedWidth: sin | cos of position·frequency
	normEps    float32

	residual     packed // layer 0 projects its 256-wide input to the 512-wide stream
	residualBias []float32
	attn         [2]attention
	ffn          [2]ffn

	pool     packed // the tanh layer on the mean-pooled stream
	poolBias []float32
	l2Eps    float32

	empty []float32 // the vector of a text with no tokens
}

// tensorSet is weights.bin decoded: every tensor with its shape, as
// float32 (data) or, an int16 matrix, as its values and column scales.
type tensorSet map[string]tensor

type tensor struct {
	shape  []int
	data   []float32
	q      []int16
	scales []float32
}

func (ts tensorSet) get(name string, shape ...int) ([]float32, error) {
	t, ok := ts[name]
	if !ok {
		return nil, fmt.Errorf("no tensor %s", name)
	}
	if fmt.Sprint(t.shape) != fmt.Sprint(shape) {
		return nil, fmt.Errorf("tensor %s has shape %v, want %v", name, t.shape, shape)
	}
	if t.q != nil {
		return nil, fmt.Errorf("tensor %s is an int16 matrix (packMatrix reads it)", name)
	}
	return t.data, nil
}

// packMatrix packs the k×n matrix name into dst: an int16 one as it is
// (its first scaled columns' scales times s), a float32 one widened
// (those columns' values times s).
func (ts tensorSet) packMatrix(dst *packed, name string, k, n, scaled int, s float32) error {
	t, ok := ts[name]
	if !ok {
		return fmt.Errorf("no tensor %s", name)
	}
	if len(t.shape) != 2 || t.shape[0] != k || t.shape[1] != n {
		return fmt.Errorf("tensor %s has shape %v, want [%d %d]", name, t.shape, k, n)
	}
	if t.q == nil {
		data := slices.Clone(t.data)
		for i := range k {
			for j := range scaled {
				data[i*n+j] *= s
			}
		}
		pack(dst, data, k, n, n, false)
		return nil
	}
	scales := slices.Clone(t.scales)
	for j := range scaled {
		scales[j] *= s
	}
	pack16(dst, t.q, scales, k, n)
	return nil
}

func (ts tensorSet) scalar(name string) (float32, error) {
	v, err := ts.get(name)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// decodeTensors parses weights.bin (format in internal/gen).
func decodeTensors(b []byte) (tensorSet, error) {
	if !bytes.HasPrefix(b, []byte("USELITE1")) || len(b) < 12 {
		return nil, errors.New("not a weights file")
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	b = b[12:]
	ts := tensorSet{}
	for range n {
		if len(b) < 1 || len(b) < 1+int(b[0])+2 {
			return nil, errors.New("truncated weights file")
		}
		name := string(b[1 : 1+b[0]])
		b = b[1+b[0]:]
		typ, rank := b[0], int(b[1])
		b = b[2:]
		if len(b) < 4*rank {
			return nil, errors.New("truncated weights file")
		}
		shape := make([]int, rank)
		count := 1
		for i := range shape {
			shape[i] = int(binary.LittleEndian.Uint32(b[4*i:]))
			count *= shape[i]
		}
		b = b[4*rank:]
		t := tensor{shape: shape}
		switch typ {
		case 1:
			if len(b) < 4*count {
				return nil, errors.New("truncated weights file")
			}
			t.data = make([]float32, count)
			for i := range t.data {
				t.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
			b = b[4*count:]
		case 3: // int16 with a float32 scale per column
			if rank != 2 || len(b) < 4*shape[1]+2*count {
				return nil, fmt.Errorf("tensor %s: bad int16 matrix", name)
			}
			cols := shape[1]
			t.scales = make([]float32, cols)
			for j := range t.scales {
				t.scales[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
			}
			b = b[4*cols:]
			t.q = make([]int16, count)
			for i := range t.q {
				t.q[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
			}
			b = b[2*count:]
		default:
			return nil, fmt.Errorf("tensor %s: unknown element type %d", name, typ)
		}
		ts[name] = t
	}
	if len(b) != 0 {
		return nil, errors.New("trailing bytes in weights file")
	}
	return ts, nil
}

// embedding writes token id's embedding into x (embedWidth values), as
// float32 values widened the way the network reads them.
func (m *model) embedding(x []float32, id int) {
	e := &m.embeddings
	if e.q == nil {
		copy(x, e.data[id*embedWidth:(id+1)*embedWidth])
		return
	}
	q := e.q[id*embedWidth : (id+1)*embedWidth]
	for j := range x[:embedWidth] {
		x[j] = float32(q[j]) * e.scales[j]
	}
}

// loadModel builds the model from weights.bin and a tokenizer.
func loadModel(weights []byte, tok *tokenizer) (*model, error) {
	ts, err := decodeTensors(weights)
	if err != nil {
		return nil, err
	}
	return buildModel(ts, tok)
}

// buildModel lays the decoded tensors out for the network.
func buildModel(ts tensorSet, tok *tokenizer) (*model, error) {
	m := &model{tok: tok}
	var errs []error
	get := func(name string, shape ...int) []float32 {
		v, err := ts.get(name, shape...)
		errs = append(errs, err)
		return v
	}
	scalar := func(name string) float32 {
		v, err := ts.scalar(name)
		errs = append(errs, err)
		return v
	}
	mat := func(dst *packed, name string, k, n int) {
		errs = append(errs, ts.packMatrix(dst, name, k, n, 0, 1))
	}
	if t, ok := ts["embeddings"]; !ok || fmt.Sprint(t.shape) != fmt.Sprint([]int{embedRows, embedWidth}) {
		errs = append(errs, fmt.Errorf("no %d×%d embeddings tensor", embedRows, embedWidth))
	} else {
		m.embeddings = t
	}
	inv := get("timing.inv", MaxTokens)
	m.normEps = scalar("norm.eps")
	mat(&m.residual, "l0.residual.w", embedWidth, modelWidth)
	m.residualBias = get("l0.residual.b", modelWidth)
	for l := range 2 {
		p := fmt.Sprintf("l%d.", l)
		in := embedWidth
		if l == 1 {
			in = modelWidth
		}
		a := &m.attn[l]
		a.normScale = get(p+"attn.norm.scale", in)
		a.normBias = get(p+"attn.norm.bias", in)
		a.qkvBias = get(p+"attn.qkv.b", 3*in)
		qs := scalar(p + "attn.qscale")
		// (x·Wq + bq)·s = x·(Wq·s) + bq·s: the query columns take s.
		errs = append(errs, ts.packMatrix(&a.qkv, p+"attn.qkv.w", in, 3*in, in, qs))
		if a.qkvBias != nil {
			for j := range in {
				a.qkvBias[j] *= qs
			}
		}
		mat(&a.out, p+"attn.out.w", in, modelWidth)
		a.outBias = get(p+"attn.out.b", modelWidth)
		f := &m.ffn[l]
		f.normScale = get(p+"ffn.norm.scale", modelWidth)
		f.normBias = get(p+"ffn.norm.bias", modelWidth)
		mat(&f.in, p+"ffn.in.w", modelWidth, ffnWidth)
		f.inBias = get(p+"ffn.in.b", ffnWidth)
		mat(&f.out, p+"ffn.out.w", ffnWidth, modelWidth)
		f.outBias = get(p+"ffn.out.b", modelWidth)
	}
	mat(&m.pool, "pool.w", modelWidth, modelWidth)
	m.poolBias = get("pool.b", modelWidth)
	m.l2Eps = scalar("l2.eps")
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(tok.pieces) != vocabSize {
		return nil, fmt.Errorf("vocabulary has %d pieces, want %d", len(tok.pieces), vocabSize)
	}

	// The timing signal as the graph computes it: float32 position times
	// float32 frequency, sine and cosine rounded to float32.
	half := embedWidth / 2
	m.timing = make([]float32, MaxTokens*embedWidth)
	for pos := range MaxTokens {
		row := m.timing[pos*embedWidth:]
		for j := range half {
			x := float64(float32(pos) * inv[j])
			row[j] = float32(math.Sin(x))
			row[half+j] = float32(math.Cos(x))
		}
	}

	// No tokens: the mean of nothing is zero, so the vector is the
	// normalised tanh of the pooling layer's bias.
	m.empty = make([]float32, Dimensions)
	for j := range m.empty {
		m.empty[j] = float32(math.Tanh(float64(m.poolBias[j])))
	}
	m.l2Normalize(m.empty)
	return m, nil
}

// l2Normalize scales v to unit length as the graph does: v·rsqrt(max(Σv², eps)).
func (m *model) l2Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	s = max(s, float64(m.l2Eps))
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// utf16Len is the length of s in UTF-16 code units (JavaScript's length).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// parseVocab reads vocab.txt: "piece<TAB>score" lines in id order.
func parseVocab(b []byte) ([]piece, error) {
	var out []piece
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			return nil, errors.New("vocab: last line not terminated")
		}
		b = rest
		p, s, ok := bytes.Cut(line, []byte("\t"))
		if !ok || len(p) == 0 {
			return nil, fmt.Errorf("vocab line %d: %q", len(out)+1, line)
		}
		score, err := strconv.ParseFloat(string(s), 64)
		if err != nil {
			return nil, fmt.Errorf("vocab line %d: %w", len(out)+1, err)
		}
		out = append(out, piece{text: string(p), score: score, units: utf16Len(string(p))})
	}
	return out, nil
}
