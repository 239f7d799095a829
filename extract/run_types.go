package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CallRecord is one model call as sent and received. Key is the cache key:
// a hash of provider, model, messages and parameters.
type CallRecord struct {
	Key          string        `json:"key"`
	Provider     Provider      `json:"provider"`
	Model        string        `json:"model"`
	Purpose      string        `json:"purpose,omitempty"` // e.g. "extract", "glean-1", "summary"
	Request      string        `json:"request"`           // messages and parameters, JSON
	Response     string        `json:"response"`
	PromptTokens int           `json:"prompt_tokens"`
	OutputTokens int           `json:"output_tokens"`
	Latency      time.Duration `json:"latency"`
	Cached       bool          `json:"cached"`
}

// ParseFailure is a line or fragment of model output that could not be used,
// with the reason. Nothing the model said is silently dropped.
type ParseFailure struct {
	Round  int    `json:"round"`
	Line   string `json:"line"`
	Reason string `json:"reason"`
}

// Operation is one memory-graph operation of a dialogue run.
// Outcome is what became of a dialogue operation.
type Outcome string

// The outcomes of an operation.
const (
	// OutcomeApplied: the operation changed the memory as it said.
	OutcomeApplied Outcome = "applied"
	// OutcomeParentCreated: applied, after the path's missing parent
	// was made for it.
	OutcomeParentCreated Outcome = "parent_created"
	// OutcomeRejected: not applied (Reason says why).
	OutcomeRejected Outcome = "rejected"
)

// Outcomes lists the outcomes.
var Outcomes = []Outcome{OutcomeApplied, OutcomeParentCreated, OutcomeRejected}

// OpKind is what a dialogue memory operation does.
type OpKind string

// The operation kinds.
const (
	OpAddNode     OpKind = "add_node"
	OpUpdateNode  OpKind = "update_node"
	OpAddRelation OpKind = "add_relation"
)

// OpKinds lists the operation kinds.
var OpKinds = []OpKind{OpAddNode, OpUpdateNode, OpAddRelation}

type Operation struct {
	Turn        int     `json:"turn"`
	Seq         int     `json:"seq"`
	Op          OpKind  `json:"op"`
	NodeID      string  `json:"node_id,omitempty"`
	SourceID    string  `json:"source_id,omitempty"`
	TargetID    string  `json:"target_id,omitempty"`
	Label       string  `json:"label,omitempty"`
	Description string  `json:"description,omitempty"`
	Timestamp   string  `json:"timestamp,omitempty"`
	Status      Outcome `json:"status"`
	Reason      string  `json:"reason,omitempty"`
	// ValidAt is when what the operation says became true: the start of
	// its turn's session (RFC 3339 or a date; empty when the dialogue has
	// no dates). RecordedAt is when the run applied it (RFC 3339). The two
	// make the memory bi-temporal.
	ValidAt    string `json:"valid_at,omitempty"`
	RecordedAt string `json:"recorded_at,omitempty"`
	// Attributes are a node operation's other attributes (see
	// dialogue.NodeDetails).
	Attributes map[string]string `json:"attributes,omitempty"`
}

// ChunkResult is everything a strategy produced for one chunk. It is written
// through the Sink atomically: either the whole result is stored and the
// chunk counts as finished, or nothing is.
type ChunkResult struct {
	Chunk      ChunkRef       `json:"chunk"`
	Graph      Graph          `json:"graph"`
	Calls      []CallRecord   `json:"calls,omitempty"`
	Failures   []ParseFailure `json:"failures,omitempty"`
	Operations []Operation    `json:"operations,omitempty"`
	// OffSchema counts types and relations the model used that the schema
	// does not have (schema strategy conformance).
	OffSchema int `json:"off_schema,omitempty"`
	// Repairs counts, per kind (see RepairJSON), the fixes the chunk's model
	// answers needed before they parsed.
	Repairs map[string]int `json:"repairs,omitempty"`
	// Violations are extracted values that break a schema constraint
	// (NotNull, MultiValue, Enum, Regular), one line each.
	Violations []string      `json:"violations,omitempty"`
	Elapsed    time.Duration `json:"elapsed"`
}

// Sink receives per-chunk results as they finish.
type Sink interface {
	// Finished returns the chunks already stored for this run, so a
	// restarted run skips them.
	Finished(ctx context.Context) (map[ChunkRef]bool, error)
	// WriteChunk stores one chunk's result. Writing the same chunk twice
	// adds nothing.
	WriteChunk(ctx context.Context, res ChunkResult) error
}

// Progress is reported while a run goes on.
type Progress struct {
	ChunksDone  int           `json:"chunks_done"`
	ChunksTotal int           `json:"chunks_total"`
	Nodes       int           `json:"nodes"`
	Edges       int           `json:"edges"`
	Elapsed     time.Duration `json:"elapsed"`
	// Phase names the step ChunksDone counts when a run has more than
	// one (PhaseExtracting, then PhaseMerging); empty when it has one.
	Phase Phase `json:"phase,omitempty"`
}

// Phase is the step a queued or running version is at; empty once it
// has ended.
type Phase string

// Run phases.
const (
	PhaseQueued     Phase = "queued"
	PhaseExtracting Phase = "extracting"
	PhaseMerging    Phase = "merging"
)

// ChunkError is a chunk whose extraction failed: the model provider's
// status ("HTTP 429", "HTTP 500", "timeout", "unavailable", "invalid") and
// the error message.
type ChunkError struct {
	DocumentID int    `json:"document_id"`
	Index      int    `json:"index"`
	Status     string `json:"status"`
	Message    string `json:"message"`
}

// FailureSink is a Sink that records chunks whose extraction failed, so a
// run goes on with the other chunks; RunJobs then returns an unavailable
// error naming how many chunks failed. The failed chunks are not finished:
// a resumed run asks them again.
type FailureSink interface {
	Sink
	// ChunkFailed records the failure of one chunk.
	ChunkFailed(ctx context.Context, ce ChunkError) error
}

// ChunkErrorOf describes the failure of a chunk's extraction. The status is
// read from an error in the chain with an HTTPStatus() int method (the
// model providers' status errors), or says timeout, invalid or unavailable.
func ChunkErrorOf(ref ChunkRef, err error) ChunkError {
	ce := ChunkError{DocumentID: ref.DocumentID, Index: ref.Index, Message: Clip(err.Error(), 500)}
	var hs interface{ HTTPStatus() int }
	switch {
	case errors.As(err, &hs):
		ce.Status = fmt.Sprintf("HTTP %d", hs.HTTPStatus())
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(err.Error(), "timed out"):
		ce.Status = "timeout"
	case KindOf(err) == KindInvalid:
		ce.Status = "invalid"
	default:
		ce.Status = "unavailable"
	}
	return ce
}
