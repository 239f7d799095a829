package web

// NodeEditView holds what the side panel's edit forms of a node need.
type NodeEditView struct {
	VersionID   int
	Key         string
	Name        string
	Type        string
	Description string
	// Locked says the version is still running: no edits yet.
	Locked bool
}

// EdgeEditView holds what the side panel's edit form of an edge needs.
type EdgeEditView struct {
	VersionID int
	Source    string
	Label     string
	Target    string
	Locked    bool
}

// GraphFocusURL is the graph page of a version focused on a node.
func GraphFocusURL(versionID int, focus string) string { return graphURL(versionID, focus, "") }
