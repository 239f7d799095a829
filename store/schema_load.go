package store

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/kgschema"
	"github.com/kgstudio/kgstudio/ent/schemaversion"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// LoadSchema loads a schema version by name and number (0 = the latest) and
// returns it with its number.
func (s *Store) LoadSchema(ctx context.Context, name string, number int) (*schema.Schema, int, error) {
	q := s.Client.SchemaVersion.Query().Where(schemaversion.HasSchemaWith(kgschema.Name(name)))
	if number > 0 {
		q = q.Where(schemaversion.Number(number))
	}
	row, err := q.Order(ent.Desc(schemaversion.FieldNumber)).First(ctx)
	if err != nil {
		return nil, 0, translate(err, fmt.Sprintf("schema %s@%d", name, number))
	}
	sc, err := schema.ParseJSON([]byte(row.Spec))
	if err != nil {
		return nil, 0, fmt.Errorf("schema %s@%d: stored spec: %w", name, row.Number, err)
	}
	return sc, row.Number, nil
}

// SchemaChoices lists "NAME@LATEST" for every schema, newest first.
func (s *Store) SchemaChoices(ctx context.Context) ([]string, error) {
	rows, err := s.Client.KGSchema.Query().Order(ent.Desc(kgschema.FieldID)).
		WithVersions(func(q *ent.SchemaVersionQuery) { q.Order(ent.Desc(schemaversion.FieldNumber)) }).All(ctx)
	if err != nil {
		return nil, translate(err, "schemas")
	}
	var out []string
	for _, r := range rows {
		if len(r.Edges.Versions) > 0 {
			out = append(out, fmt.Sprintf("%s@%d", r.Name, r.Edges.Versions[0].Number))
		}
	}
	return out, nil
}
