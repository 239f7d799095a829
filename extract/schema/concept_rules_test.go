package schema

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// A KAG concept.rule file reads as a schema of concept rules only: three
// sections, each with its concept and its rule; written back and read
// again it is the same; each rule parses, the first one's structure is a
// lone node with a like filter.
func TestParseKAG_ConceptRuleFile(t *testing.T) {
	s, err := ParseKAGString(string(testkit.Read(t, "kag-rules/RiskMining.rule")))
	if err != nil {
		t.Fatal(err)
	}
	if s.Namespace != "RiskMining" || len(s.Types) != 0 || len(s.ConceptRules) != 3 {
		t.Fatalf("namespace %q, %d types, %d concept rules", s.Namespace, len(s.Types), len(s.ConceptRules))
	}
	if c := s.ConceptRules[1].Concept; c != "`TaxOfRiskUser`/`赌博App开发者`" {
		t.Errorf("second concept %q", c)
	}
	again, err := ParseKAGString(FormatKAG(s))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.ConceptRules, s.ConceptRules) {
		t.Errorf("written and read again:\n%+v\nwant\n%+v", again.ConceptRules, s.ConceptRules)
	}
	r, err := ParseRule(s.ConceptRules[0].Rule)
	if err != nil {
		t.Fatal(err)
	}
	if r.ObjectConcept != "赌博应用" || lastPart(r.Types[r.Object]) != "TaxOfRiskApp" || !reflect.DeepEqual(r.Lone, []string{"s"}) ||
		len(r.Filters) != 1 || r.Filters[0].Op != "like" || r.Filters[0].Prop != "riskMark" {
		t.Errorf("parsed %+v", r)
	}
	for _, c := range s.ConceptRules[1:] {
		if _, err := ParseRule(c.Rule); err != nil {
			t.Errorf("%s: %v", c.Concept, err)
		}
	}
	if p := Validate(&Schema{Types: []EntityType{{Name: "A", Kind: KindEntity}}, ConceptRules: s.ConceptRules}); len(p) != 0 {
		t.Errorf("valid concept rules: %v", p)
	}
}

// riskGraph is a small graph of RiskMining's shape: three apps (two
// marked gambling), four people, who developed and released what, and
// transfers between them.
func riskGraph() extract.Graph {
	n := func(key, typ string, props map[string]any) extract.Node {
		return extract.Node{Key: key, Name: key, Type: typ, Properties: props}
	}
	e := func(s, l, o string, props map[string]any) extract.Edge {
		return extract.Edge{Source: s, Label: l, Target: o, Properties: props}
	}
	return extract.Graph{
		Nodes: []extract.Node{
			n("casino", "App", map[string]any{"riskMark": "赌博"}),
			n("poker", "App", map[string]any{"riskMark": "涉嫌赌博"}),
			n("notes", "App", map[string]any{"riskMark": "UNKNOWN"}),
			n("dev1", "Person", map[string]any{"age": 31}),
			n("dev2", "Person", map[string]any{"age": "19"}),
			n("boss", "Person", map[string]any{"age": 50}),
			n("clerk", "Person", nil),
		},
		Edges: []extract.Edge{
			e("dev1", "developed", "casino", nil),
			e("dev2", "developed", "notes", nil),
			e("boss", "release", "casino", nil),
			e("clerk", "release", "casino", nil),
			e("boss", "fundTrans", "dev1", map[string]any{"transAmt": 5000.0}),
			e("clerk", "fundTrans", "dev1", map[string]any{"transAmt": "20"}),
		},
	}
}

func derivedStrings(g extract.Graph) []string {
	var out []string
	for _, e := range g.Edges {
		out = append(out, e.Source+" "+e.Label+" "+e.Target)
	}
	sort.Strings(out)
	return out
}

// Concept rules classify by a property (like), by a relation to a member
// of a concept (a rule that joins what another derived, so the rules run
// again until nothing new comes), and by an edge property; the concept
// nodes the graph lacks are made, each once. Keywords are read in any
// case.
func TestDeriveRules_Concepts(t *testing.T) {
	app := extract.TypedNodeKey("TaxOfRiskApp", "赌博应用")
	dev := extract.TypedNodeKey("TaxOfRiskUser", "赌博App开发者")
	boss := extract.TypedNodeKey("TaxOfRiskUser", "赌博App老板")
	s := &Schema{Types: []EntityType{{Name: "App", Kind: KindEntity}}, ConceptRules: []ConceptRule{
		// Written before the rule it needs: the second round finds them.
		{Rule: "Define (s:Person)-[p:belongTo]->(o:`TaxOfRiskUser`/`赌博App老板`) {\n" +
			"structure { (s)-[:release]->(a:`TaxOfRiskApp`/`赌博应用`), (u:Person)-[:developed]->(a), (s)-[f:fundTrans]->(u) }\n" +
			"constraint { R1(\"大额\"): f.transAmt >= 1000 }\n}"},
		{Rule: "Define (s:Person)-[p:belongTo]->(o:`TaxOfRiskUser`/`赌博App开发者`) {\n" +
			"Structure { (s)-[:developed]->(app:`TaxOfRiskApp`/`赌博应用`) }\nConstraint { }\n}"},
		{Rule: "define (s:App)-[p:belongTo]->(o:`RiskMining.TaxOfRiskApp`/`赌博应用`) {\n" +
			"STRUCTURE { (s) }\nCONSTRAINT { R1(\"赌博\"): s.riskMark like \"%赌博%\"\n R2: s.riskMark != \"UNKNOWN\" }\n}"},
	}}
	d, err := DeriveRules(context.Background(), s, riskGraph(), Budget{})
	if err != nil || len(d.Skipped) != 0 || len(d.Idle) != 0 {
		t.Fatalf("error %v, skipped %v, idle %v", err, d.Skipped, d.Idle)
	}
	got := d.Graph
	want := []string{
		"boss belongTo " + boss, // clerk's transfer is too small
		"casino belongTo " + app,
		"dev1 belongTo " + dev, // dev2 developed no gambling app
		"poker belongTo " + app,
	}
	sort.Strings(want)
	if d := derivedStrings(got); !reflect.DeepEqual(d, want) {
		t.Errorf("derived\n%q\nwant\n%q", d, want)
	}
	var made []string
	for _, n := range got.Nodes {
		made = append(made, n.Key)
	}
	sort.Strings(made)
	if w := []string{boss, dev, app}; fmt.Sprint(made) != fmt.Sprint(sortedCopy(w)) {
		t.Errorf("made nodes %q; want %q", made, w)
	}

	// A concept node the graph has is used, not made again.
	g := riskGraph()
	g.Nodes = append(g.Nodes, extract.Node{Key: "gambling", Name: "赌博应用", Type: "TaxOfRiskApp"})
	d, err = DeriveRules(context.Background(), &Schema{ConceptRules: s.ConceptRules[2:]}, g, Budget{})
	got = d.Graph
	if err != nil || len(got.Nodes) != 0 || fmt.Sprint(derivedStrings(got)) != "[casino belongTo gambling poker belongTo gambling]" {
		t.Errorf("with the concept node: %v, %+v", err, got)
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// Property conditions compare numbers as numbers (a text "19" too), texts
// as texts, and a missing property meets no condition.
func TestRule_Filters(t *testing.T) {
	for _, c := range []struct {
		cond string
		want string
	}{
		{`s.age > 20`, "[boss dev1]"},
		{`s.age <= 19`, "[dev2]"},
		{`s.age == 50`, "[boss]"},
		{`s.name = "clerk"`, "[clerk]"},
		{`s.id not like "dev%"`, "[boss clerk]"},
		{`s.name like "dev_"`, "[dev1 dev2]"},
	} {
		r := mustRule(t, "Define (s:Person)-[p:belongTo]->(o:`Group`/`g`) { Structure { (s) } Constraint { "+c.cond+" } }")
		edges, err := r.Derive(context.Background(), riskGraph(), Budget{})
		if err != nil {
			t.Fatal(err)
		}
		var subj []string
		for _, e := range edges {
			subj = append(subj, e.Source)
		}
		sort.Strings(subj)
		if fmt.Sprint(subj) != c.want {
			t.Errorf("%s: %v; want %s", c.cond, subj, c.want)
		}
	}
}

// A rule that can derive nothing says why.
func TestParseRule_Says(t *testing.T) {
	for text, want := range map[string]string{
		"Define (s:A)-[p:r]->(o:B) { Structure { (s)-[:x]->(c) } Constraint { } }":                         "object o appears in no STRUCTURE path",
		"Define (s:A)-[p:r]->(o:B) { Structure { (x)-[:x]->(o) } Constraint { } }":                         "subject s appears in no STRUCTURE path",
		"Define (s:A)-[p:r]->(o:B) { Structure { (s)-[:x]->(o) } Constraint { R1: z.age > 3 } }":           "z, which is no variable",
		"Define (s:A)-[p:r]->(o:B) { Structure { (s)-[:x]->(o) } Constraint { R1: s.age > 3 or 1 } }":      "not a form kgstudio runs",
		"Define (s:A)-[p:r]->(o:`C`/`c`) { Structure { (s)-[:x]->(o) } Constraint { } }":                   "cannot also be a STRUCTURE variable",
		"Define (s:A)-[p:r]->(o:B) { Structure { } Constraint { } }":                                       "STRUCTURE has no path",
		"Define (s:A)-[p:r]->(o:B) { Structure { (s)-[:x]->(o) } Constraint { n = group(s,o).count(q) } }": "one group(s,o).count(x)",
	} {
		_, err := ParseRule(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRule(%q): %v; want %q", text, err, want)
		}
	}
}

// A rule that runs and derives nothing says what the graph lacks: the
// label of an edge it follows, a type, a concept; else that nothing met
// its structure and constraints.
func TestDeriveRules_SaysWhyNothing(t *testing.T) {
	s := &Schema{ConceptRules: []ConceptRule{
		{Rule: "Define (s:Person)-[p:belongTo]->(o:`G`/`a`) { Structure { (s)-[:hasDevice]->(d) } Constraint { } }"},
		{Rule: "Define (s:Robot)-[p:belongTo]->(o:`G`/`b`) { Structure { (s) } Constraint { } }"},
		{Rule: "Define (s:Person)-[p:belongTo]->(o:`G`/`c`) { Structure { (s)-[:release]->(x:`TaxOfRiskApp`/`棋牌`) } Constraint { } }"},
		{Rule: "Define (s:Person)-[p:belongTo]->(o:`G`/`d`) { Structure { (s) } Constraint { R1: s.age > 90 } }"},
		{Rule: "Define (s:Person)-[p:belongTo]->(o:`G`/`e`) { Structure { (s) } Constraint { R1: s.age > 40 } }"},
	}}
	d, err := DeriveRules(context.Background(), s, riskGraph(), Budget{})
	if err != nil {
		t.Fatal(err)
	}
	var why []string
	for _, p := range d.Idle {
		why = append(why, p.Field+": "+p.Message)
	}
	want := []string{
		"concept_rules[0].rule: rule belongTo → a derived nothing: the graph has no hasDevice edge",
		"concept_rules[1].rule: rule belongTo → b derived nothing: the graph has no node of type Robot for s",
		"concept_rules[2].rule: rule belongTo → c derived nothing: the graph has no concept 棋牌 of TaxOfRiskApp for x",
		"concept_rules[3].rule: rule belongTo → d derived nothing: no match met its structure and constraints",
	}
	if !reflect.DeepEqual(why, want) || len(d.Graph.Edges) != 1 {
		t.Errorf("idle:\n%s\nwant\n%s\n(%d edges)", strings.Join(why, "\n"), strings.Join(want, "\n"), len(d.Graph.Edges))
	}
}
