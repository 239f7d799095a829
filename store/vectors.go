package store

import (
	"cmp"
	"context"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/embedding"
	"github.com/kgstudio/kgstudio/ent/predicate"
	"github.com/kgstudio/kgstudio/ent/vector"
	"github.com/kgstudio/kgstudio/ent/vectorset"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/record"
)

// VectorKind is what a stored vector embeds.
type VectorKind string

// Vector kinds.
const (
	VectorChunk VectorKind = "chunk"
	VectorNode  VectorKind = "node"
	VectorEdge  VectorKind = "edge"
	// VectorReport is a community report's vector, keyed by the
	// community's id.
	VectorReport VectorKind = "report"
)

// VectorItem is one stored embedding of a version: Kind is VectorChunk,
// VectorNode, VectorEdge or VectorReport; Key names the chunk
// ("documentID:index"), the node (its key), the edge or the community.
type VectorItem struct {
	Kind   VectorKind
	Key    string
	Vector []float32
	// Model is the model that made the vector when it is not the
	// version's (the fallback of a split embedder); empty otherwise.
	Model string
}

// vectorBatch bounds the rows of one insert (SQLite's bound variables).
const vectorBatch = 500

// A version's vectors are stored compactly (embed.EncodeCompact: float16,
// as (index, value) pairs when most components are zero): per chunk, per
// node and per edge one row of kind, key, model and the vector, some 2 KB
// for a chunk and 0.1 to 1 KB for a node or an edge of the offline
// embedder (1,024 dimensions; 4 KB each as float32 before). Vectors stored
// as float32 by earlier releases still load.

// SaveVectors replaces a version's vectors and their stats in one
// transaction.
func (s *Store) SaveVectors(ctx context.Context, versionID int, st record.VectorStats, items []VectorItem) error {
	return s.inTx(ctx, func(tx *writeTx) error {
		c := tx.Client()
		if err := deleteVectors(ctx, c, versionID); err != nil {
			return err
		}
		if err := insertVectors(ctx, c, versionID, st.Model, items); err != nil {
			return err
		}
		st.Vectors = len(items)
		return insertVectorStats(ctx, c, versionID, st)
	})
}

func insertVectors(ctx context.Context, c *ent.Client, versionID int, model string, items []VectorItem) error {
	for lo := 0; lo < len(items); lo += vectorBatch {
		hi := min(lo+vectorBatch, len(items))
		bulk := make([]*ent.VectorCreate, 0, hi-lo)
		for _, it := range items[lo:hi] {
			// The version's own model is stored as "" (one name per
			// version, in its stats, rather than one per row).
			m := it.Model
			if m == model {
				m = ""
			}
			bulk = append(bulk, c.Vector.Create().SetVersionID(versionID).SetKind(vector.Kind(it.Kind)).
				SetKey(it.Key).SetModel(m).SetVector(embed.EncodeCompact(it.Vector)))
		}
		if err := c.Vector.CreateBulk(bulk...).Exec(ctx); err != nil {
			return translate(err, "vectors")
		}
	}
	return nil
}

func insertVectorStats(ctx context.Context, c *ent.Client, versionID int, st record.VectorStats) error {
	err := c.VectorSet.Create().SetVersionID(versionID).SetEmbedder(string(st.Embedder)).SetModel(st.Model).
		SetDimensions(st.Dimensions).SetVectors(st.Vectors).SetCalls(st.Calls).SetTokens(st.Tokens).
		SetCached(st.Cached).Exec(ctx)
	return translate(err, "vector stats")
}

// VectorWriter writes a version's vectors batch by batch, each batch in a
// transaction of its own, so a large version neither holds every vector
// in memory nor the database's write lock for long.
type VectorWriter struct {
	s         *Store
	versionID int
	model     string
	n         int
}

// WriteVectors deletes a version's vectors and stats and returns a writer
// of new ones; Close records the stats, which a reader takes as the mark
// that the vectors are complete (a writer that never closes leaves
// vectors without stats, which no search reads).
func (s *Store) WriteVectors(ctx context.Context, versionID int, model string) (*VectorWriter, error) {
	err := s.inTx(ctx, func(tx *writeTx) error { return deleteVectors(ctx, tx.Client(), versionID) })
	if err != nil {
		return nil, err
	}
	return &VectorWriter{s: s, versionID: versionID, model: model}, nil
}

// Add writes a batch of vectors.
func (w *VectorWriter) Add(ctx context.Context, items []VectorItem) error {
	w.n += len(items)
	return w.s.inTx(ctx, func(tx *writeTx) error { return insertVectors(ctx, tx.Client(), w.versionID, w.model, items) })
}

// Derived counts n vectors that are not stored because search computes
// them again (the offline embedder's).
func (w *VectorWriter) Derived(n int) { w.n += n }

// Close records the stats with the count of vectors written (or derived).
func (w *VectorWriter) Close(ctx context.Context, st record.VectorStats) error {
	st.Vectors, st.Model = w.n, w.model
	return w.s.inTx(ctx, func(tx *writeTx) error { return insertVectorStats(ctx, tx.Client(), w.versionID, st) })
}

// deleteVectors deletes the vectors and vector stats of versions.
func deleteVectors(ctx context.Context, c *ent.Client, versionIDs ...int) error {
	if len(versionIDs) == 0 {
		return nil
	}
	if _, err := c.Vector.Delete().Where(vector.VersionIDIn(versionIDs...)).Exec(ctx); err != nil {
		return translate(err, "vectors")
	}
	if err := deleteVersionIndexes(ctx, c, versionIDs...); err != nil {
		return err
	}
	_, err := c.VectorSet.Delete().Where(vectorset.VersionIDIn(versionIDs...)).Exec(ctx)
	return translate(err, "vector stats")
}

// VectorStatsOf returns a version's vectorizer record and whether it has
// one (versions run before the vectorizer existed have none).
func (s *Store) VectorStatsOf(ctx context.Context, versionID int) (record.VectorStats, bool, error) {
	row, err := s.client.VectorSet.Query().Where(vectorset.VersionID(versionID)).Only(ctx)
	if ent.IsNotFound(err) {
		return record.VectorStats{}, false, nil
	}
	if err != nil {
		return record.VectorStats{}, false, translate(err, "vector stats")
	}
	return record.VectorStats{Embedder: extract.EmbedderName(row.Embedder), Model: row.Model, Dimensions: row.Dimensions, Vectors: row.Vectors,
		Calls: row.Calls, Tokens: row.Tokens, Cached: row.Cached}, true, nil
}

// VectorCounts returns how many vectors of a version each model made:
// one index per model (the version's, and a split embedder's fallback).
func (s *Store) VectorCounts(ctx context.Context, versionID int) (map[string]int, error) {
	var rows []struct {
		Model string `json:"model"`
		Count int    `json:"count"`
	}
	err := s.client.Vector.Query().Where(vector.VersionID(versionID)).GroupBy(vector.FieldModel).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, translate(err, "vector counts")
	}
	st, _, err := s.VectorStatsOf(ctx, versionID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[cmp.Or(r.Model, st.Model)] += r.Count
	}
	if len(rows) == 0 && st.Vectors > 0 {
		out[st.Model] = st.Vectors // derived, not stored
	}
	return out, nil
}

// HasVectors reports whether a version has vectors stored (the offline
// embedder's are counted, not stored).
func (s *Store) HasVectors(ctx context.Context, versionID int) (bool, error) {
	ok, err := s.client.Vector.Query().Where(vector.VersionID(versionID)).Exist(ctx)
	return ok, translate(err, "vectors")
}

// Vectors returns a version's stored vectors.
func (s *Store) Vectors(ctx context.Context, versionID int) ([]VectorItem, error) {
	return s.vectorsWhere(ctx, vector.VersionID(versionID))
}

// KindVectors returns a version's stored vectors of one kind.
func (s *Store) KindVectors(ctx context.Context, versionID int, kind VectorKind) ([]VectorItem, error) {
	return s.vectorsWhere(ctx, vector.VersionID(versionID), vector.KindEQ(vector.Kind(kind)))
}

func (s *Store) vectorsWhere(ctx context.Context, where ...predicate.Vector) ([]VectorItem, error) {
	rows, err := s.client.Vector.Query().Where(where...).Order(ent.Asc(vector.FieldID)).All(ctx)
	if err != nil {
		return nil, translate(err, "vectors")
	}
	out := make([]VectorItem, 0, len(rows))
	for _, r := range rows {
		v, err := embed.Decode(r.Vector)
		if err != nil {
			return nil, err
		}
		out = append(out, VectorItem{Kind: VectorKind(r.Kind), Key: r.Key, Vector: v, Model: r.Model})
	}
	return out, nil
}

// GetVectors implements embed.Store: the cached vectors of a model by
// text hash.
func (s *Store) GetVectors(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	for lo := 0; lo < len(hashes); lo += vectorBatch {
		hi := min(lo+vectorBatch, len(hashes))
		rows, err := s.client.Embedding.Query().Where(embedding.Model(model), embedding.HashIn(hashes[lo:hi]...)).All(ctx)
		if err != nil {
			return nil, translate(err, "embedding cache")
		}
		for _, r := range rows {
			v, err := embed.Decode(r.Vector)
			if err != nil {
				return nil, err
			}
			out[r.Hash] = v
		}
	}
	return out, nil
}

// PutVectors implements embed.Store; a (model, hash) stored before is kept.
func (s *Store) PutVectors(ctx context.Context, model string, vecs map[string][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *writeTx) error {
		c := tx.Client()
		bulk := make([]*ent.EmbeddingCreate, 0, len(vecs))
		for h, v := range vecs {
			bulk = append(bulk, c.Embedding.Create().SetModel(model).SetHash(h).SetVector(embed.Encode(v)))
		}
		for lo := 0; lo < len(bulk); lo += vectorBatch {
			hi := min(lo+vectorBatch, len(bulk))
			err := c.Embedding.CreateBulk(bulk[lo:hi]...).OnConflictColumns(embedding.FieldModel, embedding.FieldHash).DoNothing().Exec(ctx)
			if err != nil {
				return translate(err, "embedding cache")
			}
		}
		return nil
	})
}

var _ embed.Store = (*Store)(nil)
