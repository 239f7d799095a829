package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// EdgeText holds a long edge description of a version once: the edges one
// sentence gives all carry that sentence, and each refers to it by hash
// (Edge.description_ref) instead of repeating it.
type EdgeText struct{ ent.Schema }

// Fields of the EdgeText.
func (EdgeText) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.Int64("hash"),
		field.Text("text"),
	}
}

// Edges of the EdgeText.
func (EdgeText) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("edge_texts").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the EdgeText.
func (EdgeText) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id", "hash").Unique(),
	}
}
