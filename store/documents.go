package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/chunk"
	"github.com/kgstudio/kgstudio/ent/document"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// AddDocument stores a document unless one with the same content hash
// exists, in which case that one is returned with created == false.
func (s *Store) AddDocument(ctx context.Context, d extract.Document) (extract.Document, bool, error) {
	if d.SHA256 == "" {
		return d, false, extract.Errorf(extract.KindInvalid, "document %q has no content hash", d.Name)
	}
	if old, err := s.client.Document.Query().Where(document.Sha256(d.SHA256)).Only(ctx); err == nil {
		return documentFromEnt(old), false, nil
	} else if !ent.IsNotFound(err) {
		return d, false, translate(err, "document")
	}
	kind := document.Kind(d.Kind)
	if document.KindValidator(kind) != nil {
		kind = document.KindText
	}
	row, err := s.client.Document.Create().SetName(d.Name).SetKind(kind).SetContent(d.Content).
		SetSha256(d.SHA256).SetSize(len(d.Content)).Save(ctx)
	if ent.IsConstraintError(err) {
		// Lost a race with an identical upload.
		old, qerr := s.client.Document.Query().Where(document.Sha256(d.SHA256)).Only(ctx)
		if qerr == nil {
			return documentFromEnt(old), false, nil
		}
	}
	if err != nil {
		return d, false, translate(err, "document")
	}
	return documentFromEnt(row), true, nil
}

// documentFromEnt converts a document row.
func documentFromEnt(d *ent.Document) extract.Document {
	return extract.Document{ID: d.ID, Name: d.Name, Kind: extract.DocKind(d.Kind), Content: d.Content, SHA256: d.Sha256}
}

// ListDocuments lists documents, newest first, without their content.
func (s *Store) ListDocuments(ctx context.Context, limit int) ([]record.DocumentInfo, error) {
	q := s.client.Document.Query().Order(ent.Desc(document.FieldID))
	if limit > 0 {
		q = q.Limit(limit)
	}
	rows, err := q.Select(document.FieldID, document.FieldName, document.FieldKind, document.FieldSize, document.FieldCreatedAt).All(ctx)
	if err != nil {
		return nil, translate(err, "documents")
	}
	out := make([]record.DocumentInfo, len(rows))
	for i, r := range rows {
		out[i] = record.DocumentInfo{ID: r.ID, Name: r.Name, Kind: extract.DocKind(r.Kind), Size: r.Size, Created: r.CreatedAt}
	}
	return out, nil
}

// Document loads one document with its content.
func (s *Store) Document(ctx context.Context, id int) (extract.Document, error) {
	row, err := s.client.Document.Get(ctx, id)
	if err != nil {
		return extract.Document{}, translate(err, fmt.Sprintf("document %d", id))
	}
	return documentFromEnt(row), nil
}

// Documents loads several documents in the given order.
func (s *Store) Documents(ctx context.Context, ids []int) ([]extract.Document, error) {
	out := make([]extract.Document, 0, len(ids))
	for _, id := range ids {
		d, err := s.Document(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// DocumentByName finds a document by exact name (the newest if several).
func (s *Store) DocumentByName(ctx context.Context, name string) (extract.Document, error) {
	row, err := s.client.Document.Query().Where(document.Name(name)).Order(ent.Desc(document.FieldID)).First(ctx)
	if err != nil {
		return extract.Document{}, translate(err, fmt.Sprintf("document %q", name))
	}
	return documentFromEnt(row), nil
}

// SaveChunks stores the chunks of a document for one splitter setting,
// idempotently. A chunk whose text is the document's content between its
// offsets (a text chunk; a dialogue turn is written out) keeps only the
// offsets: the text is stored once, in the document.
func (s *Store) SaveChunks(ctx context.Context, docID int, settings string, chunks []extract.Chunk) error {
	doc, err := s.client.Document.Query().Where(document.ID(docID)).Select(document.FieldContent).Only(ctx)
	if err != nil {
		return translate(err, "document")
	}
	return s.inTx(ctx, func(w *writeTx) error {
		tx := w.Client()
		for start := 0; start < len(chunks); start += BatchSize {
			part := chunks[start:min(start+BatchSize, len(chunks))]
			bulk := make([]*ent.ChunkCreate, len(part))
			for i, c := range part {
				text := c.Text
				if text != "" && sliceOf(doc.Content, c.Start, c.End) == text {
					text = ""
				}
				bulk[i] = tx.Chunk.Create().SetDocumentID(docID).SetSettings(settings).SetIndex(c.Index).
					SetText(text).SetStart(c.Start).SetEnd(c.End).SetTokens(c.Tokens)
			}
			err := tx.Chunk.CreateBulk(bulk...).OnConflictColumns(chunk.FieldDocumentID, chunk.FieldSettings, chunk.FieldIndex).
				DoNothing().Exec(ctx)
			if err != nil {
				return fmt.Errorf("write chunks: %w", err)
			}
		}
		return nil
	})
}

// Chunks loads a document's chunks for one splitter setting.
func (s *Store) Chunks(ctx context.Context, docID int, settings string) ([]extract.Chunk, error) {
	rows, err := s.client.Chunk.Query().Where(chunk.DocumentID(docID), chunk.Settings(settings)).Order(chunk.ByIndex()).All(ctx)
	if err != nil {
		return nil, translate(err, "chunks")
	}
	out := make([]extract.Chunk, len(rows))
	var content *string // read once, for the chunks stored as offsets
	for i, c := range rows {
		out[i] = extract.Chunk{DocumentID: c.DocumentID, Index: c.Index, Text: c.Text, Start: c.Start, End: c.End, Tokens: c.Tokens}
		if c.Text != "" || c.End <= c.Start {
			continue
		}
		if content == nil {
			d, err := s.client.Document.Query().Where(document.ID(docID)).Select(document.FieldContent).Only(ctx)
			if err != nil {
				return nil, translate(err, "document")
			}
			content = &d.Content
		}
		out[i].Text = sliceOf(*content, c.Start, c.End)
	}
	return out, nil
}

// ChunksOf returns the chunks of several documents, each document's under
// its own chunk settings (settings[id]), by document: what Chunks returns
// for each, read BatchSize documents at a query instead of two queries a
// document (a version of 5,768 passages took 17k queries, 0.7 CPU-s, to
// read its chunks).
func (s *Store) ChunksOf(ctx context.Context, ids []int, settings map[int]string) (map[int][]extract.Chunk, error) {
	out := make(map[int][]extract.Chunk, len(ids))
	for start := 0; start < len(ids); start += BatchSize {
		batch := ids[start:min(start+BatchSize, len(ids))]
		sets := make([]string, 0, 2)
		for _, id := range batch {
			if st := settings[id]; !slices.Contains(sets, st) {
				sets = append(sets, st)
			}
		}
		rows, err := s.client.Chunk.Query().Where(chunk.DocumentIDIn(batch...), chunk.SettingsIn(sets...)).
			Order(chunk.ByDocumentID(), chunk.ByIndex()).All(ctx)
		if err != nil {
			return nil, translate(err, "chunks")
		}
		var need []int // documents with chunks stored as offsets
		for _, c := range rows {
			if c.Settings != settings[c.DocumentID] {
				continue
			}
			if c.Text == "" && c.End > c.Start && (len(need) == 0 || need[len(need)-1] != c.DocumentID) {
				need = append(need, c.DocumentID)
			}
			out[c.DocumentID] = append(out[c.DocumentID], extract.Chunk{DocumentID: c.DocumentID, Index: c.Index,
				Text: c.Text, Start: c.Start, End: c.End, Tokens: c.Tokens})
		}
		if len(need) == 0 {
			continue
		}
		docs, err := s.client.Document.Query().Where(document.IDIn(need...)).Select(document.FieldID, document.FieldContent).All(ctx)
		if err != nil {
			return nil, translate(err, "documents")
		}
		for _, d := range docs {
			cs := out[d.ID]
			for i := range cs {
				if cs[i].Text == "" && cs[i].End > cs[i].Start {
					cs[i].Text = sliceOf(d.Content, cs[i].Start, cs[i].End)
				}
			}
		}
	}
	return out, nil
}

// sliceOf is content[start:end], or "" when the offsets fall outside it.
func sliceOf(content string, start, end int) string {
	if start < 0 || end > len(content) || start > end {
		return ""
	}
	return content[start:end]
}
