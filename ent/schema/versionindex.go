package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// VersionIndex holds one part of a finished version's search index
// ("vectors": the vector indexes of its chunks, nodes and edges), built
// once and read by every process that asks the version a question. Stamp
// names what the part was built from (the version's content and vector
// record); a part whose stamp no longer matches is built again.
type VersionIndex struct{ ent.Schema }

// Fields of the VersionIndex.
func (VersionIndex) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.String("part"),
		field.String("stamp"),
		field.Bytes("data"),
	}
}

// Edges of the VersionIndex.
func (VersionIndex) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("version_indexes").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the VersionIndex.
func (VersionIndex) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id", "part").Unique(),
	}
}
