package store

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent/document"
	"github.com/kgstudio/kgstudio/ent/mention"
	"github.com/kgstudio/kgstudio/extract/record"
)

// MentionCounts counts the mentions of each node of a version.
func (s *Store) MentionCounts(ctx context.Context, versionID int) (map[string]int, error) {
	var rows []struct {
		NodeKey string `json:"node_key"`
		Count   int    `json:"count"`
	}
	err := s.client.Mention.Query().Where(mention.VersionID(versionID), mention.NodeKeyNEQ("")).
		GroupBy(mention.FieldNodeKey).Aggregate(func(sel *sql.Selector) string { return sql.As(sql.Count("*"), "count") }).
		Scan(ctx, &rows)
	if err != nil {
		return nil, translate(err, "mentions")
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.NodeKey] = r.Count
	}
	return out, nil
}

// DocumentInfo loads a document without its content.
func (s *Store) DocumentInfo(ctx context.Context, id int) (record.DocumentInfo, error) {
	r, err := s.client.Document.Query().Where(document.ID(id)).
		Select(document.FieldID, document.FieldName, document.FieldKind, document.FieldSize, document.FieldCreatedAt).Only(ctx)
	if err != nil {
		return record.DocumentInfo{}, translate(err, fmt.Sprintf("document %d", id))
	}
	return record.DocumentInfo{ID: r.ID, Name: r.Name, Kind: string(r.Kind), Size: r.Size, Created: r.CreatedAt}, nil
}

// DocumentNamer returns a lookup of document names by ID (empty for an ID
// it cannot read), remembering what it found.
func (s *Store) DocumentNamer(ctx context.Context) func(id int) string {
	names := map[int]string{}
	return func(id int) string {
		if n, ok := names[id]; ok {
			return n
		}
		d, err := s.DocumentInfo(ctx, id)
		if err != nil {
			return ""
		}
		names[id] = d.Name
		return d.Name
	}
}
