package eval

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
)

const webnlgSample = `<?xml version="1.0" ?>
<benchmark>
  <entries>
    <entry category="Building" eid="Id5" shape="" shape_type="" size="3">
      <originaltripleset><otriple>ignored | x | y</otriple></originaltripleset>
      <modifiedtripleset>
        <mtriple>Alan_B._Miller_Hall | architect | Robert_A._M._Stern</mtriple>
        <mtriple>Alan_B._Miller_Hall | address | &quot;101 Ukrop Way&quot;</mtriple>
        <mtriple>Alan_B._Miller_Hall | floorCount | 3</mtriple>
      </modifiedtripleset>
      <lex lang="en" lid="1">Alan B. Miller Hall at "101 Ukrop Way" was designed by Robert A. M. Stern.</lex>
      <lex lang="en" lid="2">Second text, not used.</lex>
    </entry>
    <entry category="City" eid="Id7" size="1">
      <modifiedtripleset><mtriple>東京 | country | 日本</mtriple></modifiedtripleset>
      <lex lang="en" lid="1">東京は日本の首都です。</lex>
    </entry>
  </entries>
</benchmark>`

func TestReadWebNLG(t *testing.T) {
	want := []Entry{
		{
			ID:   "Id5",
			Text: `Alan B. Miller Hall at "101 Ukrop Way" was designed by Robert A. M. Stern.`,
			Entities: []GoldEntity{
				{Names: []string{"Alan B. Miller Hall"}, Type: WebNLGEntity},
				{Names: []string{"Robert A. M. Stern"}, Type: WebNLGEntity},
				{Names: []string{"101 Ukrop Way"}, Type: WebNLGLiteral},
				{Names: []string{"3"}, Type: WebNLGLiteral},
			},
			Relations: []GoldRelation{{0, 1, "architect"}, {0, 2, "address"}, {0, 3, "floorCount"}},
		},
		{
			ID: "Id7", Text: "東京は日本の首都です。",
			Entities:  []GoldEntity{{Names: []string{"東京"}, Type: WebNLGEntity}, {Names: []string{"日本"}, Type: WebNLGEntity}},
			Relations: []GoldRelation{{0, 1, "country"}},
		},
	}
	tests := []struct {
		name    string
		in      string
		want    []Entry
		wantErr string
	}{
		{name: "OK", in: webnlgSample, want: want},
		{name: "ByteOrderMark", in: "\ufeff" + webnlgSample, want: want},
		{name: "Empty", in: "", wantErr: "not a WebNLG XML file"},
		{name: "NoEntries", in: "<benchmark><entries></entries></benchmark>", wantErr: "no <entry>"},
		{name: "BrokenXML", in: "<benchmark><entries><entry>", wantErr: "not a WebNLG XML file"},
		{name: "NoText", in: `<benchmark><entries><entry eid="Id1"><modifiedtripleset><mtriple>a | b | c</mtriple></modifiedtripleset></entry></entries></benchmark>`, wantErr: "entry Id1 has no text"},
		{name: "BadTriple", in: `<benchmark><entries><entry eid="Id1"><modifiedtripleset><mtriple>a | b</mtriple></modifiedtripleset><lex>x</lex></entry></entries></benchmark>`, wantErr: "is not \"subject | predicate | object\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadWebNLG(strings.NewReader(tt.in))
			checkErr(t, err, tt.wantErr)
			if tt.wantErr == "" && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

const docredSample = `[{"title": "Ada", "sents": [["Ada", "Lovelace", "(", "born", "1815", ")", "wrote", "\"", "Notes", "\"", "."], ["Lovelace", "'s", "father", "was", "Byron", "."]],
 "vertexSet": [
   [{"name": "Ada Lovelace", "pos": [0, 2], "sent_id": 0, "type": "PER"}, {"name": "Lovelace", "pos": [0, 1], "sent_id": 1, "type": "PER"}],
   [{"name": "1815", "pos": [4, 5], "sent_id": 0, "type": "TIME"}],
   [{"name": "Byron", "pos": [4, 5], "sent_id": 1, "type": "PER"}],
   [{"name": "\" Notes \"", "pos": [7, 10], "sent_id": 0, "type": "MISC"}]],
 "labels": [{"h": 0, "t": 2, "r": "P22", "evidence": [1]}, {"h": 0, "t": 1, "r": "P569", "evidence": [0]}]}]`

func TestReadDocRED(t *testing.T) {
	want := []Entry{{
		ID:   "Ada",
		Text: `Ada Lovelace (born 1815) wrote "Notes". Lovelace's father was Byron.`,
		Entities: []GoldEntity{
			{Names: []string{"Ada Lovelace", "Lovelace"}, Type: "PER"},
			{Names: []string{"1815"}, Type: "TIME"},
			{Names: []string{"Byron"}, Type: "PER"},
			{Names: []string{`" Notes "`}, Type: "MISC"}, // the detokenised `"Notes"` normalises the same
		},
		Relations: []GoldRelation{{0, 2, "P22"}, {0, 1, "P569"}},
	}}
	tests := []struct {
		name    string
		in      string
		want    []Entry
		wantErr string
	}{
		{name: "OK", in: docredSample, want: want},
		{name: "ByteOrderMark", in: "\ufeff" + docredSample, want: want},
		{name: "Empty", in: "", wantErr: "not a DocRED JSON array"},
		{name: "EmptyArray", in: "[]", wantErr: "no documents"},
		{name: "NotAnArray", in: `{"title": "x"}`, wantErr: "not a DocRED JSON array"},
		{name: "NoText", in: `[{"title": "x", "sents": [], "vertexSet": [], "labels": []}]`, wantErr: `document "x" has no text`},
		{name: "EntityWithoutMentions", in: `[{"title": "x", "sents": [["a"]], "vertexSet": [[]], "labels": []}]`, wantErr: "entity 0 has no mentions"},
		{name: "BadPosition", in: `[{"title": "x", "sents": [["a"]], "vertexSet": [[{"name": "a", "pos": [5, 9], "sent_id": 3, "type": "PER"}]], "labels": []}]`,
			want: []Entry{{ID: "x", Text: "a", Entities: []GoldEntity{{Names: []string{"a"}, Type: "PER"}}, Relations: []GoldRelation{}}}},
		{name: "RelationOutOfRange", in: `[{"title": "x", "sents": [["a"]], "vertexSet": [[{"name": "a", "pos": [0, 1], "sent_id": 0, "type": "PER"}]], "labels": [{"h": 0, "t": 4, "r": "P1"}]}]`, wantErr: "refers to entity 0 or 4 of 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadDocRED(strings.NewReader(tt.in))
			checkErr(t, err, tt.wantErr)
			if tt.wantErr == "" && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestNameRelations(t *testing.T) {
	names, err := ReadRelationNames(strings.NewReader(`{"P22": "father"}`))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ReadDocRED(strings.NewReader(docredSample))
	if err != nil {
		t.Fatal(err)
	}
	NameRelations(entries, names)
	if got := []string{entries[0].Relations[0].Label, entries[0].Relations[1].Label}; !reflect.DeepEqual(got, []string{"father", "P569"}) {
		t.Errorf("labels = %v", got)
	}
	if _, err := ReadRelationNames(strings.NewReader(`["P22"]`)); extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("array accepted as relation names: %v", err)
	}
}

func TestDetokenize(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{"Empty", nil, ""},
		{"Punctuation", []string{"Hello", ",", "world", "!"}, "Hello, world!"},
		{"Brackets", []string{"born", "(", "1815", ")", "in", "London"}, "born (1815) in London"},
		{"Quotes", []string{"called", "\"", "the", "Elder", "\"", "by", "\"", "him", "\""}, `called "the Elder" by "him"`},
		{"Clitics", []string{"Lovelace", "'s", "work", "did", "n't", "stop"}, "Lovelace's work didn't stop"},
		{"CJK", []string{"東京", "は", "首都", "。"}, "東京 は 首都。"},
		{"EmptyTokens", []string{"", "a", "", "b"}, "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detokenize(tt.in); got != tt.want {
				t.Errorf("Detokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	if extract.KindOf(err) != extract.KindInvalid {
		t.Errorf("error kind = %s, want invalid", extract.KindOf(err))
	}
}

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	return testkit.Read(t, "gold/"+name)
}

func TestReadWebNLG_RealFile(t *testing.T) {
	data := mustRead(t, "webnlg2020_text2rdf_seen_first200.xml")
	entries, err := ReadWebNLG(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The README says the file holds the first 200 entries.
	if len(entries) != 200 {
		t.Fatalf("entries = %d, want 200", len(entries))
	}
	// Every modified triple becomes one relation; count them in the raw text.
	relations := 0
	for _, e := range entries {
		relations += len(e.Relations)
		if e.Text == "" || len(e.Entities) < 2 {
			t.Errorf("entry %s: text %q, %d entities", e.ID, e.Text, len(e.Entities))
		}
		for _, ge := range e.Entities {
			for _, n := range ge.Names {
				if strings.Contains(n, "_") || strings.HasPrefix(n, `"`) {
					t.Errorf("entry %s: name %q keeps DBpedia form", e.ID, n)
				}
			}
		}
		for _, r := range e.Relations {
			if r.Head < 0 || r.Head >= len(e.Entities) || r.Tail < 0 || r.Tail >= len(e.Entities) {
				t.Errorf("entry %s: relation %+v out of range", e.ID, r)
			}
		}
	}
	if want := strings.Count(string(data), "<mtriple>"); relations != want {
		t.Errorf("relations = %d, want %d (<mtriple> elements)", relations, want)
	}
}

func TestReadDocRED_RealFile(t *testing.T) {
	data := mustRead(t, "redocred_dev_revised_first100.json")
	entries, err := ReadDocRED(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// Count independently with a generic decode.
	var raw []map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(raw) || len(entries) != 100 {
		t.Fatalf("entries = %d, raw documents = %d, README says 100", len(entries), len(raw))
	}
	for i, doc := range raw {
		e := entries[i]
		if e.ID != doc["title"] {
			t.Errorf("doc %d: id %q, title %v", i, e.ID, doc["title"])
		}
		if got, want := len(e.Entities), len(doc["vertexSet"].([]any)); got != want {
			t.Errorf("doc %d: %d entities, want %d", i, got, want)
		}
		if got, want := len(e.Relations), len(doc["labels"].([]any)); got != want {
			t.Errorf("doc %d: %d relations, want %d", i, got, want)
		}
		for _, ge := range e.Entities {
			switch ge.Type {
			case "PER", "ORG", "LOC", "TIME", "NUM", "MISC":
			default:
				t.Errorf("doc %d: unexpected type %q", i, ge.Type)
			}
		}
	}
	names, err := ReadRelationNames(strings.NewReader(string(mustRead(t, "docred_rel_info.json"))))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 96 {
		t.Errorf("relation names = %d, README says 96", len(names))
	}
	NameRelations(entries, names)
	for _, e := range entries {
		for _, r := range e.Relations {
			if strings.HasPrefix(r.Label, "P") && names[r.Label] == "" && strings.Trim(r.Label[1:], "0123456789") == "" {
				t.Errorf("entry %s: code %s has no name", e.ID, r.Label)
			}
		}
	}
}

func FuzzReadDocRED(f *testing.F) {
	f.Add(docredSample)
	f.Add(`[{"title": "x", "sents": [["a"]], "vertexSet": [[{"name": "a", "pos": [0, 1], "sent_id": 0}]], "labels": [{"h": 0, "t": 0}]}]`)
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := ReadDocRED(strings.NewReader(in))
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		_ = Score(entries, nil, DocREDTypes)
	})
}

func FuzzReadWebNLG(f *testing.F) {
	f.Add(webnlgSample)
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := ReadWebNLG(strings.NewReader(in))
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		_ = Score(entries, nil, nil)
	})
}
