package web

// CompareTurn is one dialogue turn's operation counts in both versions.
type CompareTurn struct {
	Turn    int
	Speaker string
	A, B    TurnCounts
	HasA    bool
	HasB    bool
	Differs bool
}

// TurnCounts are the operations one version produced for a turn.
type TurnCounts struct {
	AddNode, UpdateNode, AddRelation, Rejected int
	Coverage                                   string
}
