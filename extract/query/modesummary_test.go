package query

import "testing"

// Every mode a user can choose says what it searches.
func TestModeSummary(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Modes {
		s := ModeSummary(m)
		if s == "" || seen[s] {
			t.Errorf("mode %s: summary %q (empty or another mode's)", m, s)
		}
		seen[s] = true
	}
	if ModeSummary("nope") != "" {
		t.Error("an unknown mode has a summary")
	}
}
