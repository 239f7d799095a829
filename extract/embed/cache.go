package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
)

// Store keeps embeddings by (model, text hash). The database implements
// it; MemoryStore serves tests and one-off runs.
type Store interface {
	// GetVectors returns the stored vectors of those hashes that exist.
	GetVectors(ctx context.Context, model string, hashes []string) (map[string][]float32, error)
	// PutVectors stores vectors by hash, keeping any already stored.
	PutVectors(ctx context.Context, model string, vecs map[string][]float32) error
}

// TextHash is the cache key of a text: hex SHA-256 of its bytes.
func TextHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

// MemoryStore is a Store held in memory, safe for concurrent use. With a
// limit it keeps at most that many vectors, dropping the oldest stored
// (within one PutVectors call, in key order).
type MemoryStore struct {
	mu    sync.Mutex
	vecs  map[string][]float32
	limit int
	order []string // keys in the order stored, when limited
}

// NewMemoryStore returns an empty MemoryStore without a limit.
func NewMemoryStore() *MemoryStore { return &MemoryStore{vecs: map[string][]float32{}} }

// NewMemoryStoreLimit returns an empty MemoryStore that keeps at most
// limit vectors.
func NewMemoryStoreLimit(limit int) *MemoryStore {
	return &MemoryStore{vecs: map[string][]float32{}, limit: limit}
}

// GetVectors implements Store.
func (m *MemoryStore) GetVectors(_ context.Context, model string, hashes []string) (map[string][]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]float32{}
	for _, h := range hashes {
		if v, ok := m.vecs[model+"\x1f"+h]; ok {
			out[h] = v
		}
	}
	return out, nil
}

// PutVectors implements Store.
func (m *MemoryStore) PutVectors(_ context.Context, model string, vecs map[string][]float32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Keys of one call are taken in sorted order, so which of them is
	// dropped first does not depend on map order.
	for _, h := range slices.Sorted(maps.Keys(vecs)) {
		v := vecs[h]
		k := model + "\x1f" + h
		if _, had := m.vecs[k]; !had && m.limit > 0 {
			m.order = append(m.order, k)
		}
		m.vecs[k] = v
	}
	if m.limit > 0 && len(m.order) > m.limit {
		drop := len(m.order) - m.limit
		for _, k := range m.order[:drop] {
			delete(m.vecs, k)
		}
		m.order = append(m.order[:0:0], m.order[drop:]...)
	}
	return nil
}

// DefaultBatch is the number of texts sent in one provider call.
const DefaultBatch = 64

// cached answers from a Store before asking the embedder.
type cached struct {
	extract.Embedder
	store Store
	batch int
}

// Cached wraps e so a text embedded before by the same model is answered
// from store, with no provider call; the rest is embedded in batches of
// batch texts (DefaultBatch when zero), de-duplicated, and stored. A
// re-run over unchanged text makes no embedding call.
func Cached(e extract.Embedder, store Store, batch int) extract.Embedder {
	if batch <= 0 {
		batch = DefaultBatch
	}
	return &cached{Embedder: e, store: store, batch: batch}
}

// Embed implements extract.Embedder.
func (c *cached) Embed(ctx context.Context, texts []string) ([][]float32, extract.EmbedUsage, error) {
	var use extract.EmbedUsage
	hashes := make([]string, len(texts))
	for i, t := range texts {
		hashes[i] = TextHash(t)
	}
	have, err := c.store.GetVectors(ctx, c.Model(), hashes)
	if err != nil {
		return nil, use, extract.Wrap(extract.KindOf(err), err, "read embedding cache")
	}
	// The texts still to embed, each once.
	var todo []string
	var todoHash []string
	queued := map[string]bool{}
	for i, h := range hashes {
		if _, ok := have[h]; ok {
			use.Cached++
			continue
		}
		if !queued[h] {
			queued[h] = true
			todo = append(todo, texts[i])
			todoHash = append(todoHash, h)
		}
	}
	for lo := 0; lo < len(todo); lo += c.batch {
		hi := min(lo+c.batch, len(todo))
		vecs, u, err := c.Embedder.Embed(ctx, todo[lo:hi])
		use = use.Add(u)
		if err != nil {
			return nil, use, err
		}
		if err := Check(c.Embedder, todo[lo:hi], vecs); err != nil {
			return nil, use, err
		}
		fresh := make(map[string][]float32, hi-lo)
		for j, v := range vecs {
			fresh[todoHash[lo+j]] = v
			have[todoHash[lo+j]] = v
		}
		// Store each batch at once so an interrupted run keeps what it paid for.
		if err := c.store.PutVectors(ctx, c.Model(), fresh); err != nil {
			return nil, use, extract.Wrap(extract.KindOf(err), err, "write embedding cache")
		}
	}
	out := make([][]float32, len(texts))
	for i, h := range hashes {
		out[i] = have[h]
	}
	return out, use, nil
}

// ErrNotCached is CacheOnly's error for a text its store does not hold.
var ErrNotCached = errors.New("not in the embedding cache")

// CacheOnly wraps e so texts are answered from store only: one the model
// embedded before is served, any other fails with ErrNotCached. Nothing
// reaches the provider (a GET must not spend money).
func CacheOnly(e extract.Embedder, store Store) extract.Embedder {
	return cacheOnly{Embedder: e, store: store}
}

type cacheOnly struct {
	extract.Embedder
	store Store
}

// Embed implements extract.Embedder.
func (c cacheOnly) Embed(ctx context.Context, texts []string) ([][]float32, extract.EmbedUsage, error) {
	hashes := make([]string, len(texts))
	for i, t := range texts {
		hashes[i] = TextHash(t)
	}
	have, err := c.store.GetVectors(ctx, c.Model(), hashes)
	if err != nil {
		return nil, extract.EmbedUsage{}, extract.Wrap(extract.KindOf(err), err, "read embedding cache")
	}
	out := make([][]float32, len(texts))
	for i, h := range hashes {
		v, ok := have[h]
		if !ok {
			return nil, extract.EmbedUsage{}, ErrNotCached
		}
		out[i] = v
	}
	return out, extract.EmbedUsage{Cached: len(texts)}, nil
}

// Encode packs a vector as little-endian float32 bytes (the database
// column format).
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Decode unpacks the bytes of Encode or EncodeCompact (told apart by their
// length: Encode's is a multiple of four, EncodeCompact's never is); any
// other length is a KindInternal error.
func Decode(b []byte) ([]float32, error) {
	if len(b)%4 == compactRem {
		return decodeCompact(b)
	}
	if len(b)%4 != 0 {
		return nil, extract.Errorf(extract.KindInternal, "a stored vector has %d bytes, not a multiple of 4", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// CachedSplit is Cached keeping a split embedder's routing (see
// extract.SplitEmbedder), so each text still goes to the model that
// serves it; the fallback is cached in the same store (its vectors are
// kept under its own model), unless it is the hashed offline embedder,
// which is cheaper than a lookup.
func CachedSplit(e extract.Embedder, store Store, batch int) extract.Embedder {
	if e.Model() == OfflineModel {
		return e
	}
	c := Cached(e, store, batch)
	if se, ok := e.(extract.SplitEmbedder); ok {
		return splitCached{Embedder: c, serves: se.Serves, fallback: CachedSplit(se.Fallback(), store, batch)}
	}
	return c
}

type splitCached struct {
	extract.Embedder
	serves   func(string) bool
	fallback extract.Embedder
}

func (s splitCached) Serves(text string) bool    { return s.serves(text) }
func (s splitCached) Fallback() extract.Embedder { return s.fallback }
