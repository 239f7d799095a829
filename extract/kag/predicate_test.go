package kag

import "testing"

func TestPredicateName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"located in", "locatedIn"},
		{"Located In", "locatedIn"},
		{"LOCATED_IN", "locatedIn"},
		{"located-in", "locatedIn"},
		{"  located   in  ", "locatedIn"},
		{"co-starred with", "coStarredWith"},
		{"is a", "isA"},
		{"CEO of", "ceoOf"},
		{"top 10 of", "top10Of"},
		{"worksFor", "worksFor"},
		{"WorksFor", "worksFor"},
		{"graduatedFrom", "graduatedFrom"},
		{"发行", "发行"},
		{"被 调入", "被调入"},
		{"née de", "néeDe"},
		{"--", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := predicateName(tt.in); got != tt.want {
			t.Errorf("predicateName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
