package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// ExtractionVersion holds the schema definition for the ExtractionVersion
// entity: one run of an extraction, with the config snapshot that shaped it,
// its progress and its outcome.
type ExtractionVersion struct{ ent.Schema }

// Mixin of the ExtractionVersion.
func (ExtractionVersion) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// StoredConfig is a run's settings as a version stores them: an
// extract.Config without its methods, so that the settings of a graph
// imported or merged (which name no strategy) are stored as they are and
// not validated as a run's.
type StoredConfig extract.Config

// Fields of the ExtractionVersion.
func (ExtractionVersion) Fields() []ent.Field {
	return []ent.Field{
		field.Int("extraction_id").Immutable(),
		field.Int("number").Positive().Immutable(),
		field.Enum("status").GoType(record.Status("")).Default(string(record.StatusQueued)),
		// config is the run's settings as JSON, in a text column (as
		// before it was typed, so no database changes its column).
		field.JSON("config", StoredConfig{}).Immutable().
			SchemaType(map[string]string{dialect.Postgres: "text", dialect.SQLite: "text"}),
		field.JSON("document_ids", []int{}).Immutable(),
		field.Bool("reference").Default(false),
		field.String("note").Default(""),
		field.Int("chunks_total").Default(0),
		field.Int("chunks_done").Default(0),
		field.Int("node_count").Default(0),
		field.Int("edge_count").Default(0),
		field.Int("prompt_tokens").Default(0),
		field.Int("output_tokens").Default(0),
		field.Int("calls").Default(0),
		field.Int("cached_calls").Default(0),
		// Tokens of the calls answered from the cache (they cost nothing).
		field.Int("cached_prompt_tokens").Default(0),
		field.Int("cached_output_tokens").Default(0),
		field.Int("off_schema").Default(0),
		field.Int("parse_failures").Default(0),
		field.Int64("elapsed_ms").Default(0),
		field.Text("error").Default(""),
		field.Time("started_at").Optional().Nillable(),
		field.Time("finished_at").Optional().Nillable(),
		field.Time("heartbeat_at").Default(time.Now),
		// parent_id is the version a retry started from.
		field.Int("parent_id").Optional().Nillable().Immutable(),
		// repairs counts the fixes model answers needed before they parsed.
		field.Int("repairs").Default(0),
		// violations counts extracted values that break a schema constraint.
		field.Int("violations").Default(0),
		// chunk_errors lists the chunks whose extraction failed (provider
		// status and message), JSON; they are asked again on resume or retry.
		field.Text("chunk_errors").Default(""),
		// edits is the edit log of a version made by editing its parent:
		// the operations in order, JSON; empty for other versions.
		field.Text("edits").Default(""),
		// injected counts the extracted nodes that became nodes of the
		// reference graph the run named (see app/inject.go).
		field.Int("injected").Default(0),
		// merges_applied and not_same_applied count the extraction's
		// remembered duplicate answers that the run applied.
		field.Int("merges_applied").Default(0),
		field.Int("not_same_applied").Default(0),
		// written marks a version whose graph one call writes whole (an
		// import, a merge, an edit) rather than a run's jobs: left
		// running, it was interrupted while written, and is never
		// resumed as a run.
		field.Bool("written").Default(false),
		// writer names the process writing a written version (as River
		// client IDs name processes: host, PID namespace, PID), so a
		// start on the same machine fails it at once when that process is
		// gone, whatever its heartbeat's age.
		field.String("writer").Default(""),
		// merge_next is the place, in the run's order of text chunks, of
		// the first chunk not merged yet: a chunk job whose chunk is next
		// merges it into the version, a later one stages it (see
		// ChunkJob), so the graph is merged in chunk order whichever
		// worker extracted which chunk.
		field.Int("merge_next").Default(0),
		// chunks_settled counts the chunks settled (done, or failed for
		// good) since the run was last queued: once it reaches the
		// chunks queued, the final job is.
		field.Int("chunks_settled").Default(0),
	}
}

// Edges of the ExtractionVersion.
func (ExtractionVersion) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("extraction", Extraction.Type).Ref("versions").Field("extraction_id").Unique().Required().Immutable(),
		edge.To("nodes", Node.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("edges", Edge.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("edge_texts", EdgeText.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("community_sets", CommunitySet.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("version_indexes", VersionIndex.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("operations", Operation.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("chunk_runs", ChunkRun.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("chunk_jobs", ChunkJob.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the ExtractionVersion.
func (ExtractionVersion) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("extraction_id", "number").Unique(),
		index.Fields("status"),
	}
}
