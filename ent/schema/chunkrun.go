package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ChunkRun holds the schema definition for the ChunkRun entity: the record
// that one chunk of a version finished, with what the strategy said about it
// (calls, parse failures, operations) for the per-chunk inspector. Its
// presence is what lets a restarted run skip the chunk.
type ChunkRun struct{ ent.Schema }

// Mixin of the ChunkRun.
func (ChunkRun) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ChunkRun.
func (ChunkRun) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.Int("document_id").Immutable(),
		field.Int("chunk_index").Immutable(),
		field.Text("detail").Default("{}").Immutable(),
		field.Int("node_count").Default(0).Immutable(),
		field.Int("edge_count").Default(0).Immutable(),
		field.Int("prompt_tokens").Default(0).Immutable(),
		field.Int("output_tokens").Default(0).Immutable(),
		field.Int("off_schema").Default(0).Immutable(),
		field.Int("failures").Default(0).Immutable(),
		field.Int64("elapsed_ms").Default(0).Immutable(),
	}
}

// Edges of the ChunkRun.
func (ChunkRun) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("chunk_runs").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ChunkRun.
func (ChunkRun) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id", "document_id", "chunk_index").Unique()}
}
