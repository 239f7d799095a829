package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/kgstudio/kgstudio/extract/record"
)

// chunkJobStates are the chunk job states (record.ChunkJobState).
func chunkJobStates() []string {
	out := make([]string, len(record.ChunkJobStates))
	for i, s := range record.ChunkJobStates {
		out[i] = string(s)
	}
	return out
}

// ChunkJob holds the schema definition for the ChunkJob entity: what the
// job queue's work on one chunk of a version left behind. A chunk job
// extracts the chunk and, in the transaction that completes the job,
// merges it into the version when every chunk before it is merged, or
// stages its result here until they are (merged in order by whichever job
// or final job comes next); the row is keyed by the chunk, so a job that
// runs again (a retry, or a worker killed after the commit) stores nothing
// twice. A chunk that fails keeps its last error and the attempts it took.
type ChunkJob struct{ ent.Schema }

// Mixin of the ChunkJob.
func (ChunkJob) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ChunkJob.
func (ChunkJob) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.Int("document_id").Immutable(),
		field.Int("chunk_index").Immutable(),
		// seq is the chunk's place in the run's order of text chunks.
		field.Int("seq").Default(0),
		// state is "done" once the result is stored, "retrying" while an
		// attempt failed and another is due, "failed" after the last.
		field.Enum("state").Values(chunkJobStates()...).Default(string(record.ChunkJobRetrying)),
		// result is the chunk's extract.ChunkResult, JSON, while it waits
		// to be merged (kept after the merge only when retry needs it, see
		// store.SettleChunk); empty once merged.
		field.Text("result").Default(""),
		// error is the last attempt's error message, error_status its
		// kind (extract.ChunkError's Status: unavailable, invalid,
		// timeout...; empty in rows written before it was kept apart,
		// whose error reads "status: message").
		field.Text("error").Default(""),
		field.String("error_status").Default(""),
		field.Int("attempts").Default(0),
	}
}

// Edges of the ChunkJob.
func (ChunkJob) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("chunk_jobs").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ChunkJob.
func (ChunkJob) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("version_id", "document_id", "chunk_index").Unique(),
		// Counts and lists a version's chunks by state without reading
		// the rows (their results): every chunk job counts the settled
		// ones, and a waiting run counts the done ones while it polls.
		index.Fields("version_id", "state", "document_id", "chunk_index"),
		// Finds the chunk to merge next.
		index.Fields("version_id", "seq"),
	}
}
