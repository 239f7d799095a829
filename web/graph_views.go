package web

import "net/url"

// GraphPageView is the graph page of one extraction version.
type GraphPageView struct {
	Version   VersionRow
	ScriptURL string // our glue, static/js/graph.js
	DrawURL   string // static/js/graph-draw.js, loaded before it
	StyleURL  string // static/css/graph.css
	Config    GraphConfig
	Downloads []Download
}

// GraphConfig is handed to graph.js as JSON.
type GraphConfig struct {
	API       string `json:"api"`      // the graph API of the version
	NodeURL   string `json:"node_url"` // prefix of the node side panel; the escaped key follows
	EdgeURL   string `json:"edge_url"` // the edge side panel; source, label, target as query
	Threshold int    `json:"threshold"`
	// Communities is the node count past which the page opens on the
	// graph's communities, a node each (0: never).
	Communities int  `json:"communities"`
	Total       int  `json:"total"`
	LoadAll     bool `json:"load_all"`
	// Layout "live" lays the graph out in the browser even when the
	// version has a stored layout (?layout=live).
	Layout string `json:"layout,omitempty"`
	Focus  string `json:"focus,omitempty"`
	// Community, when set, opens the graph on that community's members
	// (ids start at 0).
	Community *int `json:"community,omitempty"`
	// Times says the graph keeps when its facts held: the page shows an
	// "As of" date and a switch for the facts that ended, whose first
	// values are AsOf (a date or empty for now) and Expired.
	Times   bool   `json:"times,omitempty"`
	AsOf    string `json:"as_of,omitempty"`
	Expired bool   `json:"expired,omitempty"`
	// The layout worker (static/js/graph-layout.js), the drawing code the
	// worker imports (static/js/graph-draw.js) and the layout it runs
	// (static/js/graph-fa2.js): asset URLs with their own content hashes.
	LayoutURL string `json:"layout_url"`
	DrawURL   string `json:"draw_url"`
	FA2URL    string `json:"fa2_url"`
	// ColorBy is what the nodes are coloured by first, "type" or
	// "community"; CommunitiesAPI answers each node's community (fetched
	// when the page colours by community).
	ColorBy        string `json:"color_by"`
	CommunitiesAPI string `json:"communities_api"`
	// CommunitiesPage lists the communities with their reports; a node's
	// panel links its community there (#community-ID).
	CommunitiesPage string `json:"communities_page"`
}

// Download is an export link.
type Download struct {
	Format string
	URL    string
}

// PropRow is a named property value.
type PropRow struct {
	Key   string
	Value string
}

// NodePanelView is the side panel of a node.
type NodePanelView struct {
	VersionID    int
	AsOf         string // the as-of date the node is seen at (empty for now)
	Key          string
	Name         string
	Type         string
	Description  string
	AlsoSeenAs   string    // other types the node was given, "Location ×5"
	Times        FactTimes // when the current value became true
	History      []FactRevision
	Properties   []PropRow // properties worth reading
	Details      []PropRow // bookkeeping properties, folded away
	Out          []PanelEdge
	In           []PanelEdge
	Mentions     []PanelMention
	MentionCount int
}

// PanelEdge is an edge listed in a node's panel; Ended says when and why
// a later fact retired it ("" while it holds).
type PanelEdge struct {
	Label       string
	Other       string
	OtherName   string
	Keywords    string
	Description string
	Expired     bool
	Ended       string
}

// FactTimes say when a fact (a node's value, an edge) held: valid from
// ValidAt until InvalidAt, recorded at RecordedAt; a fact a later one
// retired is Expired, at ExpiredAt in the record, for Reason, at turn
// UntilTurn of a dialogue. Empty fields are unknown. AsOf is the as-of
// date the fact is seen at (empty for now): one that held then is said to
// hold then, not now.
type FactTimes struct {
	AsOf       string
	ValidAt    string
	InvalidAt  string
	RecordedAt string
	ExpiredAt  string
	Reason     string
	UntilTurn  string
	Expired    bool
}

// Known reports whether any time is known.
func (t FactTimes) Known() bool {
	return t.ValidAt != "" || t.InvalidAt != "" || t.RecordedAt != "" || t.Expired
}

// Ended says when and why a retired fact ended: "ended 2023-06-01:
// replaced by …"; empty for a fact that holds.
func (t FactTimes) Ended() string {
	if !t.Expired {
		return ""
	}
	s := "ended"
	switch {
	case t.InvalidAt != "":
		s += " " + t.InvalidAt
	case t.UntilTurn != "":
		s += " at turn " + t.UntilTurn
	}
	if t.Reason != "" {
		s += ": " + t.Reason
	}
	return s
}

// FactRevision is an earlier value of a node: its label and description,
// the turns it was set and replaced at, and when and why it ended.
type FactRevision struct {
	Label       string
	Description string
	Since       string
	Until       string
	ValidAt     string
	InvalidAt   string
	Reason      string
}

// PanelMention is a chunk snippet with the mention marked.
type PanelMention struct {
	Document   string
	ChunkIndex int
	Before     string
	Mark       string
	After      string
	Link       string
}

// EdgePanelView is the side panel of an edge.
type EdgePanelView struct {
	VersionID   int
	Source      string
	Target      string
	SourceName  string
	TargetName  string
	Label       string
	Keywords    string
	Description string
	Weight      string
	Mentions    int
	Times       FactTimes
	AsOf        string // the as-of date the edge is seen at (empty for now)
}

// graphURL is the graph page opened on a node, as of a date if one is
// given.
func graphURL(versionID int, focus, asOf string) string {
	u := "/versions/" + itoa(versionID) + "/graph?focus=" + url.QueryEscape(focus)
	if asOf != "" {
		u += "&as_of=" + url.QueryEscape(asOf)
	}
	return u
}

// FactSpan writes when a fact held, "2023-01-10 → 2023-06-01", with "?"
// for an unknown end.
func FactSpan(from, to string) string {
	return orUnknown(from) + " → " + orUnknown(to)
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
