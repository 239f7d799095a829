package schema

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// The standard-type values of a chunk become nodes linked from the
// nearest owner in their sentence; one value written two ways is one
// node; the extractor's own node of a value's text gives way; a value
// without an owner in its sentence stays out.
func TestLinkStandard(t *testing.T) {
	sc, err := ParseKAGString(`namespace T

Person(人): EntityType
	properties:
		phone(电话): STD.ChinaMobile
		email(邮箱): STD.Email
`)
	if err != nil {
		t.Fatal(err)
	}
	text := "Li Lei's phone is 138-0013-8000 and his mail LI.LEI@Example.com. Han Meimei can be reached on 13800138000. Call 13912345678 for the office."
	at := func(s string) extract.Mention {
		i := indexOf(text, s)
		return extract.Mention{DocumentID: 1, Start: i, End: i + len(s), Text: s}
	}
	g := extract.Graph{
		Nodes: []extract.Node{
			{Key: "li lei", Name: "Li Lei", Type: "Person", Mentions: []extract.Mention{at("Li Lei")}},
			{Key: "han meimei", Name: "Han Meimei", Type: "人", Mentions: []extract.Mention{at("Han Meimei")}},
			{Key: "13800138000", Name: "13800138000", Type: "Number", Mentions: []extract.Mention{at("13800138000")}},
		},
		Edges: []extract.Edge{{Source: "han meimei", Target: "13800138000", Label: "related_to"}},
	}
	sc.LinkStandard(&g, extract.Chunk{DocumentID: 1, Text: text, End: len(text)})
	phone := extract.TypedNodeKey("STD.ChinaMobile", "13800138000")
	mail := extract.TypedNodeKey("STD.Email", "li.lei@example.com")
	want := []string{"li lei phone " + phone, "li lei email " + mail, "han meimei phone " + phone}
	var got []string
	for _, e := range g.Edges {
		got = append(got, e.Source+" "+e.Label+" "+e.Target)
	}
	if len(got) != len(want) {
		t.Fatalf("edges %q; want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("edges %q; want %q", got, want)
		}
	}
	types := map[string]string{}
	for _, n := range g.Nodes {
		types[n.Key] = n.Type
	}
	if len(g.Nodes) != 4 || types[phone] != "STD.ChinaMobile" || types[mail] != "STD.Email" || types["13800138000"] != "" {
		t.Errorf("nodes %v; want Li Lei, Han Meimei, one phone and one e-mail node (the number node gone, the office's number unowned)", types)
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
