package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// EntityType holds the schema definition for the EntityType entity: a typed
// entity, concept or event declaration of one schema version.
type EntityType struct{ ent.Schema }

// Fields of the EntityType.
func (EntityType) Fields() []ent.Field {
	return []ent.Field{
		field.Int("schema_version_id").Immutable(),
		field.String("name").NotEmpty().Immutable(),
		field.String("alias").Default("").Immutable(),
		field.Enum("kind").Values("entity", "concept", "event", "standard", "basic", "index").Default("entity").Immutable(),
		field.Text("description").Default("").Immutable(),
		field.String("parent").Default("").Immutable(),
		field.JSON("properties", []map[string]any{}).Optional().Immutable(),
	}
}

// Edges of the EntityType.
func (EntityType) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("schema_version", SchemaVersion.Type).Ref("entity_types").Field("schema_version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the EntityType.
func (EntityType) Indexes() []ent.Index {
	return []ent.Index{index.Fields("schema_version_id", "name").Unique()}
}
