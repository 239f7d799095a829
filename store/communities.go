package store

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/communityset"
)

// SaveCommunities stores a version's communities (JSON), replacing what
// it held.
func (s *Store) SaveCommunities(ctx context.Context, versionID int, data string) error {
	err := s.client.CommunitySet.Create().SetVersionID(versionID).SetData(data).
		OnConflict(sql.ConflictColumns(communityset.FieldVersionID)).UpdateNewValues().Exec(ctx)
	return translate(err, "communities")
}

// Communities returns a version's stored communities (JSON) and whether
// it has any.
func (s *Store) Communities(ctx context.Context, versionID int) (string, bool, error) {
	cs, err := s.client.CommunitySet.Query().Where(communityset.VersionID(versionID)).Only(ctx)
	if ent.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, translate(err, "communities")
	}
	return cs.Data, true, nil
}
