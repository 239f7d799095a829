package query

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// The binary form of a VectorIndex (AppendBinary, ReadVectorIndex): a
// version's vector indexes are built once, stored, and read by every
// process that asks it a question, instead of being built again in each.
//
//	magic "KGVI" | version byte | model (uvarint length, bytes)
//	chunks: count uvarint, per chunk document and index (uvarint each), the embed.Index
//	nodes, edges: count uvarint, per key (uvarint length, bytes), the embed.Index
//	other: byte 1 and the fallback's VectorIndex, or byte 0
const (
	vectorIndexMagic   = "KGVI"
	vectorIndexVersion = 1
)

var errVectorIndexFormat = errors.New("not a vector index in kgstudio's binary form")

// AppendBinary appends the index's binary form to b; a nil index has
// none (ReadVectorIndex of an empty form gives nil).
func (vi *VectorIndex) AppendBinary(b []byte) []byte {
	return vi.appendForm(b, "", func(b []byte, _ string, ix *embed.Index) []byte { return ix.AppendBinary(b) })
}

// AppendApart is AppendBinary with the postings of its sparse indexes
// apart (embed.Index.AppendApart), each dimension's named by its kind
// ("c", "n" or "e" for chunks, nodes and edges, "oc" ... for the
// fallback's) and the dimension: "n/17". An index read from this form
// searches once it has a way to read them (SetLoader).
func (vi *VectorIndex) AppendApart(b []byte) ([]byte, map[string][]byte) {
	parts := map[string][]byte{}
	b = vi.appendForm(b, "", func(b []byte, kind string, ix *embed.Index) []byte {
		out, dims := ix.AppendApart(b)
		for d, form := range dims {
			if form != nil {
				parts[kind+"/"+strconv.Itoa(d)] = form
			}
		}
		return out
	})
	return b, parts
}

// appendForm writes the binary form, each kind's index by appendIx with
// its name (prefix and the kind's letter).
func (vi *VectorIndex) appendForm(b []byte, prefix string, appendIx func(b []byte, kind string, ix *embed.Index) []byte) []byte {
	if vi == nil {
		return b
	}
	kindIx := func(b []byte, kind string, ix *embed.Index) []byte {
		if ix == nil {
			ix = embed.NewIndex(nil)
		}
		return appendIx(b, prefix+kind, ix)
	}
	b = append(b, vectorIndexMagic...)
	b = append(b, vectorIndexVersion)
	b = appendString(b, vi.Model)
	b = binary.AppendUvarint(b, uint64(len(vi.chunks.keys)))
	for _, r := range vi.chunks.keys {
		b = binary.AppendUvarint(b, uint64(r.DocumentID))
		b = binary.AppendUvarint(b, uint64(r.Index))
	}
	b = kindIx(b, "c", vi.chunks.ix)
	for i, k := range []kindIndex[string]{vi.nodes, vi.edges} {
		b = binary.AppendUvarint(b, uint64(len(k.keys)))
		for _, key := range k.keys {
			b = appendString(b, key)
		}
		b = kindIx(b, []string{"n", "e"}[i], k.ix)
	}
	if vi.other == nil {
		return append(b, 0)
	}
	return vi.other.appendForm(append(b, 1), prefix+"o", appendIx)
}

// Apart reports whether a kind of the index was read from AppendApart's
// form without its postings.
func (vi *VectorIndex) Apart() bool {
	for x := vi; x != nil; x = x.other {
		for _, ix := range []*embed.Index{x.chunks.ix, x.nodes.ix, x.edges.ix} {
			if ix != nil && ix.Apart() {
				return true
			}
		}
	}
	return false
}

// PartsLoader reads the stored postings of a vector index written by
// AppendApart, by name; a name not stored is absent from what it returns.
type PartsLoader func(ctx context.Context, names []string) (map[string][]byte, error)

// SetLoader gives an index read from AppendApart's form the way to read
// the postings its searches need.
func (vi *VectorIndex) SetLoader(load PartsLoader) {
	for x, prefix := vi, ""; x != nil; x, prefix = x.other, prefix+"o" {
		x.load, x.prefix = load, prefix
	}
}

// prepare reads, for an index read apart, the postings of the
// dimensions the searches for these vectors need (of chunks, nodes and
// edges), all in one call of its loader.
func (vi *VectorIndex) prepare(ctx context.Context, chunkQ, nodeQ, edgeQ []float32) error {
	type need struct {
		ix *embed.Index
		d  int
	}
	wanted := map[string]need{}
	for i, k := range []struct {
		ix *embed.Index
		q  []float32
	}{{vi.chunks.ix, chunkQ}, {vi.nodes.ix, nodeQ}, {vi.edges.ix, edgeQ}} {
		if k.ix == nil {
			continue
		}
		for _, d := range k.ix.Missing(k.q) {
			wanted[vi.prefix+[]string{"c", "n", "e"}[i]+"/"+strconv.Itoa(d)] = need{k.ix, d}
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	if vi.load == nil {
		return errors.New("vector index read without its postings and no way to read them")
	}
	names := slices.Sorted(maps.Keys(wanted))
	got, err := vi.load(ctx, names)
	if err != nil {
		return err
	}
	for _, name := range names {
		form, ok := got[name]
		if !ok {
			return extract.Errorf(extract.KindConflict, "the version's stored vector index changed while it was read (postings %s are gone): ask again", name)
		}
		if err := wanted[name].ix.Fill(wanted[name].d, form); err != nil {
			return fmt.Errorf("read vector index: %w", err)
		}
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// ReadVectorIndex reads a VectorIndex from its binary form (nil for an
// empty one). The index may keep slices of b, which must not change after.
func ReadVectorIndex(b []byte) (*VectorIndex, error) {
	if len(b) == 0 {
		return nil, nil
	}
	vi, rest, err := readVectorIndex(b)
	if err == nil && len(rest) > 0 {
		err = errVectorIndexFormat
	}
	if err != nil {
		return nil, fmt.Errorf("read vector index: %w", err)
	}
	return vi, nil
}

func readVectorIndex(b []byte) (*VectorIndex, []byte, error) {
	if len(b) < 5 || string(b[:4]) != vectorIndexMagic || b[4] != vectorIndexVersion {
		return nil, nil, errVectorIndexFormat
	}
	b = b[5:]
	vi := &VectorIndex{}
	var err error
	if vi.Model, b, err = readString(b); err != nil {
		return nil, nil, err
	}
	n, b, err := readCount(b)
	if err != nil {
		return nil, nil, err
	}
	vi.chunks.keys = make([]extract.ChunkRef, n)
	for i := range vi.chunks.keys {
		var doc, idx uint64
		if doc, b, err = readUvarint(b); err == nil {
			idx, b, err = readUvarint(b)
		}
		if err != nil {
			return nil, nil, err
		}
		vi.chunks.keys[i] = extract.ChunkRef{DocumentID: int(doc), Index: int(idx)}
	}
	if vi.chunks.ix, b, err = readKindIndex(b, n); err != nil {
		return nil, nil, err
	}
	for _, k := range []*kindIndex[string]{&vi.nodes, &vi.edges} {
		if n, b, err = readCount(b); err != nil {
			return nil, nil, err
		}
		k.keys = make([]string, n)
		for i := range k.keys {
			if k.keys[i], b, err = readString(b); err != nil {
				return nil, nil, err
			}
		}
		if k.ix, b, err = readKindIndex(b, n); err != nil {
			return nil, nil, err
		}
	}
	if len(b) == 0 {
		return nil, nil, errVectorIndexFormat
	}
	if b[0] == 1 {
		if vi.other, b, err = readVectorIndex(b[1:]); err != nil {
			return nil, nil, err
		}
		return vi, b, nil
	}
	return vi, b[1:], nil
}

func readKindIndex(b []byte, n int) (*embed.Index, []byte, error) {
	ix, rest, err := embed.ReadIndex(b)
	if err != nil {
		return nil, nil, err
	}
	if ix.Len() != n {
		return nil, nil, errVectorIndexFormat
	}
	return ix, rest, nil
}

func readUvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errVectorIndexFormat
	}
	return v, b[n:], nil
}

// readCount reads a count no larger than the bytes left could hold.
func readCount(b []byte) (int, []byte, error) {
	v, b, err := readUvarint(b)
	if err != nil || v > uint64(len(b)) {
		return 0, nil, errVectorIndexFormat
	}
	return int(v), b, nil
}

func readString(b []byte) (string, []byte, error) {
	n, b, err := readCount(b)
	if err != nil {
		return "", nil, err
	}
	return string(b[:n]), b[n:], nil
}
