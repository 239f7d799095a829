package web

// JobsView is what the jobs of a run are doing (see the version page):
// River's counts. The chunks whose attempts failed are in the version
// page's one table of failures (VersionPage.ChunkErrors).
type JobsView struct {
	Queued, Running, Retried, Failed, Completed, Canceled int
}
