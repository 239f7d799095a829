package query

import (
	"encoding/binary"
	"errors"
	"fmt"

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
	if vi == nil {
		return b
	}
	b = append(b, vectorIndexMagic...)
	b = append(b, vectorIndexVersion)
	b = appendString(b, vi.Model)
	b = binary.AppendUvarint(b, uint64(len(vi.chunks.keys)))
	for _, r := range vi.chunks.keys {
		b = binary.AppendUvarint(b, uint64(r.DocumentID))
		b = binary.AppendUvarint(b, uint64(r.Index))
	}
	b = appendKindIndex(b, vi.chunks.ix)
	for _, k := range []kindIndex[string]{vi.nodes, vi.edges} {
		b = binary.AppendUvarint(b, uint64(len(k.keys)))
		for _, key := range k.keys {
			b = appendString(b, key)
		}
		b = appendKindIndex(b, k.ix)
	}
	if vi.other == nil {
		return append(b, 0)
	}
	return vi.other.AppendBinary(append(b, 1))
}

func appendKindIndex(b []byte, ix *embed.Index) []byte {
	if ix == nil {
		ix = embed.NewIndex(nil)
	}
	return ix.AppendBinary(b)
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
