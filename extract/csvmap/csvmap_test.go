package csvmap_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
)

// testOptions is a small schema: Person with a typed age and a MultiValue
// reference to Company, Company, a Dept taxonomy, and a fund relation with
// edge properties.
var testOptions = csvmap.Options{Types: []csvmap.Type{
	{Name: "Person", Alias: "人", Properties: []csvmap.Property{
		{Name: "age", Type: "Integer"},
		{Name: "phone", Type: "Text"},
		{Name: "IND#worksAt", Alias: "工作", Type: "Company", MultiValue: true},
	}, Relations: []csvmap.Relation{{Name: "pays", Target: "Person", Properties: []csvmap.Property{{Name: "amount", Type: "Integer"}, {Name: "date", Type: "Text"}}}}},
	{Name: "Company", Properties: []csvmap.Property{{Name: "score", Type: "Float"}}},
	{Name: "Dept", Hypernym: "isA"},
}}

// summary renders a graph compactly: nodes "key|name|type|props" and
// edges "src-label->dst props w=weight", sorted.
func summary(g extract.Graph) string {
	var lines []string
	for _, n := range g.Nodes {
		lines = append(lines, fmt.Sprintf("N %s|%s|%s|%v", n.Key, n.Name, n.Type, sortedProps(n.Properties)))
	}
	for _, e := range g.Edges {
		lines = append(lines, fmt.Sprintf("E %s-%s->%s %v w=%v", e.Source, e.Label, e.Target, sortedProps(e.Properties), e.Weight))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func sortedProps(p map[string]any) string {
	var ks []string
	for k, v := range p {
		ks = append(ks, fmt.Sprintf("%s=%#v", k, v))
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func TestMap_Rules(t *testing.T) {
	cases := []struct {
		rule, name, content string
		opts                *csvmap.Options
		want                []string // lines the summary must hold
		not                 []string // substrings it must not hold
	}{
		{rule: "type from the base name, id column named id, name column", name: "data/Person.csv",
			content: "phone,ID,Name\n123,7,Ann\n",
			want:    []string{`N person:7|Ann|Person|phone="123"`}},
		{rule: "type from an alias, id is the first column without an id header", name: "人.csv",
			content: "code,title\nA1,Bob\n",
			want:    []string{`N person:a1|Bob|Person|`}},
		{rule: "no matching type: DefaultType", name: "Gadgets.csv", content: "id,weight\ng1,2.5\n",
			opts: &csvmap.Options{DefaultType: "Thing"},
			want: []string{`N thing:g1|g1|Thing|weight=2.5`}},
		{rule: "no matching type and no default: Concept; the name is the id", name: "misc.csv", content: "id\nx\n",
			want: []string{`N concept:x|x|Concept|`}},
		{rule: "numbers parsed by schema type; Text kept; undeclared plain numbers parsed, codes kept", name: "Person.csv",
			content: "id,age,phone,zip,ratio,code\n1,42,007,90210,0.5,0123\n",
			want:    []string{`N person:1|1|Person|age=42,code="0123",phone="007",ratio=0.5,zip=90210`}},
		{rule: "reference property: edges to typed nodes, multi-values split, label is the column", name: "Person.csv",
			content: "id,worksAt\n1,\"Acme, Beta|Gamma;Acme\"\n2,甲、乙\n",
			want: []string{`E person:1-worksAt->company:acme  w=1`, `E person:1-worksAt->company:beta  w=1`,
				`E person:1-worksAt->company:gamma  w=1`, `E person:2-worksAt->company:甲  w=1`, `E person:2-worksAt->company:乙  w=1`,
				`N company:acme|Acme|Company|`},
			not: []string{"worksAt="}},
		{rule: "a reference column matched by alias", name: "Person.csv", content: "id,工作\n1,Acme\n",
			want: []string{`E person:1-工作->company:acme  w=1`}},
		{rule: "reference cells naming a row of the same table take its name", name: "Company.csv",
			content: "id,name\nc1,Acme Corp\n",
			want:    []string{`N company:c1|Acme Corp|Company|`}},
		{rule: "edge table Src_rel_Dst: typed edge properties, repeated rows one edge with lists", name: "Person_pays_Person.csv",
			content: "src,dst,amount,date\n1,2,10,20230101\n1,2,30,20230102\n2,1,5,20230103\n",
			want: []string{`E person:1-pays->person:2 amount=[]interface {}{10, 30},date=[]interface {}{"20230101", "20230102"} w=2`,
				`E person:2-pays->person:1 amount=5,date="20230103" w=1`, `N person:1|1|Person|`}},
		{rule: "edge table with types the schema lacks: used as written", name: "Ship_dockedAt_Port.csv",
			content: "srcId,dstId\ns1,p1\n",
			want:    []string{`E ship:s1-dockedAt->port:p1  w=1`, `N port:p1|p1|Port|`}},
		{rule: "not an edge table without src/dst columns: a node table", name: "Person_pays_Person.csv",
			content: "id,amount\n1,2\n",
			want:    []string{`N concept:1|1|Concept|amount=2`}},
		{rule: "SPO triples: underscores are spaces, properties JSON", name: "SPO.csv",
			content: "S,P,O,properties\nPanic_disorder,has_symptom,Deep_sadness,{\"confidence\": 0.5}\n",
			want: []string{`E panic disorder-has_symptom->deep sadness confidence=0.5 w=1`,
				`N panic disorder|Panic disorder|Concept|`}},
		{rule: "SPO triples without properties, any file name, default type", name: "facts.csv",
			content: "s,p,o\na,knows,b\n", opts: &csvmap.Options{DefaultType: "Entity"},
			want: []string{`E a-knows->b  w=1`}},
		{rule: "concept taxonomy: dashed ids get isA edges to their parent", name: "Dept.csv",
			content: "id\n内科\n内科-内分泌科\n",
			want:    []string{`E dept:内科-内分泌科-isA->dept:内科  w=1`, `N dept:内科-内分泌科|内科-内分泌科|Dept|`}},
		{rule: "description column", name: "Company.csv", content: "id,desc,score\nc,Makes things.,4\n",
			want: []string{`N company:c|c|Company|score=4`}},
		{rule: "TSV by extension", name: "Person.tsv", content: "id\tname\n1\tAnn\n",
			want: []string{`N person:1|Ann|Person|`}},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			opts := testOptions
			if c.opts != nil {
				opts = *c.opts
			}
			g, fails, err := csvmap.Map(extract.Document{ID: 1, Name: c.name, Content: c.content}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(fails) != 0 {
				t.Errorf("failures %v", fails)
			}
			s := summary(g)
			for _, w := range c.want {
				if !strings.Contains("\n"+s+"\n", "\n"+w+"\n") {
					t.Errorf("missing line %s\nin\n%s", w, s)
				}
			}
			for _, n := range c.not {
				if strings.Contains(s, n) {
					t.Errorf("has %q:\n%s", n, s)
				}
			}
		})
	}
}

func TestMap_Description(t *testing.T) {
	g, _, err := csvmap.Map(extract.Document{Name: "Company.csv", Content: "id,desc\nc,Makes things.\n"}, testOptions)
	if err != nil || len(g.Nodes) != 1 || g.Nodes[0].Description != "Makes things." {
		t.Fatalf("%+v %v", g, err)
	}
}

func TestMap_Mentions(t *testing.T) {
	content := "id,name,worksAt\n1,Ann,\"Acme,Beta\"\n\n2,Bob,Acme\n3,Cy,\"Acme,Acme\"\n"
	g, _, err := csvmap.Map(extract.Document{ID: 5, Name: "Person.csv", Content: content}, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	spans := map[string][]string{}
	for _, n := range g.Nodes {
		for _, m := range n.Mentions {
			spans[n.Key] = append(spans[n.Key], content[m.Start:m.End])
			if m.DocumentID != 5 || m.Text != content[m.Start:m.End] {
				t.Errorf("%s mention %+v", n.Key, m)
			}
		}
	}
	for _, e := range g.Edges {
		for _, m := range e.Mentions {
			spans[e.Label+">"+e.Target] = append(spans[e.Label+">"+e.Target], content[m.Start:m.End])
		}
	}
	want := map[string][]string{
		"person:1":             {`1,Ann,"Acme,Beta"`},
		"person:2":             {`2,Bob,Acme`},
		"company:acme":         {"Acme", "Acme", "Acme"},
		"company:beta":         {"Beta"},
		"worksAt>company:acme": {`1,Ann,"Acme,Beta"`, `2,Bob,Acme`, `3,Cy,"Acme,Acme"`},
	}
	for k, w := range want {
		if fmt.Sprint(spans[k]) != fmt.Sprint(w) {
			t.Errorf("%s spans %q, want %q", k, spans[k], w)
		}
	}
	// The Acme mentions are different cells; a value repeated in a cell
	// is mentioned once.
	var acme []extract.Mention
	for _, n := range g.Nodes {
		if n.Key == "company:acme" {
			acme = n.Mentions
		}
	}
	if len(acme) != 3 || acme[0].Start == acme[1].Start || acme[1].Start == acme[2].Start {
		t.Errorf("acme mentions %+v", acme)
	}
}

func TestMap_Broken(t *testing.T) {
	cases := []struct {
		name, content string
		nodes         int
		fails         []string // "row N" prefixes and a reason fragment, in order
	}{
		{"empty", "", 0, []string{"row 1:|empty table"}},
		{"header only", "id,name\n", 0, nil},
		{"ragged rows", "id,name\n1,a\n2\n3,c,extra\n4,d\n", 2, []string{"row 3:|1 fields, the header 2", "row 4:|3 fields, the header 2"}},
		{"unterminated quote", "id,name\n1,a\n2,\"b\n3,c\n", 1, []string{"row 3:|malformed CSV"}},
		{"quote inside a quoted field", "id,name\n1,\"a\"b\"\n2,c\n", 1, []string{"row 2:|malformed CSV"}},
		{"byte-order mark", "\ufeffid,name\n1,a\n", 1, nil},
		{"missing id", "id,name\n,a\n2,b\n", 1, []string{"row 2:|no id"}},
		{"CJK and full-width", "编号,名称\n一,甲\n二,乙\n", 2, nil},
		{"bad integer", "id,age\n1,old\n", 1, []string{"row 2:|age is Integer"}},
		{"bad SPO properties", "S,P,O,properties\na,r,b,{not json}\n", 2, []string{"row 2:|not a JSON object"}},
		{"SPO with missing object", "S,P,O\na,r,\n", 0, []string{"row 2:|needs a subject"}},
		{"edge row without dst", "src,dst\n1,\n", 0, []string{"row 2:|needs src and dst"}},
		{"CRLF", "id,name\r\n1,a\r\n", 1, nil},
		{"blank lines", "\n\nid\n\n1\n\n", 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := "Person.csv"
			if strings.Contains(c.name, "edge") {
				name = "Person_pays_Person.csv"
			}
			g, fails, err := csvmap.Map(extract.Document{Name: name, Content: c.content}, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Nodes) != c.nodes {
				t.Errorf("%d nodes, want %d: %s", len(g.Nodes), c.nodes, summary(g))
			}
			if len(fails) != len(c.fails) {
				t.Fatalf("failures %+v, want %v", fails, c.fails)
			}
			for i, f := range c.fails {
				prefix, reason, _ := strings.Cut(f, "|")
				if !strings.HasPrefix(fails[i].Line, prefix) || !strings.Contains(fails[i].Reason, reason) {
					t.Errorf("failure %d = %+v, want %s", i, fails[i], f)
				}
			}
		})
	}
}

func TestMap_InvalidUTF8(t *testing.T) {
	if _, _, err := csvmap.Map(extract.Document{Name: "x.csv", Content: "id\n\xff\n"}, csvmap.Options{}); extract.KindOf(err) != extract.KindInvalid {
		t.Fatalf("err = %v", err)
	}
}

func FuzzMap(f *testing.F) {
	for _, s := range []string{"", "id,name\n1,a\n", "\ufeffid\n1\n", "S,P,O,properties\na,b,c,{\"x\":1}\n",
		"src,dst,amount\n1,2,3\n1,2,x\n", "id,worksAt\n1,\"a,b\"\n", "id,\"na\nme\"\n\"1\n", "编号,名称\n一,甲、乙\n",
		"a\tb\n1\t2\n", "id\n内科-内分泌科\n-\n--\n", "id,name\n1,\"a\"b\"\n2\n", "\r\n\r\nid\r1\r\n"} {
		for _, n := range []string{"Person.csv", "Person_pays_Person.csv", "Dept.tsv", "SPO.csv"} {
			f.Add(n, s)
		}
	}
	f.Fuzz(func(t *testing.T, name, content string) {
		g, fails, err := csvmap.Map(extract.Document{ID: 1, Name: name, Content: content}, testOptions)
		if err != nil {
			return
		}
		for _, n := range g.Nodes {
			if n.Key == "" || n.Type == "" {
				t.Fatalf("node %+v", n)
			}
			for _, m := range n.Mentions {
				if m.Start < 0 || m.End > len(content) || m.Start > m.End {
					t.Fatalf("mention %+v of %d bytes", m, len(content))
				}
			}
		}
		for _, e := range g.Edges {
			if len(e.Mentions) == 0 || e.Weight < 1 {
				t.Fatalf("edge %+v", e)
			}
			for _, m := range e.Mentions {
				if m.Start < 0 || m.End > len(content) || m.Start > m.End {
					t.Fatalf("mention %+v of %d bytes", m, len(content))
				}
			}
		}
		for _, fl := range fails {
			if !strings.HasPrefix(fl.Line, "row ") || fl.Reason == "" {
				t.Fatalf("failure %+v", fl)
			}
		}
	})
}

// A column of a standard type the schema does not declare (STD.*) makes
// its values nodes of that type, as KAG does: two people who share a
// phone number link to one node, however each wrote it.
func TestMap_StandardTypeColumn(t *testing.T) {
	opts := csvmap.Options{Types: []csvmap.Type{{Name: "Person", Properties: []csvmap.Property{{Name: "phone", Type: "STD.ChinaMobile"}, {Name: "age", Type: "Integer"}}}}}
	g, fails, err := csvmap.Map(extract.Document{ID: 1, Name: "Person.csv", Content: "id,name,phone,age\n1,Li Lei,13800138000,30\n2,Han Meimei,138-0013-8000,29\n"}, opts)
	if err != nil || len(fails) != 0 {
		t.Fatal(err, fails)
	}
	var phones, edges int
	for _, n := range g.Nodes {
		if n.Type == "STD.ChinaMobile" && n.Name == "13800138000" {
			phones++
		}
		if n.Type == "Person" && (n.Properties["phone"] != nil || n.Properties["age"] == nil) {
			t.Errorf("%s: properties %v; the phone is a node, the age a value", n.Name, n.Properties)
		}
	}
	for _, e := range g.Edges {
		if e.Label == "phone" {
			edges++
		}
	}
	if phones != 1 || edges != 2 {
		t.Errorf("%d phone nodes and %d phone edges; want 1 and 2: %+v", phones, edges, g)
	}
}

// A triples table names its subjects and objects without a type; in a run
// with a node table that defines one of them, the triple's end is that row
// (its type and name), so the run holds one "Ebenezer Scrooge". A name two
// tables define with different types stays as the triple typed it.
func TestMapAll_TriplesJoinTypedRows(t *testing.T) {
	docs := []extract.Document{
		{ID: 1, Name: "Person.csv", Content: "id,name\nscrooge,Ebenezer Scrooge\nmarley,Jacob Marley\nfan,Fan\n"},
		{ID: 2, Name: "Company.csv", Content: "id,name\nfan,Fan\n"},
		{ID: 3, Name: "facts.csv", Content: "S,P,O\nEbenezer_Scrooge,partnerOf,Jacob Marley\nEbenezer Scrooge,livesIn,London\nfan,sisterOf,Ebenezer_Scrooge\n"},
	}
	res, err := csvmap.MapAll(docs, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	got := summary(res[2].Graph)
	for _, want := range []string{
		"N person:scrooge|Ebenezer Scrooge|Person|",
		"N person:marley|Jacob Marley|Person|",
		"E person:scrooge-partnerOf->person:marley",
		"E person:scrooge-livesIn->london",
		"E fan-sisterOf->person:scrooge",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("triples graph lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "concept:ebenezer scrooge") {
		t.Errorf("the triples kept an untyped Ebenezer Scrooge:\n%s", got)
	}
}

// A header named like a triple's parts, in any case, reads as triples;
// any other reads as nodes, and each result says how it was read.
func TestMapAll_TripleHeaders(t *testing.T) {
	for _, header := range []string{"S,P,O", "subject,predicate,object", "Head,Relation,Tail", "source,relation,target", "from,label,to", "Subject , Predicate , Object"} {
		res, err := csvmap.MapAll([]extract.Document{{ID: 1, Name: "facts.csv", Content: header + "\nAda Lovelace,worked with,Charles Babbage\n"}}, csvmap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := res[0].Graph
		if len(g.Edges) != 1 || g.Edges[0].Label != "worked with" || len(g.Nodes) != 2 || !strings.HasPrefix(res[0].Layout, "triples") {
			t.Errorf("%q: %s\nlayout %q", header, summary(g), res[0].Layout)
		}
	}
	res, err := csvmap.MapAll([]extract.Document{{ID: 1, Name: "people.csv", Content: "name,born,field\nAda Lovelace,1815,mathematics\n"}}, csvmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Graph.Edges) != 0 || !strings.Contains(res[0].Layout, "node table") || !strings.Contains(res[0].Layout, "name, born, field") {
		t.Errorf("a node table: %s\nlayout %q", summary(res[0].Graph), res[0].Layout)
	}
}

// A triple's predicate says what its ends are when nothing else does:
// a doctoral advisor is a person, a place of birth a location, a school
// one was educated at an organisation; a predicate it does not know
// leaves the default type, and a schema without the kind leaves it too.
func TestMapAll_TripleKinds(t *testing.T) {
	content := "subject,predicate,object\nAlan Turing,doctoral advisor,Alonzo Church\nAlan Turing,place of birth,Maida Vale\n" +
		"Alan Turing,educated_at,Princeton University\nAlan Turing,liked,Long-distance running\n"
	res, err := csvmap.MapAll([]extract.Document{{ID: 1, Name: "turing.csv", Content: content}}, csvmap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Alan Turing": "Person", "Alonzo Church": "Person", "Maida Vale": "Location",
		"Princeton University": "Organization", "Long-distance running": csvmap.DefaultType}
	got := map[string]string{}
	for _, n := range res[0].Graph.Nodes {
		got[n.Name] = n.Type
	}
	for name, typ := range want {
		if got[name] != typ {
			t.Errorf("%s typed %q, want %q (all: %v)", name, got[name], typ, got)
		}
	}
	res, err = csvmap.MapAll([]extract.Document{{ID: 1, Name: "turing.csv", Content: content}},
		csvmap.Options{Types: []csvmap.Type{{Name: "Scientist"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res[0].Graph.Nodes {
		if n.Type == "Person" || n.Type == "Location" {
			t.Errorf("%s typed %q, a kind the schema has not", n.Name, n.Type)
		}
	}
}
