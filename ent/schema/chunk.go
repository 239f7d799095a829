package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Chunk holds the schema definition for the Chunk entity: a piece of a
// document with its byte offsets. Chunks depend on the splitter settings, so
// they are unique by document, settings and index.
type Chunk struct{ ent.Schema }

// Fields of the Chunk.
func (Chunk) Fields() []ent.Field {
	return []ent.Field{
		field.Int("document_id").Immutable(),
		field.String("settings").Default("").Immutable(),
		field.Int("index").NonNegative().Immutable(),
		field.Text("text").Immutable(),
		field.Int("start").NonNegative().Immutable(),
		field.Int("end").NonNegative().Immutable(),
		field.Int("tokens").NonNegative().Default(0).Immutable(),
	}
}

// Edges of the Chunk.
func (Chunk) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("document", Document.Type).Ref("chunks").Field("document_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Chunk.
func (Chunk) Indexes() []ent.Index {
	return []ent.Index{index.Fields("document_id", "settings", "index").Unique()}
}
