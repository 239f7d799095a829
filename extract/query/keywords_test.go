package query

import (
	"slices"
	"testing"
)

func TestKeywords(t *testing.T) {
	tests := []struct {
		name, q   string
		high, low []string
	}{
		{"possessive name and relational noun", "Who was Marley's partner?", []string{"partner"}, []string{"Marley"}},
		{"multi-word name with connector", "What is the relationship between the Bank of England and Ebenezer Scrooge?",
			[]string{"relationship"}, []string{"Bank of England", "Ebenezer Scrooge"}},
		{"content nouns and themes", "How did the ghost influence the miser's behaviour?",
			[]string{"influence"}, []string{"ghost", "miser", "behaviour"}},
		{"double quotes", `Where does "the counting-house" appear in the story?`,
			nil, []string{"the counting-house", "appear", "story"}},
		{"single quotes keep apostrophes", "What did Scrooge say about 'Bah humbug' at Christmas?",
			nil, []string{"Bah humbug", "Scrooge", "say", "Christmas"}},
		{"chinese with particles", "鲁迅和许广平是什么关系？", []string{"关系"}, []string{"鲁迅", "许广平"}},
		{"chinese title quotes", "《呐喊》的作者是谁？", nil, []string{"呐喊", "作者"}},
		{"chinese mixed with latin", "阿里巴巴在Hangzhou的总部", nil, []string{"阿里巴巴", "总部", "Hangzhou"}},
		{"nothing to find", "what is it?", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			high, low := Keywords(tt.q)
			if !slices.Equal(high, tt.high) || !slices.Equal(low, tt.low) {
				t.Errorf("Keywords(%q) = high %q low %q, want high %q low %q", tt.q, high, low, tt.high, tt.low)
			}
		})
	}
}
