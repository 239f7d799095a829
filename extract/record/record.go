// Package record holds the records kgstudio keeps and shows, shared by
// the application, its store and its front ends: an extraction's version
// and its status, document and schema summaries, a chunk's run, job
// counts. They are plain values; the store fills them and the application
// hands them out, so neither the handlers nor the commands need the
// store's own types.
package record

import (
	"fmt"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
)

// Status is where a version stands: queued and running while its run is
// under way, then done, failed or canceled.
type Status string

// Version statuses.
const (
	StatusQueued   Status = "queued"
	StatusRunning  Status = "running"
	StatusDone     Status = "done"
	StatusFailed   Status = "failed"
	StatusCanceled Status = "canceled"
)

// Statuses lists every status, in the order a run goes through them.
var Statuses = []Status{StatusQueued, StatusRunning, StatusDone, StatusFailed, StatusCanceled}

// Values lists the statuses as stored (the database's enum).
func (Status) Values() []string {
	out := make([]string, len(Statuses))
	for i, s := range Statuses {
		out[i] = string(s)
	}
	return out
}

// Active reports whether a version of this status is queued or running.
func (s Status) Active() bool { return s == StatusQueued || s == StatusRunning }

// Finished reports whether a version of this status has ended: done,
// failed or canceled.
func (s Status) Finished() bool { return s == StatusDone || s == StatusFailed || s == StatusCanceled }

// DocumentInfo is a document without its content, for lists.
type DocumentInfo struct {
	ID      int             `json:"id"`
	Name    string          `json:"name"`
	Kind    extract.DocKind `json:"kind"`
	Size    int             `json:"size"`
	Created time.Time       `json:"created_at"`
}

// Version is an extraction version with its decoded config.
type Version struct {
	ID           int
	ExtractionID int
	Extraction   string
	Number       int
	Status       Status
	Config       extract.Config
	DocumentIDs  []int
	Reference    bool
	Note         string
	ChunksTotal  int
	ChunksDone   int
	Nodes        int
	Edges        int
	PromptTokens int
	OutputTokens int
	Calls        int
	CachedCalls  int
	// CachedPromptTokens and CachedOutputTokens are the tokens of calls
	// answered from the cache; they cost nothing.
	CachedPromptTokens, CachedOutputTokens int
	OffSchema                              int
	ParseFailures                          int
	Elapsed                                time.Duration
	Error                                  string
	CreatedAt                              time.Time
	StartedAt                              *time.Time
	FinishedAt                             *time.Time
	HeartbeatAt                            time.Time
	// ParentID is the version a retry started from (0 for none).
	ParentID int
	// Repairs counts the fixes model answers needed before they parsed.
	Repairs int
	// Violations counts extracted values that break a schema constraint.
	Violations int
	// ChunkErrors lists the chunks whose extraction failed.
	ChunkErrors []extract.ChunkError
	// Edits is the edit log of a version made by editing its parent.
	Edits []curate.Edit
	// Injected counts extracted nodes that became reference nodes;
	// MergesApplied and NotSameApplied count the remembered duplicate
	// answers the run applied.
	Injected, MergesApplied, NotSameApplied int
	// Written marks a version whose graph one call writes whole (an
	// import, a merge, an edit; SaveGraphVersion), not a run.
	Written bool
	// MergeNext is the place, in the run's order of text chunks, of the
	// first chunk its chunk jobs have not merged.
	MergeNext int
}

// ExtractionInfo summarises an extraction for lists.
type ExtractionInfo struct {
	ID       int
	Name     string
	Versions []Version
}

// ChunkRun is a finished chunk of a version with what the strategy reported.
type ChunkRun struct {
	DocumentID   int
	ChunkIndex   int
	Nodes        int
	Edges        int
	PromptTokens int
	OutputTokens int
	OffSchema    int
	Failures     int
	Elapsed      time.Duration
	Calls        []extract.CallRecord
	ParseErrors  []extract.ParseFailure
	// Repairs counts the fixes the chunk's model answers needed, per kind.
	Repairs map[string]int
	// Violations are the chunk's values that break a schema constraint.
	Violations []string
}

// Counts are the dashboard totals.
type Counts struct {
	Schemas, Documents, Extractions, Versions int
}

// Label is "name@number".
func (v Version) Label() string { return fmt.Sprintf("%s@%d", v.Extraction, v.Number) }

// Active reports whether the version is queued or running.
func (v Version) Active() bool { return v.Status.Active() }

// NodeMention is a mention of a node: the node's key and where in the
// documents it was found.
type NodeMention struct {
	NodeKey string
	extract.Mention
}

// SubgraphRows receives a graph API answer as StreamSubgraph reads it:
// every node, then every edge.
type SubgraphRows struct {
	Node func(extract.SubgraphNode) error
	Edge func(extract.SubgraphEdge) error
}

// JobCounts counts a version's River jobs by what they are doing.
type JobCounts struct {
	Queued    int `json:"queued"`
	Running   int `json:"running"`
	Retried   int `json:"retried"`
	Failed    int `json:"failed"`
	Completed int `json:"completed"`
	Canceled  int `json:"canceled"`
}

// ChunkJobState is where a chunk's job stands.
type ChunkJobState string

// The chunk job states.
const (
	// ChunkJobRetrying: no attempt succeeded yet and another follows.
	ChunkJobRetrying ChunkJobState = "retrying"
	// ChunkJobDone: the chunk's result is stored.
	ChunkJobDone ChunkJobState = "done"
	// ChunkJobFailed: the last attempt failed and none follows.
	ChunkJobFailed ChunkJobState = "failed"
)

// ChunkJobStates lists the chunk job states.
var ChunkJobStates = []ChunkJobState{ChunkJobRetrying, ChunkJobDone, ChunkJobFailed}

// ChunkJobError is a chunk whose job failed at least once: its last error,
// the attempts it took and whether it is still being retried.
type ChunkJobError struct {
	DocumentID int
	ChunkIndex int
	State      ChunkJobState
	Attempts   int
	Status     string // the error's kind (extract.ChunkError's Status)
	Error      string
}

// SchemaInfo is a schema in a list.
type SchemaInfo struct {
	Name        string
	Description string
	Latest      int
	Types       int
	Versions    int
	Updated     time.Time
}

// SchemaVersionInfo is one version in a schema's history.
type SchemaVersionInfo struct {
	Number  int
	Note    string
	Hash    string
	Types   int
	Created time.Time
}

// VectorStats is the vectorizer's record of a version: the embedder and
// model, the vector length and count, and what the embedding calls used
// (provider calls, input tokens, texts answered from the cache).
type VectorStats struct {
	Embedder   extract.EmbedderName `json:"embedder"`
	Model      string               `json:"model"`
	Dimensions int                  `json:"dimensions"`
	Vectors    int                  `json:"vectors"`
	Calls      int                  `json:"calls"`
	Tokens     int                  `json:"tokens"`
	Cached     int                  `json:"cached"`
}
