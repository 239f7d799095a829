package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"
)

// The binary form of an Index, so a version's index is built once and
// read by every process (see AppendBinary and ReadIndex). Little endian:
//
//	magic "KGIX" | version byte | mode byte | bounded byte | n uint32 | dims uint32
//	mode 'v' (vectors: exact or scanned): pad, n*dims float32
//	mode 's' (postings): pad, dims+1 int32 starts, then the count, pad,
//	         the ids (int32), pad, the values (float32) of the postings
//	mode 'h' (HNSW): the vectors, then entry int32, top int32, m uint32
//	         and per node its layer count (uint8) and per layer its link
//	         count (uint16) and links (int32)
//	mode 'p' (postings stored apart, AppendApart): pad, dims+1 int32
//	         starts; each dimension's postings are a form of their own:
//	         its ids (int32), then its values (float32)
//	modes 'V' and 'H': 'v' and 'h' with the vectors as float16, when
//	         every value is one (vectors read back from their stored,
//	         compact form are: a sentence encoder's index is half the size)
//
// A pad (version 3; version 1 has none) is a byte p < 4 and p zero
// bytes, so the array after it starts at a multiple of 4 bytes from the
// start of the buffer the index is written into: read back into a buffer
// of its own (as a stored index is), the big arrays are used where they
// lie instead of copied (on a little-endian machine).
//
// The values are the bits of what was indexed, so an index read back
// searches exactly as the one built.
const (
	indexMagic    = "KGIX"
	indexVersion  = 3
	modeVectors   = 'v'
	modeSparse    = 's'
	modeHNSW      = 'h'
	modeVectors16 = 'V'
	modeHNSW16    = 'H'
	modeApart     = 'p'
)

// errIndexFormat is a binary index that cannot be read.
var errIndexFormat = errors.New("not an index in kgstudio's binary form")

// AppendApart appends to b the binary form of the index without its
// postings, and returns each dimension's postings in a form of its own
// (nil for a dimension none has): a version's sparse vectors are stored
// so, and a question reads the postings of its own dimensions alone
// (ReadIndex, Missing, Fill). An index of dense vectors has no postings:
// its whole form is appended and dims is nil.
func (ix *Index) AppendApart(b []byte) (out []byte, dims [][]byte) {
	if ix.sparse == nil {
		return ix.AppendBinary(b), nil
	}
	p := ix.sparse
	if p.apart != nil {
		panic("embed: an index read without its postings cannot be written")
	}
	nd := len(p.start) - 1
	b = append(b, indexMagic...)
	b = append(b, indexVersion, modeApart, boolByte(ix.bounded))
	b = binary.LittleEndian.AppendUint32(b, uint32(ix.n))
	b = binary.LittleEndian.AppendUint32(b, uint32(nd))
	b = appendInt32s(appendPad(b), p.start)
	dims = make([][]byte, nd)
	for d := range nd {
		if p.start[d] == p.start[d+1] {
			continue
		}
		ids, vals := p.dim(d)
		form := make([]byte, 0, 8*len(ids))
		dims[d] = appendFloat32s(appendInt32s(form, ids), vals)
	}
	return b, dims
}

// Apart reports whether the index was read without its postings: a
// search then needs those of its query's dimensions filled first.
func (ix *Index) Apart() bool { return ix.sparse != nil && ix.sparse.apart != nil }

// Missing lists the dimensions whose postings a search for q needs and
// an index read apart has not been given yet (Fill).
func (ix *Index) Missing(q []float32) []int {
	if !ix.Apart() {
		return nil
	}
	p := ix.sparse
	a := p.apart
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []int
	for d, x := range q[:min(len(q), len(p.start)-1)] {
		if x != 0 && p.start[d] < p.start[d+1] && !a.loaded[d] {
			out = append(out, d)
		}
	}
	return out
}

// Fill gives an index read apart the postings of dimension d, in the
// form AppendApart returned for it.
func (ix *Index) Fill(d int, form []byte) error {
	if !ix.Apart() {
		return nil
	}
	p := ix.sparse
	if d < 0 || d >= len(p.start)-1 {
		return fmt.Errorf("postings of dimension %d: %w", d, errIndexFormat)
	}
	m := int(p.start[d+1] - p.start[d])
	if len(form) != 8*m {
		return fmt.Errorf("postings of dimension %d: %d bytes for %d: %w", d, len(form), m, errIndexFormat)
	}
	r := reader{b: form}
	ids := r.copyInt32s(r.next(4*m), m)
	vals := r.copyFloat32s(r.next(4*m), m)
	for _, id := range ids {
		if id < 0 || int(id) >= ix.n {
			return fmt.Errorf("postings of dimension %d: %w", d, errIndexFormat)
		}
	}
	a := p.apart
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.loaded[d] {
		a.ids[d], a.vals[d], a.loaded[d] = ids, vals, true
	}
	return nil
}

// AppendBinary appends the index's binary form to b.
func (ix *Index) AppendBinary(b []byte) []byte {
	if ix.Apart() {
		panic("embed: an index read without its postings cannot be written")
	}
	dims := 0
	switch {
	case ix.sparse != nil:
		dims = len(ix.sparse.start) - 1
	case ix.half != nil:
		dims = ix.dims
	case len(ix.vecs) > 0:
		dims = len(ix.vecs[0])
	}
	mode := byte(modeVectors)
	switch {
	case ix.sparse != nil:
		mode = modeSparse
	case ix.graph != nil:
		mode = modeHNSW
	}
	half := mode != modeSparse && (ix.half != nil || halves(ix.vecs))
	if half {
		mode = map[byte]byte{modeVectors: modeVectors16, modeHNSW: modeHNSW16}[mode]
	}
	b = append(b, indexMagic...)
	b = append(b, indexVersion, mode, boolByte(ix.bounded))
	b = binary.LittleEndian.AppendUint32(b, uint32(ix.n))
	b = binary.LittleEndian.AppendUint32(b, uint32(dims))
	if mode == modeSparse {
		p := ix.sparse
		b = appendInt32s(appendPad(b), p.start)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p.ids)))
		b = appendInt32s(appendPad(b), p.ids)
		return appendFloat32s(appendPad(b), p.vals)
	}
	b = appendPad(b)
	// The vectors are most of the form: room for them at once, not by
	// doubling (a 40 MB form allocated some 200 MB on the way).
	width := 4
	if half {
		width = 2
	}
	b = slices.Grow(b, 2*len(ix.half)+width*len(ix.vecs)*dims)
	for _, x := range ix.half {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	for _, v := range ix.vecs {
		if half {
			for _, x := range v {
				b = binary.LittleEndian.AppendUint16(b, toHalf(x))
			}
		} else {
			b = appendFloat32s(b, v)
		}
	}
	if mode == modeHNSW || mode == modeHNSW16 {
		h := ix.graph
		b = binary.LittleEndian.AppendUint32(b, uint32(h.entry))
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(h.top)))
		b = binary.LittleEndian.AppendUint32(b, uint32(h.m))
		for _, layers := range h.links {
			b = append(b, byte(len(layers)))
			for _, l := range layers {
				b = binary.LittleEndian.AppendUint16(b, uint16(len(l)))
				b = appendInt32s(b, l)
			}
		}
	}
	return b
}

// ReadIndex reads an index from its binary form (AppendBinary) and
// returns it with the rest of b. The index may keep slices of b, which
// must not change after.
func ReadIndex(b []byte) (*Index, []byte, error) {
	r := reader{b: b}
	if string(r.next(4)) != indexMagic {
		return nil, nil, errIndexFormat
	}
	switch r.byte() {
	case 1:
	case indexVersion:
		r.padded = true
	default:
		return nil, nil, errIndexFormat
	}
	mode, bounded := r.byte(), r.byte() == 1
	n, dims := int(r.uint32()), int(r.uint32())
	if r.err != nil || dims > 1<<20 {
		return nil, nil, errIndexFormat
	}
	ix := &Index{n: n, bounded: bounded}
	switch mode {
	case modeSparse:
		p := &postings{n: n, start: r.int32s(dims + 1)}
		total := int(r.uint32())
		p.ids, p.vals = r.int32s(total), r.float32s(total)
		if r.err == nil && (len(p.start) != dims+1 || p.start[0] != 0 || p.start[dims] != int32(total)) {
			r.err = errIndexFormat
		}
		for d := range dims {
			if r.err == nil && p.start[d] > p.start[d+1] {
				r.err = errIndexFormat
			}
		}
		for _, id := range p.ids {
			if id < 0 || int(id) >= n {
				r.err = errIndexFormat
				break
			}
		}
		p.acc.New = func() any { a := make([]float32, p.n); return &a }
		ix.sparse = p
	case modeApart:
		if !r.padded {
			return nil, nil, errIndexFormat
		}
		p := &postings{n: n, start: r.int32s(dims + 1)}
		if r.err == nil && (len(p.start) != dims+1 || p.start[0] != 0) {
			r.err = errIndexFormat
		}
		for d := range dims {
			if r.err == nil && p.start[d] > p.start[d+1] {
				r.err = errIndexFormat
			}
		}
		p.apart = &apartPostings{loaded: make([]bool, dims), ids: make([][]int32, dims), vals: make([][]float32, dims)}
		p.acc.New = func() any { a := make([]float32, p.n); return &a }
		ix.sparse = p
	case modeVectors16:
		// Scanned as stored (Index.half).
		ix.half, ix.dims = r.uint16s(n*dims), dims
	case modeVectors, modeHNSW, modeHNSW16:
		var flat []float32
		if mode == modeHNSW16 {
			r.pad()
			flat = r.halves(n * dims)
		} else {
			flat = r.float32s(n * dims)
		}
		if r.err != nil {
			break
		}
		ix.vecs = make([][]float32, n)
		for i := range ix.vecs {
			ix.vecs[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
		}
		if (mode == modeHNSW || mode == modeHNSW16) && r.err == nil {
			ix.graph = readHNSW(&r, ix.vecs)
		}
	default:
		return nil, nil, errIndexFormat
	}
	if r.err != nil {
		return nil, nil, fmt.Errorf("read index: %w", r.err)
	}
	return ix, r.b, nil
}

// readHNSW reads a graph's links for searching (not for inserts: the
// distances of its lists are not kept).
func readHNSW(r *reader, vecs [][]float32) *hnsw {
	n := len(vecs)
	h := &hnsw{vecs: vecs, links: make([][][]int32, n), locks: make([]sync.Mutex, n)}
	h.entry, h.top, h.m = int32(r.uint32()), int(int32(r.uint32())), int(r.uint32())
	for i := range h.links {
		layers := int(r.byte())
		h.links[i] = make([][]int32, layers)
		for l := range layers {
			h.links[i][l] = r.linkList(int(r.uint16()))
			for _, id := range h.links[i][l] {
				if id < 0 || int(id) >= n {
					r.err = errIndexFormat
				}
			}
		}
		if r.err != nil {
			return nil
		}
	}
	if h.top >= 0 && (h.entry < 0 || int(h.entry) >= n || len(h.links[h.entry]) <= h.top) {
		r.err = errIndexFormat
	}
	h.seen.New = func() any { return &visited{mark: make([]uint32, n)} }
	return h
}

// halves reports whether every value of vecs is a float16's, bit for
// bit once widened.
func halves(vecs [][]float32) bool {
	for _, v := range vecs {
		for _, x := range v {
			if math.Float32bits(fromHalf(toHalf(x))) != math.Float32bits(x) {
				return false
			}
		}
	}
	return len(vecs) > 0
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendInt32s(b []byte, v []int32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func appendFloat32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// appendPad appends a pad: a byte p and p zeros, so that what follows
// starts at a multiple of 4 bytes into b.
func appendPad(b []byte) []byte {
	p := (4 - (len(b)+1)%4) % 4
	b = append(b, byte(p))
	return append(b, make([]byte, p)...)
}

// littleEndian reports whether the machine's words are laid out as the
// binary form's are: its arrays can then be used in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// reader reads the binary form, remembering the first error (a short
// buffer). Its big arrays follow a pad when padded.
type reader struct {
	b      []byte
	err    error
	padded bool
}

// pad skips a pad before an array.
func (r *reader) pad() {
	if !r.padded {
		return
	}
	if p := r.byte(); p > 3 {
		r.err = errIndexFormat
	} else {
		r.next(int(p))
	}
}

// words returns the next n words (of 2 or 4 bytes) after a pad, and
// where they can be used in place, that view of them (nil when they must
// be copied).
func words[T uint16 | int32 | float32](r *reader, n int) ([]byte, []T) {
	r.pad()
	size := int(unsafe.Sizeof(T(0)))
	b := r.next(size * n)
	if b == nil || n == 0 || !littleEndian || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(size) != 0 {
		return b, nil
	}
	return b, unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// uint16s reads n uint16 after a pad: in place where they can be.
func (r *reader) uint16s(n int) []uint16 {
	b, view := words[uint16](r, n)
	if b == nil || view != nil {
		return view
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

func (r *reader) next(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errIndexFormat
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) byte() byte {
	if b := r.next(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) uint16() uint16 {
	if b := r.next(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) uint32() uint32 {
	if b := r.next(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// int32s reads n int32 after a pad: in place where they can be.
func (r *reader) int32s(n int) []int32 {
	b, view := words[int32](r, n)
	if b == nil || view != nil {
		return view
	}
	return r.copyInt32s(b, n)
}

// linkList reads an HNSW link list: n int32, unpadded, copied.
func (r *reader) linkList(n int) []int32 {
	b := r.next(4 * n)
	if b == nil {
		return nil
	}
	return r.copyInt32s(b, n)
}

func (r *reader) copyInt32s(b []byte, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// float32s reads n float32 after a pad: in place where they can be.
func (r *reader) float32s(n int) []float32 {
	b, view := words[float32](r, n)
	if b == nil || view != nil {
		return view
	}
	return r.copyFloat32s(b, n)
}

func (r *reader) copyFloat32s(b []byte, n int) []float32 {
	if b == nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// halves reads n float16 values widened to float32.
func (r *reader) halves(n int) []float32 {
	b := r.next(2 * n)
	if b == nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = fromHalf(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}
