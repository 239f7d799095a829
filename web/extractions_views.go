package web

import "github.com/a-h/templ"

// ExtractionGroup is an extraction with its versions.
type ExtractionGroup struct {
	Name     string
	Versions []VersionRow
}

// ExtractionsPage lists extractions.
type ExtractionsPage struct {
	Groups  []ExtractionGroup
	HasDocs bool
}

// Option is a choice in a select list.
type Option struct {
	Value, Label string
	Selected     bool
}

// DocChoice is a document that can be picked for a run.
type DocChoice struct {
	ID      int
	Name    string
	Kind    string
	Checked bool
}

// PromptField is an editable prompt template.
type PromptField struct {
	Name, Text string
	// Strategy is the strategy that uses the template; the form shows it
	// only while that strategy is picked.
	Strategy string
}

// RunForm is the form that starts an extraction version.
type RunForm struct {
	// Estimate, when set, is what the run as filled would cost (the
	// Estimate button).
	Estimate   *EstimateView
	Name       string
	From       string // "name@n" when pre-filled from a version
	Docs       []DocChoice
	Schemas    []Option
	Strategies []Option
	Providers  []Option
	Model      string
	ChunkSize  int
	Overlap    int
	Strict     bool
	NoCache    bool
	// ChunkNodes asks for KAG's chunk layer in the graph; OfficialNames
	// are the choices of what standardisation makes of an official name.
	ChunkNodes    bool
	OfficialNames []Option
	Concurrency   int
	MaxGleaning   int
	Language      string
	Note          string
	Prompts       []PromptField
	// Embedders are the vectorizer choices (offline, gemini, openai).
	Embedders []Option
	// ReportWriters are the community report choices (offline, model).
	ReportWriters []Option
	// ProviderHelp says which providers are configured (never the keys).
	ProviderHelp string
	Error        string
	// Reference is the domain graph to inject, "NAME@V" ("" for none).
	Reference string
}

// TypeCount is a count by type or label.
type TypeCount struct {
	Type  string
	Count int
}

// NodeRow is a node in the version tables.
type NodeRow struct {
	Key, Name, Type, Description string
	Degree                       int
	Mentions                     int
}

// EdgeRow is an edge in the version tables.
type EdgeRow struct {
	Source, Target, Label, Description string
	Weight                             float64
}

// ChunkRow is a chunk of the version's documents.
type ChunkRow struct {
	DocumentID int
	Document   string
	Index      int
	Chars      int
	Done       bool
	Nodes      int
	Edges      int
	Failures   int
	Tokens     int
	Elapsed    string
	Preview    string
}

// VersionPage shows one extraction version.
type VersionPage struct {
	// Estimate compares, for a run whose calls can be counted ahead,
	// what it was estimated to ask with what it asked: rows of measure,
	// estimate, actual.
	Estimate   [][3]string
	V          VersionRow
	Note       string
	Error      string
	Active     bool
	Config     []KV
	NodeTypes  []TypeCount
	EdgeLabels []TypeCount
	Nodes      []NodeRow
	Edges      []EdgeRow
	NodesShown int
	EdgesShown int
	// NodePager and EdgePager page through the tables.
	NodePager, EdgePager Pager
	TypeFilter           string
	// OffSchemaOnly keeps the nodes and edges the schema does not know.
	OffSchemaOnly bool
	Query         string
	Sort          string
	Types         []string
	Chunks        []ChunkRow
	// ChunksMore counts the chunks not listed (past MaxChunkRows).
	ChunksMore                                     int
	PromptTokens, OutputTokens, Calls, CachedCalls int
	CachedTokens                                   int
	OffSchema, ParseFailures                       int
	Cost                                           string
	// Embedding is the vectorizer step's record; nil without vectors.
	Embedding *EmbeddingStats
	PrevID    int
	Dialogue  bool
	// SelfURL is the page's own URL, which it polls while the run is
	// active.
	SelfURL string
	// Repairs counts the fixes model answers needed before they parsed.
	Repairs int
	// Violations counts extracted values that break a schema constraint.
	Violations int
	// CanGrow offers adding documents to the version or leaving some out
	// (a finished extraction).
	CanGrow bool
	// ParentID is the version a retry started from (0 for none).
	ParentID    int
	ParentLabel string
	// ChunkErrors are the chunks whose extraction failed (or whose job
	// failed an attempt), one row each.
	ChunkErrors []ChunkErrorView
	// Jobs is what the run's jobs are doing; nil when it had none.
	Jobs *JobsView
	// CanRetry offers "Retry failed chunks"; CanResume offers "Resume".
	CanRetry, CanResume bool
	// Edits is the edit log of a version made by editing its parent, one
	// line per operation, in order.
	Edits []string
	// Injected, MergesApplied and NotSameApplied are the run's curation
	// counts: nodes taken from a reference graph, remembered merges and
	// "not the same" answers applied.
	Injected, MergesApplied, NotSameApplied int
}

// ChunkErrorView is a chunk whose extraction failed, with the provider's
// status: one row per chunk, from its job when the run had jobs.
type ChunkErrorView struct {
	// Document is the document's file name.
	Document          string
	DocumentID, Index int
	// State is the job's ("retrying", "failed", or "done" when a later
	// attempt succeeded); empty for a chunk that ran without a job.
	State           string
	Attempts        int
	Status, Message string
}

// EmbeddingStats is what a version's vectorizer step made and used.
type EmbeddingStats struct {
	Embedder, Model                            string
	Dimensions, Vectors, Calls, Tokens, Cached int
	Cost                                       string
}

// Progress is the live progress of a run.
type Progress struct {
	VersionID   int
	Status      string
	ChunksDone  int
	ChunksTotal int
	Nodes       int
	Edges       int
	Elapsed     string
	Active      bool
	Error       string
	// Phase is what a queued or running version is doing (queued,
	// extracting, merging); ChunksMerged counts the chunks merged while
	// merging (ChunksDone stays at the chunks extracted).
	Phase        string
	ChunksMerged int
	// Polled is set on the partial fetched while the page watched a run;
	// a finished run then offers to reload the page for the results.
	Polled bool
	// Embedded is set when the page around the progress updates itself;
	// the partial then does not poll on its own.
	Embedded bool
	// Refresh asks the partial, once the run has ended, to reload the page
	// it is on (the compare page of a running version).
	Refresh bool
}

// Live returns the attributes that make a page part poll its own URL every
// two seconds while a run is active and replace itself (id) with the new
// copy; once the run has ended the new copy carries none, so it stops.
func Live(active bool, url, id string) templ.Attributes {
	if !active {
		return templ.Attributes{}
	}
	return templ.Attributes{"hx-get": url, "hx-trigger": "every 2s", "hx-select": "#" + id, "hx-swap": "outerHTML"}
}

// Span is a piece of chunk text, highlighted when Type is set.
type Span struct {
	Text    string
	Type    string
	NodeKey string
}

// ParsedItem is an entity or relation parsed from one call's output.
type ParsedItem struct {
	Kind string // "entity" or "relation"
	Text string
	// New marks items no earlier round of the chunk produced.
	New bool
}

// CallView is one model call in the inspector.
type CallView struct {
	// Parsed lists what the call's output yielded (tuple strategy).
	Parsed       []ParsedItem
	Purpose      string
	Request      string
	Response     string
	PromptTokens int
	OutputTokens int
	Latency      string
	Cached       bool
}

// FailureView is one unparsable piece of model output.
type FailureView struct {
	Round  int
	Line   string
	Reason string
}

// ChunkPage shows one chunk with its mentions and, for LLM strategies, the
// inspector.
type ChunkPage struct {
	V        VersionRow
	Document string
	DocID    int
	Index    int
	Start    int
	End      int
	Spans    []Span
	Entities []NodeRow
	Calls    []CallView
	Failures []FailureView
	// Repairs lists the fixes the chunk's model answers needed, "kind ×n".
	Repairs []KV
	// Violations are values that break a schema constraint.
	Violations []string
	Done       bool
	PrevIndex  int
	NextIndex  int
	Elapsed    string
}

// Pager is one page of a table: rows From to To (1-based) of Total, with
// links to the pages around it.
type Pager struct {
	Page, Pages      int
	From, To, Total  int
	PrevURL, NextURL string
}

// MaxChunkRows is how many chunks a version page lists; the table folds
// past foldChunkRows.
const (
	MaxChunkRows  = 500
	foldChunkRows = 20
)

// EstimateView is what a run would ask of its model, before any call.
type EstimateView struct {
	Chunks, Calls, InputTokens, OutputTokens int
	Cost, Model                              string
	// Exact says the tokens were counted with the provider's tokenizer;
	// Priced that the price table has the model.
	Exact, Priced bool
	Notes         []string
}
