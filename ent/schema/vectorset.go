package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// VectorSet holds the schema definition for the VectorSet entity: the
// vectorizer step's record of one extraction version: the embedding model,
// the number of vectors and what the embedding calls used.
type VectorSet struct{ ent.Schema }

// Mixin of the VectorSet.
func (VectorSet) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the VectorSet.
func (VectorSet) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Unique().Immutable(),
		field.String("embedder"),
		field.String("model"),
		field.Int("dimensions").NonNegative(),
		field.Int("vectors").NonNegative().Default(0),
		field.Int("calls").NonNegative().Default(0),
		field.Int("tokens").NonNegative().Default(0),
		field.Int("cached").NonNegative().Default(0),
	}
}
