// Package web holds kgstudio's templ components. Components take plain view
// structs prepared by the handlers and render HTML; they import nothing else
// of the application.
package web

import (
	"fmt"
	"strings"
	"time"
)

// Page is what the layout needs to know about every page.
type Page struct {
	Title string
	// Nav names the active navigation entry: dashboard, schemas,
	// documents, extractions, compare.
	Nav string
	// Asset maps an asset path ("css/app.css") to its cache-busting URL.
	Asset    func(string) string
	Flash    string
	FlashBad bool
	// SignOut shows the sign-out button and User who is signed in (the
	// server requires signing in); Admin the link to the admin page.
	SignOut bool
	User    string
	Admin   bool
	// Own links User to their own page (a person, not a token).
	Own bool
	// Workspace is the workspace the page shows; Workspaces, when more
	// than one, the others the browser may switch to.
	Workspace  string
	Workspaces []string
}

// DocumentRow is a document in a list.
type DocumentRow struct {
	ID      int
	Name    string
	Kind    string
	Size    int
	Created string
	// Dialogue: the document is a dialogue (its page shows its turns).
	Dialogue bool
}

// VersionRow is an extraction version in a list.
type VersionRow struct {
	ID          int
	Extraction  string
	Number      int
	Status      string
	Strategy    string
	Nodes       int
	Edges       int
	ChunksDone  int
	ChunksTotal int
	Reference   bool
	Created     string
	Elapsed     string
	// Note is the version's note ("imported from g.json (json)").
	Note string
	// Curated marks a version written whole from another (an edit, a
	// merge, curation decisions), not extracted by a run.
	Curated bool
}

// Label is "name@number".
func (v VersionRow) Label() string { return fmt.Sprintf("%s@%d", v.Extraction, v.Number) }

// runKind is the strategy of the run that made a version, or "imported"
// for a version no run made (an imported graph has an empty config).
func runKind(v VersionRow) string {
	switch {
	case v.Curated:
		return "curated"
	case v.Strategy == "":
		return "imported"
	}
	return v.Strategy
}

// Dashboard is the home page.
type Dashboard struct {
	Schemas     int
	Documents   int
	Extractions int
	Versions    int
	RecentDocs  []DocumentRow
	Recent      []VersionRow
	// CompareA and CompareB, when set, link to a ready comparison.
	CompareA, CompareB int
}

// HumanBytes formats a size.
func HumanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

// HumanDuration formats a run time.
func HumanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

// grouped writes n with thousands separators: 10,000.
func grouped(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func pct(done, total int) string {
	if total <= 0 {
		return "0"
	}
	return fmt.Sprint(done * 100 / total)
}

// KV is a labelled value.
type KV struct {
	Key, Value string
}

func newCount(items []ParsedItem) int {
	n := 0
	for _, it := range items {
		if it.New {
			n++
		}
	}
	return n
}

// progressURL is the URL a progress partial polls.
func progressURL(p Progress) string {
	u := fmt.Sprintf("/versions/%d/progress", p.VersionID)
	if p.Refresh {
		u += "?refresh=1"
	}
	return u
}

// selectedStrategy is the strategy picked in a run form.
func selectedStrategy(f RunForm) string {
	for _, o := range f.Strategies {
		if o.Selected {
			return o.Value
		}
	}
	if len(f.Strategies) > 0 {
		return f.Strategies[0].Value
	}
	return ""
}

// hasPrompts reports whether the picked strategy has prompt templates.
func hasPrompts(f RunForm) bool {
	s := selectedStrategy(f)
	for _, p := range f.Prompts {
		if p.Strategy == s {
			return true
		}
	}
	return false
}

// Count is count for the handlers' messages.
func Count(n int, singular, plural string) string { return count(n, singular, plural) }

// count writes n with a noun, singular for exactly one: "1 node",
// "3 nodes". plural is the noun's plural form.
func count(n int, singular, plural string) string {
	if n == 1 {
		return "1 " + singular
	}
	return fmt.Sprint(n) + " " + plural
}
