package kag

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// FuzzReaders feeds arbitrary model output to the readers of every step:
// they never panic, and everything they keep has a name and a category.
func FuzzReaders(f *testing.F) {
	for _, s := range []string{
		`{"entities": [{"name": "Scrooge", "category": "Person", "properties": [{"name": "age", "values": ["70"]}]}]}`,
		"```json\n{'entities': [{name: 'Marley', category: 'Person',},]}\n```",
		`[{"category": "Person", "properties": {"name": "Fred", "spouse": {"name": "Clara"}}}]`,
		`{"relations": [["Scrooge", "partnerOf", "Marley"], {"subject": "A", "predicate": "p", "object": "B"}, ["x"`,
		`[["Scrooge", "Person", "partner of", "Marley", "Person"], ["A", "", "--", "B", ""]]`,
		`{"entities": [{"name": "Scrooge", "official_name": "Ebenezer Scrooge"}]}`,
		`<think>{`, `null`, `[[[[[`, `{"entities": {"name": 1}}`,
	} {
		f.Add(s)
	}
	x := &Extractor{}
	f.Fuzz(func(t *testing.T, out string) {
		var res extract.ChunkResult
		res.Calls = []extract.CallRecord{{}}
		items := x.readItems(&res, out, "entities", false)
		for _, it := range items {
			if it.Name == "" || it.Category == "" {
				t.Fatalf("kept item without name or category: %+v", it)
			}
		}
		x.readOfficial(&res, out, items)
		for _, r := range x.readRelations(&res, out) {
			if r.Subject == "" || r.Predicate == "" || r.Object == "" {
				t.Fatalf("kept incomplete relation %+v", r)
			}
		}
		for k, n := range res.Repairs {
			if k == "" || n <= 0 {
				t.Fatalf("bad repair count %q=%d", k, n)
			}
		}
	})
}
