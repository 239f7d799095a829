package app

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/record"
)

// VersionJSON is a version as the JSON API and the CLI show it.
type VersionJSON struct {
	ID           int            `json:"id"`
	Extraction   string         `json:"extraction"`
	Version      int            `json:"version"`
	Status       record.Status  `json:"status"`
	Reference    bool           `json:"reference"`
	Note         string         `json:"note,omitempty"`
	Config       extract.Config `json:"config"`
	DocumentIDs  []int          `json:"document_ids"`
	ChunksDone   int            `json:"chunks_done"`
	ChunksTotal  int            `json:"chunks_total"`
	Nodes        int            `json:"nodes"`
	Edges        int            `json:"edges"`
	PromptTokens int            `json:"prompt_tokens"`
	OutputTokens int            `json:"output_tokens"`
	Calls        int            `json:"calls"`
	CachedCalls  int            `json:"cached_calls"`
	OffSchema    int            `json:"off_schema"`
	Failures     int            `json:"parse_failures"`
	ElapsedMS    int64          `json:"elapsed_ms"`
	Error        string         `json:"error,omitempty"`
	CreatedAt    time.Time      `json:"created_at"`
	// Repairs and Violations count fixed model answers and values that
	// break a schema constraint; ParentID is the version a retry started
	// from; ChunkErrors lists the chunks whose extraction failed.
	Repairs     int                  `json:"repairs"`
	Violations  int                  `json:"violations"`
	ParentID    int                  `json:"parent_id,omitempty"`
	ChunkErrors []extract.ChunkError `json:"chunk_errors,omitempty"`
	// Embedding is the vectorizer step's record: embedder, model, vectors,
	// the embedding calls and tokens it paid for, texts answered from the
	// cache and the estimated cost. Absent for versions without vectors
	// and in lists (see App.VersionJSON).
	Embedding *EmbeddingJSON `json:"embedding,omitempty"`
	// Edits is the edit log of a version made by editing its parent (the
	// operations in order); Injected counts extracted nodes that became
	// nodes of the reference graph the run named; MergesApplied and
	// NotSameApplied count the extraction's remembered duplicate answers
	// the run applied.
	Edits          []curate.Edit `json:"edits,omitempty"`
	Injected       int           `json:"injected"`
	MergesApplied  int           `json:"merges_applied"`
	NotSameApplied int           `json:"not_same_applied"`
}

// EmbeddingJSON is a version's vectorizer record with its estimated cost.
type EmbeddingJSON struct {
	record.VectorStats
	// Cost is the estimated cost of the embedding calls ("$0" offline).
	Cost string `json:"cost"`
	// Indexes counts the vectors of each model: the version's, and the
	// fallback's of a split embedder (the text the sentence encoder does
	// not serve); vectors of two models are never compared.
	Indexes map[string]int `json:"indexes"`
}

// JSON is VersionJSONOf with the vectorizer's record (embedding
// calls, tokens and cost) when the version has vectors.
func (s *Versions) JSON(ctx context.Context, v record.Version) (VersionJSON, error) {

	j := VersionJSONOf(v)
	e, err := s.queries.Embedding(ctx, v.ID)
	j.Embedding = e
	return j, err
}

// Embedding returns a version's vectorizer record with its cost, or nil
// when the version has no vectors.
func (q *Queries) Embedding(ctx context.Context, versionID int) (*EmbeddingJSON, error) {

	st, ok, err := q.store.VectorStatsOf(ctx, versionID)
	if err != nil || !ok {
		return nil, err
	}
	counts, err := q.store.VectorCounts(ctx, versionID)
	if err != nil {
		return nil, err
	}
	return &EmbeddingJSON{VectorStats: st, Cost: q.models.providers.EmbedCostOf(st), Indexes: counts}, nil
}

// VersionJSONOf turns a stored version into its JSON form.
func VersionJSONOf(v record.Version) VersionJSON {
	if v.DocumentIDs == nil {
		v.DocumentIDs = []int{} // an imported version: a list all the same
	}
	return VersionJSON{ID: v.ID, Extraction: v.Extraction, Version: v.Number, Status: v.Status, Reference: v.Reference,
		Note: v.Note, Config: v.Config, DocumentIDs: v.DocumentIDs, ChunksDone: v.ChunksDone, ChunksTotal: v.ChunksTotal,
		Nodes: v.Nodes, Edges: v.Edges, PromptTokens: v.PromptTokens, OutputTokens: v.OutputTokens, Calls: v.Calls,
		CachedCalls: v.CachedCalls, OffSchema: v.OffSchema, Failures: v.ParseFailures, ElapsedMS: v.Elapsed.Milliseconds(),
		Error: v.Error, CreatedAt: v.CreatedAt, Repairs: v.Repairs, Violations: v.Violations, ParentID: v.ParentID, ChunkErrors: v.ChunkErrors,
		Edits: v.Edits, Injected: v.Injected, MergesApplied: v.MergesApplied, NotSameApplied: v.NotSameApplied}
}
