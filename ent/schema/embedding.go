package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Embedding holds the schema definition for the Embedding entity: the
// cache of embedding calls, one vector per (model, text hash), so a re-run
// over unchanged text makes no embedding call.
type Embedding struct{ ent.Schema }

// Fields of the Embedding.
func (Embedding) Fields() []ent.Field {
	return []ent.Field{
		field.String("model").Immutable(),
		field.String("hash").Immutable(),
		field.Bytes("vector").Immutable(),
	}
}

// Indexes of the Embedding.
func (Embedding) Indexes() []ent.Index {
	return []ent.Index{index.Fields("model", "hash").Unique()}
}
