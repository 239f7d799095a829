package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RelationType holds the schema definition for the RelationType entity: a
// relation declared between two types of one schema version.
type RelationType struct{ ent.Schema }

// Fields of the RelationType.
func (RelationType) Fields() []ent.Field {
	return []ent.Field{
		field.Int("schema_version_id").Immutable(),
		field.String("name").NotEmpty().Immutable(),
		field.String("alias").Default("").Immutable(),
		field.String("source_type").NotEmpty().Immutable(),
		field.String("target_type").NotEmpty().Immutable(),
		field.Text("description").Default("").Immutable(),
		field.Bool("symmetric").Default(false).Immutable(),
		field.String("inverse").Default("").Immutable(),
	}
}

// Edges of the RelationType.
func (RelationType) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("schema_version", SchemaVersion.Type).Ref("relation_types").Field("schema_version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the RelationType.
func (RelationType) Indexes() []ent.Index {
	return []ent.Index{index.Fields("schema_version_id", "source_type", "name", "target_type")}
}
