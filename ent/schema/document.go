package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/kgstudio/kgstudio/extract"
)

// docKinds are the document kinds, as the reader names them.
func docKinds() []string {
	out := make([]string, len(extract.DocKinds))
	for i, k := range extract.DocKinds {
		out[i] = string(k)
	}
	return out
}

// Document holds the schema definition for the Document entity: one source
// text, stored once per content hash.
type Document struct{ ent.Schema }

// Mixin of the Document.
func (Document) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Document.
func (Document) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty(),
		field.Enum("kind").Values(docKinds()...).Default(string(extract.DocText)),
		field.Text("content"),
		field.String("sha256").Unique().Immutable(),
		field.Int("size").NonNegative(),
	}
}

// Edges of the Document.
func (Document) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("chunks", Chunk.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}
