package web

import "fmt"

// TimelinePage is the per-turn view of a dialogue run: every turn with its
// counts and coverage, and one selected turn in detail.
type TimelinePage struct {
	Version VersionRow
	// Turns lists one page of the run's turns, from RowsFrom; TurnCount is
	// the run's turns; EarlierURL and LaterURL open the pages around it.
	Turns                []TimelineTurnRow
	TurnCount, RowsFrom  int
	EarlierURL, LaterURL string
	// MeanCoverage is the run's coverage over its finished turns.
	MeanCoverage float64
	Finished     int
	// Totals counts operations by name and status over the run.
	Totals []OpCount
	// Detail is the selected turn.
	Detail TimelineDetail
	// LibURL and ScriptURL are the graph library and static/js/timeline.js.
	LibURL    string
	ScriptURL string
}

// TimelineTurnRow is one turn in the run's list.
type TimelineTurnRow struct {
	Turn      int
	Document  string
	Session   string
	Start     string
	Added     int
	Updated   int
	Relations int
	Rejected  int
	Coverage  float64
	Done      bool
	Selected  bool
	URL       string
}

// TimelineDetail is one turn: the dialogue text beside the operations it
// produced and the graph as it stood after it.
type TimelineDetail struct {
	VersionID int
	Turn      int
	Last      int // the last turn of the run
	PrevURL   string
	NextURL   string
	// PageURL is the timeline page without a turn; the slider adds one.
	PageURL          string
	Document         string
	Dialogue         string
	Session          string
	Start            string
	UserSpeaker      string
	AssistantSpeaker string
	User             string
	Assistant        string
	ChunkURL         string
	Done             bool
	Coverage         float64
	Counts           []OpCount
	Operations       []OpRow
	// Retired lists the facts this turn ended.
	Retired []RetiredFact
	// Graph is handed to timeline.js as JSON.
	Graph TimelineGraph
}

// OpCount is a count of operations by name or status.
type OpCount struct {
	Name  string
	Count int
}

// OpRow is one logged operation.
type OpRow struct {
	Seq         int
	Op          string
	NodeID      string // the node, or "source → target" for a relation
	Label       string
	Description string
	Timestamp   string
	Status      string
	Reason      string
}

// Rejected reports whether the operation was refused.
func (o OpRow) Rejected() bool { return o.Status == "rejected" }

// TimelineGraph is the memory graph after a turn, in force-graph's shape.
type TimelineGraph struct {
	Turn  int             `json:"turn"`
	Nodes []TimelineNode  `json:"nodes"`
	Links []TimelineLink  `json:"links"`
	Stats TimelineGraphSt `json:"stats"`
}

// TimelineNode is a memory node; Touched marks nodes the turn changed.
type TimelineNode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Structure   bool   `json:"structure,omitempty"`
	Touched     bool   `json:"touched,omitempty"`
}

// TimelineLink is a tree ("has") edge or a relation; Touched marks
// relations the turn added, Retired those it ended.
type TimelineLink struct {
	Source  string `json:"source"`
	Target  string `json:"target"`
	Label   string `json:"label"`
	Touched bool   `json:"touched,omitempty"`
	Retired bool   `json:"retired,omitempty"`
}

// RetiredFact is a fact a turn ended: a relation ("source LABEL target")
// or an earlier value of a node (its label), with when it held and why
// it ended.
type RetiredFact struct {
	Kind      string `json:"kind"` // "relation" or "value"
	Node      string `json:"node"` // the node, or the relation's source
	Fact      string `json:"fact"`
	ValidAt   string `json:"valid_at,omitempty"`
	InvalidAt string `json:"invalid_at,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// TimelineGraphSt counts the graph after a turn.
type TimelineGraphSt struct {
	Nodes     int `json:"nodes"`
	Relations int `json:"relations"`
	Touched   int `json:"touched"`
	Retired   int `json:"retired"`
}

// coveragePct formats a share in [0, 1] as a percentage.
func coveragePct(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }
