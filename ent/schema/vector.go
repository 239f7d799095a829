package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Vector holds the schema definition for the Vector entity: one embedding
// of an extraction version's chunk, node or edge, as little-endian float32
// bytes (no vector extension is needed; ranking happens in Go).
type Vector struct{ ent.Schema }

// Fields of the Vector.
func (Vector) Fields() []ent.Field {
	return []ent.Field{
		field.Int("version_id").Immutable(),
		field.Enum("kind").Values("chunk", "node", "edge").Immutable(),
		// Key is "documentID:index" for a chunk, the node key, or the edge's
		// source, label and target joined by U+001F.
		field.Text("key").Immutable(),
		field.String("model").Immutable(),
		field.Bytes("vector").Immutable(),
	}
}

// Indexes of the Vector.
func (Vector) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id", "kind")}
}
