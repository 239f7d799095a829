package store

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/ent/document"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// MentionCounts counts the mentions of each node of a version (nodes
// without any are left out).
func (s *Store) MentionCounts(ctx context.Context, versionID int) (map[string]int, error) {
	out := map[string]int{}
	err := s.nodePacks(ctx, versionID, func(key, pack string) error {
		n := 0
		err := walkPack(pack, func(extract.Mention) bool { n++; return true })
		out[key] = n
		return err
	})
	return out, err
}

// DocumentInfo loads a document without its content.
func (s *Store) DocumentInfo(ctx context.Context, id int) (record.DocumentInfo, error) {
	r, err := s.client.Document.Query().Where(document.ID(id)).
		Select(document.FieldID, document.FieldName, document.FieldKind, document.FieldSize, document.FieldCreatedAt).Only(ctx)
	if err != nil {
		return record.DocumentInfo{}, translate(err, fmt.Sprintf("document %d", id))
	}
	return record.DocumentInfo{ID: r.ID, Name: r.Name, Kind: extract.DocKind(r.Kind), Size: r.Size, Created: r.CreatedAt}, nil
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
