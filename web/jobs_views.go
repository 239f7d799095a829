package web

// JobsView is what the jobs of a run are doing (see the version page):
// River's counts and the chunks whose attempts failed, with their last
// errors.
type JobsView struct {
	Queued, Running, Retried, Failed, Completed, Canceled int
	Errors                                                []JobErrorView
}

// JobErrorView is a chunk whose job failed at least once.
type JobErrorView struct {
	DocumentID, Index int
	// State is "retrying" while another attempt is due, "failed" after the
	// last, "done" when a later attempt succeeded.
	State    string
	Attempts int
	Error    string
}
