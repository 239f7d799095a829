package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Node holds the schema definition for the Node entity: one entity, concept
// or event of an extraction version, unique by version and key.
type Node struct{ ent.Schema }

// Fields of the Node.
func (Node) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.String("key").NotEmpty(),
		field.String("name"),
		field.String("type").Default(""),
		field.Text("description").Default(""),
		field.Text("properties").Default(""),
		// degree counts the version's edges at this node whose both ends
		// are nodes of the version (a self-loop once); the store keeps it
		// current on every write, so the graph API ranks by an index.
		field.Int("degree").Default(0),
		// mentions is the node's provenance as a pack of its mentions
		// (see store/mention_pack.go).
		field.Text("mentions").Default(""),
	}
}

// Edges of the Node.
func (Node) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("nodes").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Node.
func (Node) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id", "key").Unique(),
		index.Fields("version_id", "type"),
		index.Fields("version_id", "degree", "key").Annotations(entsql.DescColumns("degree")),
	}
}
