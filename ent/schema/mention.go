package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Mention holds the schema definition for the Mention entity: provenance of a
// node (edge_key empty) or an edge (node_key empty) in a chunk, with byte
// offsets into the document.
type Mention struct{ ent.Schema }

// Fields of the Mention.
func (Mention) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.String("node_key").Default(""),
		field.String("edge_key").Default(""),
		field.Int("document_id"),
		field.Int("chunk_index"),
		field.Int("start"),
		field.Int("end"),
		field.Text("text").Default(""),
		// edge_ref is a hash of edge_key (0 for a node's mention): an
		// edge's mentions are found by it through an index of 8-byte
		// numbers rather than of its key, some 40 bytes.
		field.Int64("edge_ref").Default(0),
	}
}

// Edges of the Mention.
func (Mention) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("mentions").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Mention.
func (Mention) Indexes() []ent.Index {
	return []ent.Index{
		// A node's and an edge's mentions, each index holding only its own
		// rows (queries name the condition, so the planner may use them).
		// No unique index: the writers never store a mention twice (a
		// chunk is merged once; other writes skip the mentions stored).
		index.Fields("version_id", "node_key").Annotations(entsql.IndexWhere("node_key <> ''")),
		index.Fields("version_id", "edge_ref").Annotations(entsql.IndexWhere("edge_ref <> 0")),
		index.Fields("version_id", "document_id", "chunk_index"),
	}
}
