package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/entitytype"
	"github.com/kgstudio/kgstudio/ent/kgschema"
	"github.com/kgstudio/kgstudio/ent/schemaversion"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// DefaultSchemaName is the name of the built-in flat schema.
const DefaultSchemaName = "default"

// schemaNameRE bounds schema names: they appear in URLs and in "NAME@V"
// references, so no '@', '/', spaces or leading punctuation.
var schemaNameRE = regexp.MustCompile(`^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,99}$`)

// reservedSchemaNames would clash with the schema pages' own routes.
var reservedSchemaNames = map[string]bool{"new": true, "editor": true}

// ValidSchemaName checks a schema name.
func ValidSchemaName(name string) error {
	switch {
	case name == "":
		return extract.Errorf(extract.KindInvalid, "a schema needs a name")
	case reservedSchemaNames[name]:
		return extract.Errorf(extract.KindInvalid, "the schema name %q is reserved", name)
	case !schemaNameRE.MatchString(name):
		return extract.Errorf(extract.KindInvalid, "schema name %q: use letters, digits, _, . and - (at most 100, starting with a letter or digit)", name)
	}
	return nil
}

// SchemaInfo is a schema in a list.
type SchemaInfo struct {
	Name        string
	Description string
	Latest      int
	Types       int
	Versions    int
	Updated     time.Time
}

// SchemaVersionInfo is one version in a schema's history.
type SchemaVersionInfo struct {
	Number  int
	Note    string
	Hash    string
	Types   int
	Created time.Time
}

// SaveSchema validates s and stores it as the next version of the named
// schema, creating the schema if needed, in one transaction with its entity
// and relation type rows. When the latest version already has the same
// content hash, that version is returned with created == false: saving or
// importing unchanged content creates no version. Versions are never edited.
func (s *Store) SaveSchema(ctx context.Context, name string, sc *schema.Schema, note string) (version int, created bool, err error) {
	if err := ValidSchemaName(name); err != nil {
		return 0, false, err
	}
	if err := schema.ProblemsError(schema.Validate(sc)); err != nil {
		return 0, false, err
	}
	c := *sc
	c.Name = name
	hash := schema.Hash(&c)
	spec := string(schema.FormatJSON(&c))
	err = s.inTx(ctx, func(w *writeTx) error {
		tx := w.Client()
		row, err := tx.KGSchema.Query().Where(kgschema.Name(name)).Only(ctx)
		if ent.IsNotFound(err) {
			row, err = tx.KGSchema.Create().SetName(name).SetDescription(c.Description).Save(ctx)
		}
		if err != nil {
			return translate(err, "schema")
		}
		last, err := tx.SchemaVersion.Query().Where(schemaversion.SchemaID(row.ID)).
			Order(ent.Desc(schemaversion.FieldNumber)).
			Select(schemaversion.FieldID, schemaversion.FieldNumber, schemaversion.FieldHash).First(ctx)
		num := 1
		switch {
		case err == nil && last.Hash == hash:
			version = last.Number
			return nil
		case err == nil:
			num = last.Number + 1
		case !ent.IsNotFound(err):
			return translate(err, "schema version")
		}
		v, err := tx.SchemaVersion.Create().SetSchemaID(row.ID).SetNumber(num).SetNote(note).
			SetSpec(spec).SetHash(hash).SetCreatedAt(s.Now()).Save(ctx)
		if err != nil {
			return translate(err, "schema version")
		}
		if err := insertTypeRows(ctx, tx, v.ID, &c); err != nil {
			return err
		}
		if row.Description != c.Description {
			if err := tx.KGSchema.UpdateOneID(row.ID).SetDescription(c.Description).Exec(ctx); err != nil {
				return translate(err, "schema")
			}
		}
		version, created = num, true
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	return version, created, nil
}

// insertTypeRows writes the queryable rows of a version: one per entity
// type (properties as JSON) and one per relation.
func insertTypeRows(ctx context.Context, tx *ent.Client, versionID int, sc *schema.Schema) error {
	types := make([]*ent.EntityTypeCreate, 0, len(sc.Types))
	var rels []*ent.RelationTypeCreate
	for _, t := range sc.Types {
		props, err := propertyMaps(t.Properties)
		if err != nil {
			return err
		}
		types = append(types, tx.EntityType.Create().SetSchemaVersionID(versionID).SetName(t.Name).
			SetAlias(t.Alias).SetKind(entitytype.Kind(t.Kind)).SetDescription(t.Description).
			SetParent(t.Parent).SetProperties(props))
		for _, r := range t.Relations {
			rels = append(rels, tx.RelationType.Create().SetSchemaVersionID(versionID).SetName(r.Name).
				SetAlias(r.Alias).SetSourceType(t.Name).SetTargetType(r.Target).SetDescription(r.Description))
		}
	}
	for len(types) > 0 {
		n := min(len(types), 200)
		if err := tx.EntityType.CreateBulk(types[:n]...).Exec(ctx); err != nil {
			return translate(err, "entity type")
		}
		types = types[n:]
	}
	for len(rels) > 0 {
		n := min(len(rels), 200)
		if err := tx.RelationType.CreateBulk(rels[:n]...).Exec(ctx); err != nil {
			return translate(err, "relation type")
		}
		rels = rels[n:]
	}
	return nil
}

// propertyMaps converts properties to the generic JSON form of the rows.
func propertyMaps(ps []schema.Property) ([]map[string]any, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return nil, fmt.Errorf("encode properties: %w", err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("encode properties: %w", err)
	}
	return out, nil
}

// SchemaVersion loads one version of a named schema; number 0 means the
// latest. It returns the schema and the version number.
func (s *Store) SchemaVersion(ctx context.Context, name string, number int) (*schema.Schema, int, error) {
	if number < 0 {
		return nil, 0, extract.Errorf(extract.KindInvalid, "version must be a positive number")
	}
	row, err := s.client.KGSchema.Query().Where(kgschema.Name(name)).Only(ctx)
	if err != nil {
		return nil, 0, translate(err, fmt.Sprintf("schema %q", name))
	}
	q := s.client.SchemaVersion.Query().Where(schemaversion.SchemaID(row.ID))
	var v *ent.SchemaVersion
	if number == 0 {
		v, err = q.Order(ent.Desc(schemaversion.FieldNumber)).First(ctx)
	} else {
		v, err = q.Where(schemaversion.Number(number)).Only(ctx)
	}
	if err != nil {
		if number == 0 {
			return nil, 0, translate(err, fmt.Sprintf("schema %q", name))
		}
		return nil, 0, translate(err, fmt.Sprintf("schema version %s@%d", name, number))
	}
	sc, err := schema.ParseJSON([]byte(v.Spec))
	if err != nil {
		return nil, 0, fmt.Errorf("stored schema %s@%d: %w", name, v.Number, err)
	}
	sc.Name = name
	return sc, v.Number, nil
}

// ListSchemas lists schemas by name with their latest version.
func (s *Store) ListSchemas(ctx context.Context) ([]SchemaInfo, error) {
	rows, err := s.client.KGSchema.Query().Order(ent.Asc(kgschema.FieldName)).All(ctx)
	if err != nil {
		return nil, translate(err, "schemas")
	}
	vs, err := s.client.SchemaVersion.Query().
		Select(schemaversion.FieldID, schemaversion.FieldSchemaID, schemaversion.FieldNumber, schemaversion.FieldCreatedAt).
		All(ctx)
	if err != nil {
		return nil, translate(err, "schema versions")
	}
	latest := map[int]*ent.SchemaVersion{}
	count := map[int]int{}
	for _, v := range vs {
		count[v.SchemaID]++
		if cur, ok := latest[v.SchemaID]; !ok || v.Number > cur.Number {
			latest[v.SchemaID] = v
		}
	}
	ids := make([]int, 0, len(latest))
	for _, v := range latest {
		ids = append(ids, v.ID)
	}
	types, err := s.typeCounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]SchemaInfo, 0, len(rows))
	for _, r := range rows {
		info := SchemaInfo{Name: r.Name, Description: r.Description, Updated: r.CreatedAt, Versions: count[r.ID]}
		if v := latest[r.ID]; v != nil {
			info.Latest, info.Types, info.Updated = v.Number, types[v.ID], v.CreatedAt
		}
		out = append(out, info)
	}
	return out, nil
}

// typeCounts counts the entity types of schema versions by version id.
func (s *Store) typeCounts(ctx context.Context, versionIDs []int) (map[int]int, error) {
	out := map[int]int{}
	if len(versionIDs) == 0 {
		return out, nil
	}
	var res []struct {
		SchemaVersionID int `json:"schema_version_id"`
		Count           int `json:"count"`
	}
	err := s.client.EntityType.Query().Where(entitytype.SchemaVersionIDIn(versionIDs...)).
		GroupBy(entitytype.FieldSchemaVersionID).Aggregate(ent.Count()).Scan(ctx, &res)
	if err != nil {
		return nil, translate(err, "entity types")
	}
	for _, r := range res {
		out[r.SchemaVersionID] = r.Count
	}
	return out, nil
}

// SchemaVersions returns the history of a schema, newest first.
func (s *Store) SchemaVersions(ctx context.Context, name string) ([]SchemaVersionInfo, error) {
	row, err := s.client.KGSchema.Query().Where(kgschema.Name(name)).Only(ctx)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("schema %q", name))
	}
	vs, err := s.client.SchemaVersion.Query().Where(schemaversion.SchemaID(row.ID)).
		Order(ent.Desc(schemaversion.FieldNumber)).
		Select(schemaversion.FieldID, schemaversion.FieldNumber, schemaversion.FieldNote,
			schemaversion.FieldHash, schemaversion.FieldCreatedAt).All(ctx)
	if err != nil {
		return nil, translate(err, "schema versions")
	}
	ids := make([]int, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	types, err := s.typeCounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]SchemaVersionInfo, len(vs))
	for i, v := range vs {
		out[i] = SchemaVersionInfo{Number: v.Number, Note: v.Note, Hash: v.Hash, Types: types[v.ID], Created: v.CreatedAt}
	}
	return out, nil
}

// EnsureDefaultSchema stores the built-in flat schema under the name
// "default" unless a schema of that name exists; an existing one, edited or
// not, is left alone.
func (s *Store) EnsureDefaultSchema(ctx context.Context) error {
	n, err := s.client.KGSchema.Query().Where(kgschema.Name(DefaultSchemaName)).Count(ctx)
	if err != nil {
		return translate(err, "schema")
	}
	if n > 0 {
		return nil
	}
	_, _, err = s.SaveSchema(ctx, DefaultSchemaName, schema.Default(), "built-in default")
	if extract.KindOf(err) == extract.KindConflict {
		// Another instance created it at the same time.
		return nil
	}
	return err
}
