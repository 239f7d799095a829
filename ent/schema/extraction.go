package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Extraction holds the schema definition for the Extraction entity: a named
// line of versions over a set of documents.
type Extraction struct{ ent.Schema }

// Mixin of the Extraction.
func (Extraction) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Extraction.
func (Extraction) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().Unique(),
		field.String("description").Default(""),
		// curation holds the duplicate decisions taken on the
		// extraction's versions (JSON: merges accepted and pairs judged
		// distinct), applied by its next runs.
		field.Text("curation").Default(""),
		// questions holds the extraction's question set (JSON: each
		// question with what a right answer must contain), which scores
		// every version of it.
		field.Text("questions").Default(""),
	}
}

// Edges of the Extraction.
func (Extraction) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("versions", ExtractionVersion.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}
