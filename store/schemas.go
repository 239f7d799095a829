package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/entitytype"
	"github.com/kgstudio/kgstudio/ent/kgschema"
	"github.com/kgstudio/kgstudio/ent/schemaversion"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// DefaultSchemaName is the name of the built-in flat schema.
const DefaultSchemaName = "default"

// schemaNameRE bounds schema names: they appear in URLs and in "NAME@V"
// references, so no '@', '/', spaces or leading punctuation.
var schemaNameRE = regexp.MustCompile(`^[\p{L}\p{N}_](?:[\p{L}\p{N}_. -]{0,98}[\p{L}\p{N}_.-])?$`)

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
		return extract.Errorf(extract.KindInvalid, "schema name %q: use letters of any script, digits, spaces, _, . and - (at most 100, starting with a letter or digit, not ending with a space)", name)
	}
	return nil
}

// AnyBase, as the base of SaveSchema, skips the check on the latest version:
// the content goes on top of whatever is stored. Imports and the command line
// use it; an editor passes the version it started from instead.
const AnyBase = -1

// SaveSchema validates sc and stores it as the next version of the named
// schema, creating the schema if needed, in one transaction with its entity
// and relation type rows. Versions are never edited.
//
// base is the latest version the caller saw: the version an editor started
// from, or 0 for a schema it creates. Inside the transaction the save is
// refused with KindConflict when the latest stored version is not base, so
// of two saves on the same base only the first is stored and the second
// cannot silently undo it. AnyBase skips that check.
//
// When the latest version already has the same content hash, that version
// is returned with created == false, whatever the base: saving or importing
// unchanged content creates no version and undoes nothing.
//
// Errors: KindInvalid for a bad name, schema or base; KindConflict as above,
// or when another save creates the same schema or version at the same time.
func (s *Store) SaveSchema(ctx context.Context, name string, base int, sc *schema.Schema, note string) (version int, created bool, err error) {
	if err := ValidSchemaName(name); err != nil {
		return 0, false, err
	}
	if base < AnyBase {
		return 0, false, extract.Errorf(extract.KindInvalid, "the base version of %s must be 0 or more", name)
	}
	c := *sc
	c.Name = name
	hash := schema.Hash(&c)
	spec := string(schema.FormatJSON(&c))
	err = s.inTx(ctx, func(w *writeTx) error {
		tx := w.Client()
		schemaID, err := lockSchema(ctx, tx, name, c.Description)
		if err != nil {
			return err
		}
		latest, latestHash, err := latestSchemaVersion(ctx, tx, schemaID)
		if err != nil {
			return err
		}
		switch {
		case latest > 0 && latestHash == hash:
			version = latest
			return nil
		case base != AnyBase && base != latest:
			return staleBase(name, base, latest)
		}
		v, err := tx.SchemaVersion.Create().SetSchemaID(schemaID).SetNumber(latest + 1).SetNote(note).
			SetSpec(spec).SetHash(hash).SetCreatedAt(s.Now()).Save(ctx)
		if ent.IsConstraintError(err) {
			return extract.Wrap(extract.KindConflict, err, "%s@%d was saved by another save at the same time", name, latest+1)
		}
		if err != nil {
			return translate(err, "schema version")
		}
		if err := insertTypeRows(ctx, tx, v.ID, &c); err != nil {
			return err
		}
		version, created = v.Number, true
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	return version, created, nil
}

// lockSchema returns the id of the named schema, creating it if needed, and
// sets its description. The update comes first: on PostgreSQL it locks the
// schema's row until the transaction ends, so a concurrent save of the same
// schema waits for this one and then sees the version it stored. (SQLite
// runs one write transaction at a time.)
func lockSchema(ctx context.Context, tx *ent.Client, name, description string) (int, error) {
	if _, err := tx.KGSchema.Update().Where(kgschema.Name(name)).SetDescription(description).Save(ctx); err != nil {
		return 0, translate(err, "schema")
	}
	id, err := tx.KGSchema.Query().Where(kgschema.Name(name)).OnlyID(ctx)
	if ent.IsNotFound(err) {
		var row *ent.KGSchema
		row, err = tx.KGSchema.Create().SetName(name).SetDescription(description).Save(ctx)
		if ent.IsConstraintError(err) {
			return 0, extract.Wrap(extract.KindConflict, err, "schema %q was created by another save at the same time", name)
		}
		if err == nil {
			id = row.ID
		}
	}
	if err != nil {
		return 0, translate(err, "schema")
	}
	return id, nil
}

// latestSchemaVersion returns the number and content hash of a schema's
// latest version; 0 and "" when it has none.
func latestSchemaVersion(ctx context.Context, tx *ent.Client, schemaID int) (int, string, error) {
	last, err := tx.SchemaVersion.Query().Where(schemaversion.SchemaID(schemaID)).
		Order(ent.Desc(schemaversion.FieldNumber)).
		Select(schemaversion.FieldID, schemaversion.FieldNumber, schemaversion.FieldHash).First(ctx)
	switch {
	case ent.IsNotFound(err):
		return 0, "", nil
	case err != nil:
		return 0, "", translate(err, "schema version")
	}
	return last.Number, last.Hash, nil
}

// staleBase is the conflict of a save whose base is not the latest version.
func staleBase(name string, base, latest int) error {
	switch {
	case base == 0:
		return extract.Errorf(extract.KindConflict, "a schema named %q exists already (latest %s@%d); open it and edit it instead", name, name, latest)
	case latest > base:
		return extract.Errorf(extract.KindConflict,
			"%s@%d was saved after @%d, the version this save started from; saving would undo it. Open the latest version and make the change there",
			name, latest, base)
	default:
		return extract.Errorf(extract.KindConflict, "%s@%d does not exist (the latest version is @%d)", name, base, latest)
	}
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
func (s *Store) ListSchemas(ctx context.Context) ([]record.SchemaInfo, error) {
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
	out := make([]record.SchemaInfo, 0, len(rows))
	for _, r := range rows {
		info := record.SchemaInfo{Name: r.Name, Description: r.Description, Updated: r.CreatedAt, Versions: count[r.ID]}
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
func (s *Store) SchemaVersions(ctx context.Context, name string) ([]record.SchemaVersionInfo, error) {
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
	out := make([]record.SchemaVersionInfo, len(vs))
	for i, v := range vs {
		out[i] = record.SchemaVersionInfo{Number: v.Number, Note: v.Note, Hash: v.Hash, Types: types[v.ID], Created: v.CreatedAt}
	}
	return out, nil
}

// EnsureDefaultSchema stores the built-in flat schema under the name
// "default" unless a schema of that name exists; an existing one, edited or
// not, is left alone.
func (s *Store) EnsureDefaultSchema(ctx context.Context) error {
	_, _, err := s.SaveSchema(ctx, DefaultSchemaName, 0, schema.Default(), "built-in default")
	if extract.KindOf(err) == extract.KindConflict {
		// It exists already, or another instance created it at the same time.
		return nil
	}
	return err
}
