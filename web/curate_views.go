package web

// DuplicatesPage is the duplicate review queue of a version: the current
// pair with its actions, then the pairs after it.
type DuplicatesPage struct {
	Version VersionRow
	// Active is true while the version runs: no merges then.
	Active bool
	// Current is the pair under review; nil when the queue is empty.
	Current *DuplicatePair
	// Next lists the pairs after the current one.
	Next []DuplicatePair
	// Skip is the number of pairs skipped before Current; Total counts
	// every candidate pair.
	Skip, Total int
}

// DuplicatePair is one duplicate candidate: the node suggested to stay,
// the one suggested to be merged into it, the score and the reasons.
type DuplicatePair struct {
	KeepKey, KeepName, KeepType string
	DropKey, DropName, DropType string
	Score                       string
	Reasons                     []string
}
