package nlp

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// A domain graph's names are a gazetteer (KAG's external_graph.ner): a
// text that names a domain entity, by name or alias, gets it recognised
// under the domain's name and type, in English and in Chinese, and the
// extractor without the domain is left as it was.
func TestWithDomain_RecognisesDomainEntities(t *testing.T) {
	base := mustNew(t, Options{})
	d := extract.NewDomain([]extract.DomainEntity{
		{Name: "促肾上腺皮质激素", Type: "Concept", Aliases: []string{"ACTH", "促皮质素"}},
		{Name: "growth hormone", Type: "Medicine"},
		{Name: "生长激素", Type: "Medicine"},
		{Name: "X", Type: "Concept"}, // one letter: never looked for
	})
	ex := base.WithDomain(d)
	for _, tc := range []struct {
		text string
		want map[string]string // node name -> type
	}{
		{"Growth hormone is released by the pituitary gland. Doctors in Boston measure ACTH in the morning, and growth hormone at night.",
			map[string]string{"growth hormone": "Medicine", "促肾上腺皮质激素": "Concept", "Boston": "Location"}},
		{"生长激素是由人体脑垂体前叶分泌的一种肽类激素。促皮质素刺激肾上腺皮质。",
			map[string]string{"生长激素": "Medicine", "促肾上腺皮质激素": "Concept"}},
	} {
		text := tc.text
		doc := extract.Document{ID: 1, Name: "d.txt", Content: text}
		chunk := extract.Chunk{DocumentID: 1, Text: text, End: len(text)}
		res, err := ex.Extract(context.Background(), doc, chunk)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		mentions := map[string]int{}
		for _, n := range res.Graph.Nodes {
			got[n.Name] = n.Type
			mentions[n.Name] = len(n.Mentions)
		}
		for name, typ := range tc.want {
			if got[name] != typ {
				t.Errorf("%.20q…: %s is %q; want %q (nodes %v)", text, name, got[name], typ, got)
			}
		}
		if _, ok := got["ACTH"]; ok {
			t.Errorf("ACTH is a node of its own; it is the domain's 促肾上腺皮质激素: %v", got)
		}
		if got["X"] != "" {
			t.Errorf("a one-letter domain name was recognised: %v", got)
		}
		if n := mentions["growth hormone"]; tc.want["growth hormone"] != "" && n != 2 {
			t.Errorf("growth hormone mentioned %d times; want 2", n)
		}
		// The same extractor without the domain does not know them.
		plain, err := base.Extract(context.Background(), doc, chunk)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range plain.Graph.Nodes {
			if tc.want[n.Name] != "" && n.Type == tc.want[n.Name] && n.Name != "Boston" && n.Type != "Concept" {
				t.Errorf("without the domain %s is still %s", n.Name, n.Type)
			}
		}
	}
	if base.WithDomain(nil) != extract.Extractor(base) {
		t.Error("no domain should give the extractor itself")
	}
}

// Find: the longest name wins at a place, Latin names only as words.
func TestDomainFind(t *testing.T) {
	d := extract.NewDomain([]extract.DomainEntity{{Name: "Ann", Type: "Person"}, {Name: "Ann Lee", Type: "Person"}, {Name: "激素", Type: "Concept"}, {Name: "肾上腺皮质激素", Type: "Concept"}})
	var got []string
	text := "Annual: Ann Lee met Ann. 肾上腺皮质激素与激素"
	for _, m := range d.Find(text) {
		got = append(got, text[m.Start:m.End])
	}
	want := []string{"Ann Lee", "Ann", "肾上腺皮质激素", "激素"}
	if len(got) != len(want) {
		t.Fatalf("found %q; want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("found %q; want %q", got, want)
		}
	}
}
