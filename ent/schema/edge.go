package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Edge holds the schema definition for the Edge entity: a labelled relation
// between two node keys of one version, unique by (version, source, label,
// target).
type Edge struct{ ent.Schema }

// Fields of the Edge.
func (Edge) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.String("source").NotEmpty(),
		field.String("target").NotEmpty(),
		field.String("label").Default(""),
		field.Text("keywords").Default(""),
		field.Text("description").Default(""),
		// description_ref, when not 0, names the version's EdgeText that is
		// the description (description is then empty).
		field.Int64("description_ref").Default(0),
		field.Float("weight").Default(1),
		field.Text("properties").Default(""),
		// mentions is the edge's provenance as a pack of its mentions
		// (see store/mention_pack.go).
		field.Text("mentions").Default(""),
	}
}

// Edges of the Edge.
func (Edge) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("edges").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Edge.
func (Edge) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id", "source", "label", "target").Unique(),
		index.Fields("version_id", "target"),
	}
}
