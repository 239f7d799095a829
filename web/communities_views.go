package web

// CommunitiesPage lists a version's communities of one level: their
// titles, sizes, reports and best-connected members, each with a link
// into the graph focused on it.
type CommunitiesPage struct {
	V          VersionRow
	Levels     int
	Level      int
	Modularity float64
	// ModelReports counts the reports a model wrote (the others are
	// written offline from the graph).
	ModelReports int
	Communities  []CommunityRow
}

// CommunityRow is one community.
type CommunityRow struct {
	ID, Size       int
	Title, Summary string
	ReportBy       string
	Findings       []string
	TopNodes       []string
	GraphURL       string
}

// joinNames lists names as "a, b and c".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := ""
	for i, n := range names[:len(names)-1] {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out + " and " + names[len(names)-1]
}
