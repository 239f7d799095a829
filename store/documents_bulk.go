package store

import (
	"context"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/document"
	"github.com/kgstudio/kgstudio/extract"
)

// AddDocuments stores many documents (the files of a folder or a zip, the
// passages of a corpus) in one transaction, BatchSize rows a statement.
// As with AddDocument, content is stored once: a document whose content
// hash is stored already, or appears earlier in docs, is answered with the
// stored one. The answer holds one document per document given, in order,
// with its id, and whether it was created now (on PostgreSQL two writers
// adding the same new content at once may both say so). Nothing is stored
// when any batch fails.
func (s *Store) AddDocuments(ctx context.Context, docs []extract.Document) ([]extract.Document, []bool, error) {
	for _, d := range docs {
		if d.SHA256 == "" {
			return nil, nil, extract.Errorf(extract.KindInvalid, "document %q has no content hash", d.Name)
		}
	}
	var out []extract.Document
	var created []bool
	err := s.inTx(ctx, func(w *writeTx) error {
		// A retried transaction starts over.
		out, created = make([]extract.Document, len(docs)), make([]bool, len(docs))
		tx := w.Client()
		// stored maps a content hash to the document that holds it.
		stored := make(map[string]extract.Document, len(docs))
		for start := 0; start < len(docs); start += BatchSize {
			part := docs[start:min(start+BatchSize, len(docs))]
			var ask []string
			for _, d := range part {
				if _, ok := stored[d.SHA256]; !ok {
					ask = append(ask, d.SHA256)
				}
			}
			if len(ask) > 0 {
				if err := lookUpDocuments(ctx, tx, ask, stored); err != nil {
					return err
				}
			}
			var bulk []*ent.DocumentCreate
			var added []string
			fresh := map[string]bool{}
			for _, d := range part {
				if _, ok := stored[d.SHA256]; ok || fresh[d.SHA256] {
					continue
				}
				fresh[d.SHA256] = true
				kind := document.Kind(d.Kind)
				if document.KindValidator(kind) != nil {
					kind = document.KindText
				}
				bulk = append(bulk, tx.Document.Create().SetName(d.Name).SetKind(kind).SetContent(d.Content).
					SetSha256(d.SHA256).SetSize(len(d.Content)))
				added = append(added, d.SHA256)
			}
			if len(bulk) > 0 {
				// A document stored by another writer since the look-up
				// (PostgreSQL) is taken as it is.
				if err := tx.Document.CreateBulk(bulk...).OnConflictColumns(document.FieldSha256).DoNothing().Exec(ctx); err != nil {
					return translate(err, "documents")
				}
				if err := lookUpDocuments(ctx, tx, added, stored); err != nil {
					return err
				}
			}
			for i, d := range part {
				old, ok := stored[d.SHA256]
				if !ok {
					return extract.Errorf(extract.KindInternal, "document %q was not stored", d.Name)
				}
				j := start + i
				out[j] = extract.Document{ID: old.ID, Name: old.Name, Kind: old.Kind, Content: d.Content, SHA256: d.SHA256}
				if fresh[d.SHA256] {
					created[j] = true
					delete(fresh, d.SHA256) // a second copy in docs is not new
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, created, nil
}

// lookUpDocuments adds the stored documents with the given content hashes
// to stored, without their content.
func lookUpDocuments(ctx context.Context, tx *ent.Client, hashes []string, stored map[string]extract.Document) error {
	rows, err := tx.Document.Query().Where(document.Sha256In(hashes...)).
		Select(document.FieldID, document.FieldName, document.FieldKind, document.FieldSha256).All(ctx)
	if err != nil {
		return translate(err, "documents")
	}
	for _, r := range rows {
		stored[r.Sha256] = extract.Document{ID: r.ID, Name: r.Name, Kind: extract.DocKind(r.Kind), SHA256: r.Sha256}
	}
	return nil
}
