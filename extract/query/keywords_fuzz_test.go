package query_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract/query"
)

// FuzzKeywords: keywords are non-empty, valid text, without duplicates
// (case-insensitively) within a list.
func FuzzKeywords(f *testing.F) {
	f.Add("Who was Marley's partner?")
	f.Add(`What did "the Ghost of Christmas Past" show Scrooge in 1843?`)
	f.Add("马利的合伙人是谁？")
	f.Add("''\"\"?!")
	f.Fuzz(func(t *testing.T, question string) {
		high, low := query.Keywords(question)
		for _, list := range [][]string{high, low} {
			seen := map[string]bool{}
			for _, k := range list {
				if strings.TrimSpace(k) == "" || (utf8.ValidString(question) && !utf8.ValidString(k)) {
					t.Fatalf("keyword %q of %q", k, question)
				}
				if seen[strings.ToLower(k)] {
					t.Fatalf("duplicate %q in %q from %q", k, list, question)
				}
				seen[strings.ToLower(k)] = true
			}
		}
	})
}
