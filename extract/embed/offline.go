// Package embed holds kgstudio's vectorizer parts that need no model
// provider: the offline embedder (hashed n-grams), the embedding cache,
// vector encoding and search (exact, and an HNSW index for large sets).
// The Gemini and OpenAI-compatible embedders live in extract/llm beside
// their chat clients.
package embed

import (
	"context"
	"math"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// OfflineDimensions is the length of the offline embedder's vectors.
const OfflineDimensions = 1024

// Offline is the embedder that needs no model and no download: a hashed
// bag of n-grams. Each text's terms (see Terms), their adjacent pairs and
// the character trigrams of each term are hashed into OfflineDimensions
// signed buckets with sublinear term frequency, and the vector is
// L2-normalised, so the cosine of two vectors measures shared words,
// phrases and word pieces ("paint" meets "painter"). It is deterministic:
// the same text always gives the same vector.
type Offline struct{}

var _ extract.Embedder = Offline{}

// OfflineModel is the offline embedder's model id.
const OfflineModel = "offline-hashed-ngrams-v1"

// Model implements extract.Embedder.
func (Offline) Model() string { return OfflineModel }

// Dimensions implements extract.Embedder.
func (Offline) Dimensions() int { return OfflineDimensions }

// Embed implements extract.Embedder; it makes no calls and never fails
// except on a canceled context.
func (o Offline) Embed(ctx context.Context, texts []string) ([][]float32, extract.EmbedUsage, error) {
	out := make([][]float32, len(texts))
	var w OfflineWriter
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, extract.EmbedUsage{}, ctx.Err()
		}
		out[i] = make([]float32, OfflineDimensions)
		w.Vector(t, out[i])
	}
	return out, extract.EmbedUsage{}, nil
}

// Feature weights: whole terms count most, pairs keep phrases together,
// trigrams let inflected and compound forms meet.
const (
	wTerm    = 1.0
	wPair    = 0.5
	wTrigram = 0.25
)

// Vector embeds one text.
func (Offline) Vector(text string) []float32 {
	v := make([]float32, OfflineDimensions)
	var w OfflineWriter
	w.Vector(text, v)
	return v
}

// OfflineWriter writes offline vectors into the caller's room, reusing
// its own between texts: a run of many texts allocates little. The zero
// value is ready; one writer serves one goroutine.
type OfflineWriter struct {
	counts map[uint64]float64
	tri    []byte
}

// Vector writes text's offline vector into v, which must hold
// OfflineDimensions zeros.
func (w *OfflineWriter) Vector(text string, v []float32) {
	terms := Terms(text)
	// Features are counted by their FNV-1a hash, computed as the feature
	// ("w:term", "p:prev term", "c:tri") would be written, without
	// writing it.
	if w.counts == nil {
		w.counts = make(map[uint64]float64, 4*len(terms))
	}
	counts := w.counts
	defer clear(counts)
	for i, t := range terms {
		counts[fnvString(fnvString(fnvOffset, "w:"), t)] += wTerm
		if i > 0 {
			h := fnvString(fnvString(fnvString(fnvOffset, "p:"), terms[i-1]), " ")
			counts[fnvString(h, t)] += wPair
		}
		if utf8.RuneCountInString(t)+2 > 5 {
			w.tri = append(append(append(w.tri[:0], '<'), t...), '>')
			tri := w.tri
			// The trigrams of runes: each starts at a rune of tri.
			for j := 0; j < len(tri); {
				k, n := j, 0
				for n < 3 && k < len(tri) {
					_, size := utf8.DecodeRune(tri[k:])
					k += size
					n++
				}
				if n < 3 {
					break
				}
				counts[fnvBytes(fnvString(fnvOffset, "c:"), tri[j:k])] += wTrigram
				_, size := utf8.DecodeRune(tri[j:])
				j += size
			}
		}
	}
	for x, c := range counts {
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		// Sublinear frequency, scaled by the feature's weight class.
		v[x%OfflineDimensions] += sign * float32(math.Log1p(c))
	}
	Normalize(v)
}

// FNV-1a, 64 bits (hash/fnv's New64a), folded a string at a time.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// Normalize scales v to unit length in place (a zero vector stays zero).
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// Check verifies that an embedder returned one vector of its dimensions
// per text; a provider that does not is a KindUnavailable error.
func Check(e extract.Embedder, texts []string, vecs [][]float32) error {
	if len(vecs) != len(texts) {
		return extract.Errorf(extract.KindUnavailable, "embedder %s returned %d vectors for %d texts", e.Model(), len(vecs), len(texts))
	}
	for i, v := range vecs {
		if d := e.Dimensions(); d > 0 && len(v) != d {
			return extract.Errorf(extract.KindUnavailable, "embedder %s returned a vector of %d dimensions (want %d) for text %d", e.Model(), len(v), d, i)
		}
	}
	return nil
}

// Dot is the dot product of two vectors of equal length (the cosine of
// unit vectors).
func Dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
