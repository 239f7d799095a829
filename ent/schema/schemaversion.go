package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SchemaVersion holds the schema definition for the SchemaVersion entity: one
// immutable state of a schema. Spec is the canonical JSON of the whole
// schema; its entity and relation types are also kept as rows for queries.
type SchemaVersion struct{ ent.Schema }

// Mixin of the SchemaVersion.
func (SchemaVersion) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the SchemaVersion.
func (SchemaVersion) Fields() []ent.Field {
	return []ent.Field{
		field.Int("schema_id").Immutable(),
		field.Int("number").Positive().Immutable(),
		field.String("note").Default("").Immutable(),
		field.Text("spec").Immutable(),
		field.String("hash").Immutable(),
	}
}

// Edges of the SchemaVersion.
func (SchemaVersion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("schema", KGSchema.Type).Ref("versions").Field("schema_id").Unique().Required().Immutable(),
		edge.To("entity_types", EntityType.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("relation_types", RelationType.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the SchemaVersion.
func (SchemaVersion) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("schema_id", "number").Unique(),
		index.Fields("schema_id", "hash"),
	}
}
