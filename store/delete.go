package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/document"
	"github.com/kgstudio/kgstudio/ent/extraction"
	"github.com/kgstudio/kgstudio/ent/extractionversion"
	"github.com/kgstudio/kgstudio/ent/kgschema"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Deleting
//
// A version goes with everything it holds (nodes, edges, mentions,
// operations, chunk runs: the foreign keys cascade; its vectors and their
// stats, which have no foreign key, are deleted with it); an extraction whose
// last version goes is deleted too, so no empty extraction is left behind.
// A document or schema that a version still uses is not deleted: the
// conflict error lists the versions (at most listUsers of them). Model
// calls stay in the call cache, which is keyed by request, not by version,
// and embeddings in the embedding cache, keyed by model and text.

// listUsers bounds the version labels a conflict message lists.
const listUsers = 10

// DeleteVersion deletes a version and what it holds, and its extraction
// when no other version is left. It returns a not-found error for an
// unknown id and a conflict error for a version that is queued or running
// (cancel it first).
func (s *Store) DeleteVersion(ctx context.Context, id int) error {
	return s.inTx(ctx, func(tx *writeTx) error {
		c := tx.Client()
		v, err := c.ExtractionVersion.Query().Where(extractionversion.ID(id)).WithExtraction().Only(ctx)
		if err != nil {
			return translate(err, "version")
		}
		label := fmt.Sprintf("%s@%d", v.Edges.Extraction.Name, v.Number)
		if st := v.Status; st == record.StatusQueued || st == record.StatusRunning {
			return extract.Errorf(extract.KindConflict, "%s is %s: cancel it before deleting it", label, st)
		}
		if err := refusedAsReference(ctx, c, map[string]bool{label: true}, -1); err != nil {
			return err
		}
		if err := deleteVectors(ctx, c, id); err != nil {
			return err
		}
		if err := c.ExtractionVersion.DeleteOneID(id).Exec(ctx); err != nil {
			return translate(err, "version")
		}
		left, err := c.ExtractionVersion.Query().Where(extractionversion.ExtractionID(v.ExtractionID)).Count(ctx)
		if err != nil {
			return fmt.Errorf("count versions: %w", err)
		}
		if left == 0 {
			return translate(c.Extraction.DeleteOneID(v.ExtractionID).Exec(ctx), "extraction")
		}
		return nil
	})
}

// DeleteExtraction deletes an extraction with all its versions and returns
// how many versions went. It returns a not-found error for an unknown name
// and a conflict error while one of its versions is queued or running.
func (s *Store) DeleteExtraction(ctx context.Context, name string) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx *writeTx) error {
		c := tx.Client()
		ex, err := c.Extraction.Query().Where(extraction.Name(name)).WithVersions().Only(ctx)
		if err != nil {
			return translate(err, "extraction "+name)
		}
		var active []string
		for _, v := range ex.Edges.Versions {
			if st := v.Status; st == record.StatusQueued || st == record.StatusRunning {
				active = append(active, fmt.Sprintf("%s@%d", name, v.Number))
			}
		}
		if len(active) > 0 {
			return extract.Errorf(extract.KindConflict, "%s %s still running: cancel before deleting the extraction", labels(active), isAre(len(active)))
		}
		ids := make([]int, 0, len(ex.Edges.Versions))
		own := map[string]bool{}
		for _, v := range ex.Edges.Versions {
			ids = append(ids, v.ID)
			own[fmt.Sprintf("%s@%d", name, v.Number)] = true
		}
		if err := refusedAsReference(ctx, c, own, ex.ID); err != nil {
			return err
		}
		if err := deleteVectors(ctx, c, ids...); err != nil {
			return err
		}
		if n, err = c.ExtractionVersion.Delete().Where(extractionversion.ExtractionID(ex.ID)).Exec(ctx); err != nil {
			return translate(err, "versions")
		}
		return translate(c.Extraction.DeleteOneID(ex.ID).Exec(ctx), "extraction")
	})
	return n, err
}

// DeleteDocument deletes a document and its chunks. It returns a not-found
// error for an unknown id and a conflict error, listing them, while
// versions use the document.
func (s *Store) DeleteDocument(ctx context.Context, id int) error {
	return s.inTx(ctx, func(tx *writeTx) error {
		c := tx.Client()
		d, err := c.Document.Query().Where(document.ID(id)).Select(document.FieldID, document.FieldName).Only(ctx)
		if err != nil {
			return translate(err, "document")
		}
		users, err := versionsWhere(ctx, c, func(v *ent.ExtractionVersion) bool { return slices.Contains(v.DocumentIds, id) })
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return extract.Errorf(extract.KindConflict, "document %q is used by %s: delete %s first", d.Name, labels(users), themOrIt(len(users)))
		}
		return translate(c.Document.DeleteOneID(id).Exec(ctx), "document")
	})
}

// DeleteSchema deletes a schema with all its versions. It returns a
// not-found error for an unknown name, an invalid error for the built-in
// default schema and a conflict error, listing them, while versions were
// run with one of its versions.
func (s *Store) DeleteSchema(ctx context.Context, name string) error {
	if name == DefaultSchemaName {
		return extract.Errorf(extract.KindInvalid, "the built-in default schema cannot be deleted")
	}
	return s.inTx(ctx, func(tx *writeTx) error {
		c := tx.Client()
		sc, err := c.KGSchema.Query().Where(kgschema.Name(name)).Only(ctx)
		if err != nil {
			return translate(err, "schema "+name)
		}
		users, err := versionsWhere(ctx, c, func(v *ent.ExtractionVersion) bool {
			return v.Config.SchemaName == name
		})
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return extract.Errorf(extract.KindConflict, "schema %s is used by %s: delete %s first", name, labels(users), themOrIt(len(users)))
		}
		return translate(c.KGSchema.DeleteOneID(sc.ID).Exec(ctx), "schema "+name)
	})
}

// versionsWhere returns the labels of the versions that match, oldest
// first.
func versionsWhere(ctx context.Context, c *ent.Client, match func(*ent.ExtractionVersion) bool) ([]string, error) {
	vs, err := c.ExtractionVersion.Query().WithExtraction().
		Select(extractionversion.FieldID, extractionversion.FieldExtractionID, extractionversion.FieldNumber,
			extractionversion.FieldDocumentIds, extractionversion.FieldConfig).
		Order(ent.Asc(extractionversion.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	var out []string
	for _, v := range vs {
		if match(v) {
			out = append(out, fmt.Sprintf("%s@%d", v.Edges.Extraction.Name, v.Number))
		}
	}
	return out, nil
}

// refusedAsReference is a conflict error when a version of another
// extraction than skip names one of the labels as its run's reference
// graph (injection), listing those versions; nil otherwise. Versions of
// the extraction being deleted go with it.
func refusedAsReference(ctx context.Context, c *ent.Client, targets map[string]bool, skip int) error {
	var hit string
	users, err := versionsWhere(ctx, c, func(v *ent.ExtractionVersion) bool {
		if v.ExtractionID == skip || !targets[v.Config.Reference] {
			return false
		}
		hit = v.Config.Reference
		return true
	})
	if err != nil || len(users) == 0 {
		return err
	}
	return extract.Errorf(extract.KindConflict, "%s is the reference graph of %s: delete %s first", hit, labels(users), themOrIt(len(users)))
}

// labels lists version labels, at most listUsers of them.
func labels(ls []string) string {
	if len(ls) > listUsers {
		return strings.Join(ls[:listUsers], ", ") + fmt.Sprintf(" and %d more", len(ls)-listUsers)
	}
	return strings.Join(ls, ", ")
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func themOrIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
