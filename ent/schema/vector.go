package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Vector holds the schema definition for the Vector entity: one embedding
// of an extraction version's chunk, node, edge or community report, as
// compact bytes (no vector extension is needed; ranking happens in Go).
type Vector struct{ ent.Schema }

// Fields of the Vector.
func (Vector) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		field.Enum("kind").Values("chunk", "node", "edge", "report").Immutable(),
		// Key is "documentID:index" for a chunk, the node key, the edge's
		// text hash, or the community id of a report.
		field.Text("key").Immutable(),
		field.String("model").Immutable(),
		field.Bytes("vector").Immutable(),
	}
}

// Indexes of the Vector.
func (Vector) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id", "kind")}
}
