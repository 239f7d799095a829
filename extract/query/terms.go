package query

import (
	"encoding/binary"
	"maps"
	"slices"
	"sort"
)

// termTable holds each term's postings: built in memory (m), or read from
// a stored form (ParseLexical) as a directory of the terms, sorted, with
// each list's length and its bytes, a list decoded only when a question
// asks for its term. A process's first question so reads the directory,
// not every posting of the version.
type termTable[T any] struct {
	m map[string][]T

	terms  []string
	counts []int32
	lists  []string // each term's encoded list, a substring of the form
	// decode reads one entry at the start of s and returns it and the
	// bytes it took (0 for a damaged entry).
	decode func(s string) (T, int)
}

func newTermTable[T any]() *termTable[T] { return &termTable[T]{m: map[string][]T{}} }

// get returns the postings of term (nil for none, or for a damaged list).
func (t *termTable[T]) get(term string) []T {
	if t.m != nil {
		return t.m[term]
	}
	i, ok := t.find(term)
	if !ok {
		return nil
	}
	out := make([]T, 0, t.counts[i])
	for s := t.lists[i]; len(out) < int(t.counts[i]); {
		v, n := t.decode(s)
		if n == 0 {
			return nil
		}
		out, s = append(out, v), s[n:]
	}
	return out
}

// count returns how many postings term has.
func (t *termTable[T]) count(term string) int {
	if t.m != nil {
		return len(t.m[term])
	}
	if i, ok := t.find(term); ok {
		return int(t.counts[i])
	}
	return 0
}

// size returns how many terms there are.
func (t *termTable[T]) size() int {
	if t.m != nil {
		return len(t.m)
	}
	return len(t.terms)
}

// each calls fn with every term and its postings, terms in byte order.
func (t *termTable[T]) each(fn func(term string, list []T)) {
	if t.m != nil {
		for _, term := range slices.Sorted(maps.Keys(t.m)) {
			fn(term, t.m[term])
		}
		return
	}
	for _, term := range t.terms {
		fn(term, t.get(term))
	}
}

func (t *termTable[T]) find(term string) (int, bool) {
	i := sort.SearchStrings(t.terms, term)
	return i, i < len(t.terms) && t.terms[i] == term
}

// appendTermTable appends t's form: the count of terms, then per term
// in byte order the term, the count of its postings, the length in bytes
// of their entries and the entries (enc appends one).
func appendTermTable[T any](b []byte, t *termTable[T], enc func([]byte, T) []byte) []byte {
	b = binary.AppendUvarint(b, uint64(t.size()))
	var list []byte
	t.each(func(term string, ps []T) {
		list = list[:0]
		for _, p := range ps {
			list = enc(list, p)
		}
		b = appendString(b, term)
		b = binary.AppendUvarint(b, uint64(len(ps)))
		b = appendString(b, string(list))
	})
	return b
}

// termTable reads appendTermTable's form as a directory (see termTable);
// minBytes is the fewest bytes an entry takes. The terms must come in
// byte order and each list must be long enough for its count.
func readTermTable[T any](r *lexReader, minBytes int, decode func(string) (T, int)) *termTable[T] {
	n := r.count()
	t := &termTable[T]{terms: make([]string, n), counts: make([]int32, n), lists: make([]string, n), decode: decode}
	for i := range n {
		t.terms[i] = r.str()
		c := r.count()
		t.lists[i] = r.str()
		t.counts[i] = int32(c)
		if r.err != nil || len(t.lists[i]) < c*minBytes || i > 0 && t.terms[i-1] >= t.terms[i] {
			r.fail()
			return t
		}
	}
	return t
}

// uvarintAt reads a uvarint at the start of s and the bytes it took (0
// when s holds none).
func uvarintAt(s string) (uint64, int) {
	var v uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
