package store

import (
	"bytes"
	"context"
	stdsql "database/sql"

	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/versionindex"
)

// Parts of a version's stored search index.
const (
	// IndexVectors is the vector indexes of a version's chunks, nodes and
	// edges (query.VectorIndex's binary form).
	IndexVectors = "vectors"
	// IndexLexical is the passages' BM25 postings and the graph's keyword
	// index (query.Corpus's AppendLexical form).
	IndexLexical = "lexical"
	// IndexCommunities is the index of the communities global search
	// reads (query.Corpus's AppendCommunities form).
	IndexCommunities = "communities"
	// IndexScores is a version's scores on its extraction's question set
	// (app.VersionScores as JSON), stamped with the set's digest.
	IndexScores = "scores"
)

// SaveVersionIndex stores one part of a version's search index with the
// stamp of what it was built from, replacing what the part held.
func (s *Store) SaveVersionIndex(ctx context.Context, versionID int, part, stamp string, data []byte) error {
	return s.write(ctx, func(c *ent.Client) error {
		err := c.VersionIndex.Create().SetVersionID(versionID).SetPart(part).SetStamp(stamp).SetData(data).
			OnConflict(sql.ConflictColumns(versionindex.FieldVersionID, versionindex.FieldPart)).UpdateNewValues().Exec(ctx)
		return translate(err, "version index")
	})
}

// VersionIndex returns one part of a version's stored search index when
// it was built from what stamp names; ok is false when there is none or
// it was built from something else.
func (s *Store) VersionIndex(ctx context.Context, versionID int, part, stamp string) (data []byte, ok bool, err error) {
	ok, err = s.ReadVersionIndex(ctx, versionID, part, stamp, func(b []byte) error {
		data = bytes.Clone(b)
		return nil
	})
	return data, ok, err
}

// ReadVersionIndex is VersionIndex for a reader that decodes the part as
// it is read: read gets the stored bytes, valid only until it returns
// (a part of tens of megabytes is not copied once more to be decoded).
func (s *Store) ReadVersionIndex(ctx context.Context, versionID int, part, stamp string, read func(data []byte) error) (ok bool, err error) {
	query, args := sql.Dialect(s.Dialect).Select(versionindex.FieldData).From(sql.Table(versionindex.Table)).
		Where(sql.And(sql.EQ(versionindex.FieldVersionID, versionID), sql.EQ(versionindex.FieldPart, part), sql.EQ(versionindex.FieldStamp, stamp))).Query()
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return false, translate(err, "version index")
	}
	defer rows.Close()
	if !rows.Next() {
		return false, translate(rows.Err(), "version index")
	}
	var raw stdsql.RawBytes
	if err := rows.Scan(&raw); err != nil {
		return false, translate(err, "version index")
	}
	if err := read(raw); err != nil {
		return true, err
	}
	return true, translate(rows.Close(), "version index")
}

// deleteVersionIndexes drops the stored search indexes of versions (their
// graph or vectors changed).
func deleteVersionIndexes(ctx context.Context, c *ent.Client, versionIDs ...int) error {
	if len(versionIDs) == 0 {
		return nil
	}
	_, err := c.VersionIndex.Delete().Where(versionindex.VersionIDIn(versionIDs...)).Exec(ctx)
	return translate(err, "version index")
}
