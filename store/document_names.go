package store

import (
	"context"

	"github.com/kgstudio/kgstudio/ent/document"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
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

// DocumentInfos returns the name and kind of each document of ids that
// exists, by id, BatchSize at a query (a run of thousands of passages
// was read one query a document).
func (s *Store) DocumentInfos(ctx context.Context, ids []int) (map[int]record.DocumentInfo, error) {
	out := make(map[int]record.DocumentInfo, len(ids))
	for start := 0; start < len(ids); start += BatchSize {
		rows, err := s.client.Document.Query().Where(document.IDIn(ids[start:min(start+BatchSize, len(ids))]...)).
			Select(document.FieldID, document.FieldName, document.FieldKind).All(ctx)
		if err != nil {
			return nil, translate(err, "documents")
		}
		for _, r := range rows {
			out[r.ID] = record.DocumentInfo{ID: r.ID, Name: r.Name, Kind: extract.DocKind(r.Kind)}
		}
	}
	return out, nil
}

// HasDocumentKind reports whether some of the documents with these IDs
// are of kind (see extract.Document.Kind), BatchSize at a query.
func (s *Store) HasDocumentKind(ctx context.Context, ids []int, kind extract.DocKind) (bool, error) {
	for start := 0; start < len(ids); start += BatchSize {
		ok, err := s.client.Document.Query().Where(document.IDIn(ids[start:min(start+BatchSize, len(ids))]...),
			document.KindEQ(document.Kind(kind))).Exist(ctx)
		if err != nil {
			return false, translate(err, "document kinds")
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}
