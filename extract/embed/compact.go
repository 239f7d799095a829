package embed

import (
	"encoding/binary"
	"math"

	"github.com/kgstudio/kgstudio/extract"
)

// The compact form of a stored vector is IEEE half precision (float16),
// written densely, or, when the components that are not zero take less
// room as (index, value) pairs (the offline embedder's vectors of names,
// short descriptions and edges), as those pairs, or, smaller still when
// the values repeat (the hashed embedder's counts take a few values per
// vector), as index gaps with one byte naming each value in a palette of
// the vector's distinct float16 values. A 1,024-dimension vector takes
// 2,062 bytes dense instead of 4,096, and a name of three words some 60 to
// 100 bytes. A component keeps 11 significant bits (a relative error under
// 0.05%), the same in all three forms; on the multi-hop evaluation sets
// the top 10 passages of 195 of 200 questions are the same in the same
// order, and the other 5 swap near ties only (see TestCompactKeepsRankings).
// int8 with a scale per vector, tried first, swapped near ties in 60 of
// the 200.
//
// Layout: a format byte ('d' dense, 's' sparse, 'p' palette, 'q' small
// palette), the dimensions (uint32), a scale (float32, 1 for now) by which
// every value is multiplied, then the values: n float16 (dense); a uint32
// count and count (uint16 index, float16 value) pairs (sparse); or a
// uvarint count, a uvarint palette size and the palette's float16 values,
// then per component that is not zero its gap (its index minus the
// previous one's, minus one) and its palette index: a uvarint and a byte
// (palette, up to 256 values), or one byte, the gap in the high nibble
// and the index in the low one, with a uvarint of the gap past 15 after
// it when the nibble is 15 (small palette, up to 16 values: a name's or a
// sentence's hashed vector, whose gaps are mostly under 15). Sparse and
// palette take up to 65,536 dimensions. Zero bytes pad the total to 4k+2
// bytes, a length Encode's float32 form (4k bytes) never has, so Decode
// reads both.
const (
	compactDense   = 'd'
	compactSparse  = 's'
	compactPalette = 'p'
	// compactPalette16 is the palette form of 16 values at most.
	compactPalette16 = 'q'
	compactRem       = 2
	compactHeader    = 9
)

// EncodeCompact packs a vector in the compact form (see above).
func EncodeCompact(v []float32) []byte {
	nz := 0
	for _, x := range v {
		if toHalf(x) != 0 {
			nz++
		}
	}
	var b []byte
	if p := encodePalette(v, nz); p != nil && len(p) < min(4*nz+4, 2*len(v))+compactHeader {
		b = p
	} else if len(v) <= 1<<16 && 4*nz+4 < 2*len(v) {
		b = make([]byte, compactHeader+4, compactHeader+4+4*nz+3)
		b[0] = compactSparse
		binary.LittleEndian.PutUint32(b[compactHeader:], uint32(nz))
		for i, x := range v {
			if h := toHalf(x); h != 0 {
				b = binary.LittleEndian.AppendUint16(b, uint16(i))
				b = binary.LittleEndian.AppendUint16(b, h)
			}
		}
	} else {
		b = make([]byte, compactHeader, compactHeader+2*len(v)+3)
		b[0] = compactDense
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, toHalf(x))
		}
	}
	binary.LittleEndian.PutUint32(b[1:], uint32(len(v)))
	binary.LittleEndian.PutUint32(b[5:], math.Float32bits(1))
	for len(b)%4 != compactRem {
		b = append(b, 0)
	}
	return b
}

// encodePalette is the palette form of v (nz components not zero as
// float16), nil when its values take more than 256 float16 values.
func encodePalette(v []float32, nz int) []byte {
	if nz == 0 || len(v) > 1<<16 {
		return nil
	}
	code := map[uint16]byte{}
	var palette []uint16
	for _, x := range v {
		h := toHalf(x)
		if h == 0 {
			continue
		}
		if _, ok := code[h]; !ok {
			if len(palette) == 256 {
				return nil
			}
			code[h] = byte(len(palette))
			palette = append(palette, h)
		}
	}
	b := make([]byte, compactHeader, compactHeader+2*len(palette)+3*nz+16)
	b[0] = compactPalette
	small := len(palette) <= 16
	if small {
		b[0] = compactPalette16
	}
	b = binary.AppendUvarint(b, uint64(nz))
	b = binary.AppendUvarint(b, uint64(len(palette)))
	for _, h := range palette {
		b = binary.LittleEndian.AppendUint16(b, h)
	}
	prev := -1
	for i, x := range v {
		h := toHalf(x)
		if h == 0 {
			continue
		}
		gap := uint64(i - prev - 1)
		prev = i
		if small {
			// The gap in the high nibble (15: the rest follows as a
			// uvarint), the value's palette index in the low one.
			b = append(b, byte(min(gap, 15))<<4|code[h])
			if gap >= 15 {
				b = binary.AppendUvarint(b, gap-15)
			}
			continue
		}
		b = binary.AppendUvarint(b, gap)
		b = append(b, code[h])
	}
	return b
}

// decodePalette unpacks the palette form's body into n components (small:
// the form of 16 values at most).
func decodePalette(body []byte, n int, scale float32, small bool) ([]float32, bool) {
	nz, k := binary.Uvarint(body)
	if k <= 0 || n > 1<<16 || nz > uint64(n) || uint64(len(body)) < nz {
		return nil, false
	}
	body = body[k:]
	size, k := binary.Uvarint(body)
	if k <= 0 || size == 0 || size > 256 || len(body) < k+2*int(size) {
		return nil, false
	}
	body = body[k:]
	palette := make([]float32, size)
	for j := range palette {
		palette[j] = fromHalf(binary.LittleEndian.Uint16(body[2*j:])) * scale
	}
	body = body[2*size:]
	v := make([]float32, n)
	i := -1
	for range nz {
		var gap uint64
		var c byte
		if small {
			if len(body) == 0 {
				return nil, false
			}
			gap, c, body = uint64(body[0]>>4), body[0]&15, body[1:]
			if gap == 15 {
				more, k := binary.Uvarint(body)
				if k <= 0 {
					return nil, false
				}
				gap, body = gap+more, body[k:]
			}
		} else {
			var k int
			gap, k = binary.Uvarint(body)
			if k <= 0 || len(body) < k+1 {
				return nil, false
			}
			c, body = body[k], body[k+1:]
		}
		if gap >= uint64(n-i-1) || int(c) >= len(palette) {
			return nil, false
		}
		i += int(gap) + 1
		v[i] = palette[c]
	}
	if len(body) > 3 {
		return nil, false
	}
	return v, true
}

// decodeCompact unpacks EncodeCompact's bytes.
func decodeCompact(b []byte) ([]float32, error) {
	bad := func() ([]float32, error) {
		return nil, extract.Errorf(extract.KindInternal, "a stored vector of %d bytes is not a compact vector", len(b))
	}
	if len(b) < compactHeader {
		return bad()
	}
	n := int(binary.LittleEndian.Uint32(b[1:]))
	scale := math.Float32frombits(binary.LittleEndian.Uint32(b[5:]))
	body := b[compactHeader:]
	switch b[0] {
	case compactDense:
		if len(body) < 2*n || len(body) > 2*n+3 {
			return bad()
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = fromHalf(binary.LittleEndian.Uint16(body[2*i:])) * scale
		}
		return v, nil
	case compactPalette, compactPalette16:
		if v, ok := decodePalette(body, n, scale, b[0] == compactPalette16); ok {
			return v, nil
		}
		return bad()
	case compactSparse:
		if len(body) < 4 || n > 1<<16 {
			return bad()
		}
		nz := int(binary.LittleEndian.Uint32(body))
		body = body[4:]
		if len(body) < 4*nz || len(body) > 4*nz+3 {
			return bad()
		}
		v := make([]float32, n)
		for k := range nz {
			i := int(binary.LittleEndian.Uint16(body[4*k:]))
			if i >= n {
				return bad()
			}
			v[i] = fromHalf(binary.LittleEndian.Uint16(body[4*k+2:])) * scale
		}
		return v, nil
	}
	return bad()
}

// toHalf rounds x to the nearest IEEE 754 half-precision number (ties to
// even); magnitudes past 65504 become infinities, those under 2^-24 zero.
func toHalf(x float32) uint16 {
	bits := math.Float32bits(x)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23&0xff) - 127 + 15
	mant := bits & 0x7fffff
	switch {
	case bits&0x7fffffff == 0:
		return sign
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		if rem > 1<<(shift-1) || rem == 1<<(shift-1) && half&1 == 1 {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && half&1 == 1 {
		half++ // may carry into the exponent, which is right
	}
	if half >= 0x7c00 {
		return sign | 0x7c00
	}
	return sign | uint16(half)
}

// fromHalf widens a half-precision number.
func fromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h >> 10 & 0x1f)
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0:
		return math.Float32frombits(sign) + float32(mant)*(1.0/(1<<24))*signOf(h)
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | mant<<13)
}

func signOf(h uint16) float32 {
	if h&0x8000 != 0 {
		return -1
	}
	return 1
}
