package web

import "fmt"

// ComparePage is the compare page: the version pickers and, when two
// versions are chosen, the comparison.
type ComparePage struct {
	Picker ComparePicker
	// Ready is set when two versions were compared.
	Ready bool
	A, B  CompareRun
	// Running holds the progress of a side that is still running.
	Running []Progress
	// SameDocuments reports whether both runs cover the same documents.
	SameDocuments bool
	Nodes, Edges  CompareTotals
	NodeTypes     []CompareTypeRow
	EdgeLabels    []CompareTypeRow
	// MoreLabels counts the edge labels left out of EdgeLabels.
	MoreLabels int
	// Score is set when one side is the reference.
	Score *CompareScore
	// NodeItems and EdgeItems are the union items for the tables; the
	// tables stop at ItemLimit rows each.
	NodeItems []CompareItem
	EdgeItems []CompareItem
	NodeTotal int
	// NodePager and EdgePager page through the item tables.
	NodePager, EdgePager Pager
	EdgeTotal            int
	ItemLimit            int
	NodeTypeOpts         []string
	EdgeLabelOpts        []string
	Config               []CompareConfigRow
	Prompts              []ComparePrompt
	// Raw outputs of one chunk, for LLM strategies.
	HasCalls   bool
	Chunks     []CompareChunkOpt
	Chunk      string
	RawA, RawB []CompareCall
	// GraphNote says how much of a large union graph is drawn.
	GraphNote string
	// Union is the union graph handed to static/js/compare.js.
	Union any
	// ScriptURL and GraphLibURL are the asset URLs of the page's scripts;
	// LayoutURL and FA2URL those of the layout worker and its library,
	// which lay the union out once for every panel.
	ScriptURL, GraphLibURL, LayoutURL, FA2URL string
	// Query is the query string of the current comparison (a, b and options).
	Query string
	// Turns, for two dialogue runs: operation counts per turn.
	Turns []CompareTurn
	// Communities lists the communities that are new, gone or changed.
	Communities CompareCommunities
}

// CompareCommunities is how the communities of the two versions differ:
// how many each has, how many stayed as they were, and a row for every
// community that is new, gone or changed.
type CompareCommunities struct {
	Before, After, Unchanged int
	Rows                     []CompareCommunityRow
}

// CompareCommunityRow is a community that is new, gone or changed
// (Status); Was is its title in version a when the title changed; Size
// says its size ("12" or "12 → 15"); Joined and Left name the members
// that joined and left it.
type CompareCommunityRow struct {
	Status, Title, Was, Size string
	Joined, Left             string
}

// StatusClass is the badge class of a row's status.
func (r CompareCommunityRow) StatusClass() string {
	switch r.Status {
	case "new":
		return "st-added"
	case "gone":
		return "st-removed"
	}
	return "st-changed"
}

// ComparePicker chooses two versions and the matching options.
type ComparePicker struct {
	Groups       []CompareGroup
	A, B         int
	IgnoreType   bool
	Undirected   bool
	IgnoreLabels bool
	// IgnoreDescriptions leaves description-only changes out.
	IgnoreDescriptions bool
}

// CompareGroup is one extraction with its versions.
type CompareGroup struct {
	Extraction string
	Versions   []VersionRow
}

// CompareRun describes one side of a comparison.
type CompareRun struct {
	ID           int
	Label        string
	Status       string
	Strategy     string
	Model        string
	Reference    bool
	Note         string
	Chunks       int
	Nodes        int
	Edges        int
	PromptTokens int
	OutputTokens int
	Calls        int
	CachedCalls  int
	Elapsed      string
	Cost         string
}

// CompareTotals counts one kind of item of a comparison.
type CompareTotals struct {
	Before, After                      int
	Added, Removed, Changed, Unchanged int
}

// CompareTypeRow is the count of one type before and after.
type CompareTypeRow struct {
	Type                 string
	Before, After, Delta int
}

// DeltaText formats the delta with its sign.
func (r CompareTypeRow) DeltaText() string {
	if r.Delta > 0 {
		return fmt.Sprintf("+%d", r.Delta)
	}
	return fmt.Sprint(r.Delta)
}

// CompareScore is precision, recall and F1 of the non-reference side.
type CompareScore struct {
	// Reference is the label of the reference version, Scored the other.
	Reference, Scored string
	Nodes, Edges      ComparePRF
	// EdgesUnlabelled reports that Edges matched edges by their endpoints
	// only (labels ignored).
	EdgesUnlabelled bool
	// OtherEdges is the edge score under the other label rule (unlabelled
	// when OtherUnlabelled), set when it differs from Edges.
	OtherEdges      *ComparePRF
	OtherUnlabelled bool
}

// ComparePRF holds formatted precision, recall and F1.
type ComparePRF struct {
	Precision, Recall, F1 string
}

// CompareItem is a row of the node or edge table. ID matches the union
// graph's id of the item.
type CompareItem struct {
	ID     string
	Name   string
	Type   string
	Status string
	// Fields lists what changed, for changed items.
	Fields string
}

// CompareConfigRow is one config field of both runs.
type CompareConfigRow struct {
	Field   string
	A, B    string
	Differs bool
}

// ComparePrompt is the line diff of one prompt.
type ComparePrompt struct {
	Name  string
	Same  bool
	Lines []CompareLine
}

// CompareLine is a line of a line diff; Op is "=", "-" or "+".
type CompareLine struct {
	Op   string
	Text string
}

// CompareChunkOpt is a chunk that can be picked for the raw outputs.
type CompareChunkOpt struct {
	Value string
	Label string
}

// CompareCall is one model call's raw output.
type CompareCall struct {
	Purpose  string
	Model    string
	Tokens   string
	Response string
}

// edgeRule names how edges were matched for a score row.
func edgeRule(unlabelled bool) string {
	if unlabelled {
		return "unlabelled (endpoints only)"
	}
	return "labelled"
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// CompareScores are two versions' scores side by side.
type CompareScores struct {
	Questions, Resamples int
	// SetOf is the extraction whose question set scored both.
	SetOf     string
	ScoresURL string
	Rows      []CompareScoreRow
}

// CompareScoreRow is one measure: the two values, the difference (Better
// or Worse by the measure's direction, when significant or not scored per
// question) and its bootstrap interval.
type CompareScoreRow struct {
	Key, Label, A, B, Diff, Interval string
	Significant, Better, Worse       bool
}
