package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CommunitySet holds a version's communities, every level (see
// extract/community), as JSON: computed once when the version's graph is
// complete (a run's final job, an import, an edit, a merge).
type CommunitySet struct{ ent.Schema }

// Fields of the CommunitySet.
func (CommunitySet) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.Text("data"),
	}
}

// Edges of the CommunitySet.
func (CommunitySet) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("community_sets").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the CommunitySet.
func (CommunitySet) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id").Unique(),
	}
}
