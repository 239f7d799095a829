package store

import (
	"context"

	"github.com/kgstudio/kgstudio/ent/document"
)

// DocumentNames returns the names of documents by ID, BatchSize at a
// query; IDs of documents that no longer exist are left out.
func (s *Store) DocumentNames(ctx context.Context, ids []int) (map[int]string, error) {
	out := make(map[int]string, len(ids))
	for start := 0; start < len(ids); start += BatchSize {
		rows, err := s.client.Document.Query().Where(document.IDIn(ids[start:min(start+BatchSize, len(ids))]...)).
			Select(document.FieldID, document.FieldName).All(ctx)
		if err != nil {
			return nil, translate(err, "document names")
		}
		for _, r := range rows {
			out[r.ID] = r.Name
		}
	}
	return out, nil
}
