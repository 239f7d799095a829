package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// KGSchema holds the schema definition for the KGSchema entity: a named line
// of immutable knowledge-graph schema versions (table "schemas").
type KGSchema struct{ ent.Schema }

// Annotations of the KGSchema.
func (KGSchema) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "schemas"}}
}

// Mixin of the KGSchema.
func (KGSchema) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the KGSchema.
func (KGSchema) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().Unique(),
		field.String("description").Default(""),
	}
}

// Edges of the KGSchema.
func (KGSchema) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("versions", SchemaVersion.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}
