package store

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/versionindex"
)

// Parts of a version's stored search index.
const (
	// IndexVectors is the vector indexes of a version's chunks, nodes and
	// edges (query.VectorIndex's binary form).
	IndexVectors = "vectors"
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
	row, err := s.client.VersionIndex.Query().
		Where(versionindex.VersionID(versionID), versionindex.Part(part), versionindex.Stamp(stamp)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, translate(err, "version index")
	}
	return row.Data, true, nil
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
