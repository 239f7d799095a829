package eval

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func n(name, typ string) extract.Node {
	return extract.Node{Key: extract.NodeKey(name), Name: name, Type: typ}
}

func e(src, label, tgt string) extract.Edge {
	return extract.Edge{Source: extract.NodeKey(src), Target: extract.NodeKey(tgt), Label: label, Weight: 1}
}

// scoreGold is one entry: Ada (PER, also "Lovelace"), Byron (PER), 1815
// (TIME), London (LOC); relations father(Ada, Byron), birth(Ada, 1815),
// residence(Ada, London).
var scoreGold = []Entry{{
	ID: "ada",
	Entities: []GoldEntity{
		{Names: []string{"Ada Lovelace", "Lovelace"}, Type: "PER"},
		{Names: []string{"Byron"}, Type: "PER"},
		{Names: []string{"1815"}, Type: "TIME"},
		{Names: []string{"London"}, Type: "LOC"},
	},
	Relations: []GoldRelation{{0, 1, "father"}, {0, 2, "dateOfBirth"}, {0, 3, "residence"}},
}}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// scoreCase is the graphs for scoreGold's entry, with the scores Score must give them.
type scoreCase struct {
	name      string
	graphs    []extract.Graph
	typeMap   map[string]string
	entP      float64 // entity precision
	entR      float64
	byType    map[string][2]int // gold, found
	typed     *[2]float64       // typed precision, recall
	unlP      float64
	unlR      float64
	labP      float64
	labR      float64
	comp      bool
	missing   int
	extracted int
}

// scoreCases are the graphs TestScore scores against scoreGold.
var scoreCases = []scoreCase{
	{
		name:   "Empty",
		graphs: []extract.Graph{{}},
		byType: map[string][2]int{"PER": {2, 0}, "TIME": {1, 0}, "LOC": {1, 0}},
	},
	{
		name:    "MissingGraph",
		graphs:  nil,
		byType:  map[string][2]int{"PER": {2, 0}, "TIME": {1, 0}, "LOC": {1, 0}},
		missing: 1,
	},
	{
		name: "PartialNoTypeMap",
		graphs: []extract.Graph{{
			// "LOVELACE" matches Ada by an alias; "Paris" matches nothing.
			Nodes: []extract.Node{n("LOVELACE", "Person"), n("Byron", "Person"), n("Paris", "Location"), n("poetry", "Concept")},
			Edges: []extract.Edge{
				e("LOVELACE", "father", "Byron"), // right pair, right label and direction
				e("Byron", "knows", "LOVELACE"),  // same pair reversed: one distinct unordered pair
				e("LOVELACE", "lived in", "Paris"),
				e("poetry", "x", "poetry"), // self-loop: ignored
			},
		}},
		entP: 2.0 / 4, entR: 2.0 / 4,
		byType: map[string][2]int{"PER": {2, 2}, "TIME": {1, 0}, "LOC": {1, 0}},
		// pairs: {ada,byron} correct, {ada,paris} wrong -> 1/2; gold pairs 3 -> 1/3
		unlP: 1.0 / 2, unlR: 1.0 / 3,
		// triples: father correct; knows, lived in wrong -> 1/3; gold 3 -> 1/3
		labP: 1.0 / 3, labR: 1.0 / 3,
		comp: true, extracted: 4,
	},
	{
		name: "TypeMapFiltersPrecision",
		graphs: []extract.Graph{{
			Nodes: []extract.Node{
				n("Ada Lovelace", "Person"), n("Byron", "Organization"), n("1815", "Data"),
				n("poetry", "Concept"), n("Paris", "Location"),
			},
			Edges: []extract.Edge{e("1815", "DATE_OF_BIRTH", "Ada Lovelace")},
		}},
		// Concept is not a mapped type: 4 scored nodes, 3 correct.
		typeMap: map[string]string{"PER": "Person", "ORG": "Organization", "LOC": "Location", "TIME": "Data"},
		entP:    3.0 / 4, entR: 3.0 / 4,
		byType: map[string][2]int{"PER": {2, 2}, "TIME": {1, 1}, "LOC": {1, 0}},
		// Byron is typed Organization: typed matches Ada and 1815 only.
		typed: &[2]float64{2.0 / 4, 2.0 / 4},
		unlP:  1, unlR: 1.0 / 3,
		// Labelled is directed: the reversed dateOfBirth does not count.
		labP: 0, labR: 0,
		comp: true, extracted: 5,
	},
	{
		name: "LabelsNotComparable",
		graphs: []extract.Graph{{
			Nodes: []extract.Node{n("Ada Lovelace", "Person"), n("London", "Location")},
			Edges: []extract.Edge{e("Ada Lovelace", "moved to", "London")},
		}},
		entP: 1, entR: 2.0 / 4,
		byType: map[string][2]int{"PER": {2, 1}, "TIME": {1, 0}, "LOC": {1, 1}},
		unlP:   1, unlR: 1.0 / 3,
		extracted: 2,
	},
	{
		name: "DanglingEdgeEndpoints",
		graphs: []extract.Graph{{
			// Edges naming keys without nodes are resolved by the key itself.
			Edges: []extract.Edge{{Source: "ada lovelace", Target: "london", Label: "residence"}},
		}},
		byType: map[string][2]int{"PER": {2, 0}, "TIME": {1, 0}, "LOC": {1, 0}},
		unlP:   1, unlR: 1.0 / 3,
		labP: 1, labR: 1.0 / 3,
		comp: true,
	},
}

// TestScore scores each of scoreCases against scoreGold and checks the report's figures.
func TestScore(t *testing.T) {
	for _, tt := range scoreCases {
		t.Run(tt.name, func(t *testing.T) {
			r := Score(scoreGold, tt.graphs, tt.typeMap)
			if r.Entries != 1 || r.Missing != tt.missing || r.Entities.Extracted != tt.extracted {
				t.Errorf("entries %d missing %d extracted %d", r.Entries, r.Missing, r.Entities.Extracted)
			}
			if !approx(r.Entities.Precision, tt.entP) || !approx(r.Entities.Recall, tt.entR) || !approx(r.Entities.F1, f1(tt.entP, tt.entR)) {
				t.Errorf("entities P/R/F1 = %v/%v/%v, want %v/%v", r.Entities.Precision, r.Entities.Recall, r.Entities.F1, tt.entP, tt.entR)
			}
			if len(r.Entities.ByType) != len(tt.byType) {
				t.Errorf("by_type = %+v", r.Entities.ByType)
			}
			for typ, want := range tt.byType {
				got := r.Entities.ByType[typ]
				if got.Gold != want[0] || got.Found != want[1] || !approx(got.Recall, float64(want[1])/float64(want[0])) {
					t.Errorf("by_type[%s] = %+v, want gold %d found %d", typ, got, want[0], want[1])
				}
			}
			switch {
			case tt.typed == nil && r.Entities.Typed != nil:
				t.Errorf("typed score without a type map: %+v", r.Entities.Typed)
			case tt.typed != nil && (r.Entities.Typed == nil || !approx(r.Entities.Typed.Precision, tt.typed[0]) || !approx(r.Entities.Typed.Recall, tt.typed[1])):
				t.Errorf("typed = %+v, want %v", r.Entities.Typed, *tt.typed)
			}
			rel := r.Relations
			if !approx(rel.Unlabelled.Precision, tt.unlP) || !approx(rel.Unlabelled.Recall, tt.unlR) || !approx(rel.Unlabelled.F1, f1(tt.unlP, tt.unlR)) {
				t.Errorf("unlabelled = %+v, want P %v R %v", rel.Unlabelled, tt.unlP, tt.unlR)
			}
			if !approx(rel.Labelled.Precision, tt.labP) || !approx(rel.Labelled.Recall, tt.labR) {
				t.Errorf("labelled = %+v, want P %v R %v", rel.Labelled, tt.labP, tt.labR)
			}
			if rel.LabelsComparable != tt.comp {
				t.Errorf("labels comparable = %v, want %v", rel.LabelsComparable, tt.comp)
			}
			// The per-label counts add up to the labelled score's.
			var sum LabelCount
			for _, c := range rel.ByLabel {
				sum.Gold += c.Gold
				sum.Found += c.Found
				sum.Extracted += c.Extracted
				sum.Correct += c.Correct
			}
			if sum.Gold != rel.GoldTriples || sum.Extracted != rel.ExtractedEdges ||
				!approx(float64(sum.Found), rel.Labelled.Recall*float64(rel.GoldTriples)) ||
				!approx(float64(sum.Correct), rel.Labelled.Precision*float64(rel.ExtractedEdges)) {
				t.Errorf("by_label sums %+v, want gold %d extracted %d (labelled %+v)", sum, rel.GoldTriples, rel.ExtractedEdges, rel.Labelled)
			}
			if tt.name == "PartialNoTypeMap" {
				if got, want := rel.ByLabel["father"], (LabelCount{Gold: 1, Found: 1, Extracted: 1, Correct: 1}); got != want {
					t.Errorf("by_label[father] = %+v, want %+v", got, want)
				}
				if got := rel.ByLabel["knows"]; got.Extracted != 1 || got.Correct != 0 {
					t.Errorf("by_label[knows] = %+v, want one wrong", got)
				}
			}
		})
	}
}

// TestScore_OneToOne checks that a gold entity split into several nodes
// credits only one of them in the one-to-one precision, and that per-type
// figures give the typed recall beside the untyped one.
func TestScore_OneToOne(t *testing.T) {
	typeMap := map[string]string{"PER": "Person", "LOC": "Location", "TIME": "Data"}
	graphs := []extract.Graph{{Nodes: []extract.Node{
		n("Ada Lovelace", "Person"), n("Lovelace", "Person"), // one entity, two nodes
		n("Byron", "Location"), // right name, wrong type
		n("London", "Location"),
		n("Paris", "Location"), // wrong
	}}}
	r := Score(scoreGold, graphs, typeMap)
	ent := r.Entities
	if ent.Scored != 5 || ent.Correct != 4 || !approx(ent.Precision, 4.0/5) {
		t.Errorf("lenient precision = %v (%d of %d)", ent.Precision, ent.Correct, ent.Scored)
	}
	// Matching: Ada, Byron, London -> 3 of 5 nodes, 3 of 4 gold.
	if !approx(ent.OneToOne.Precision, 3.0/5) || !approx(ent.OneToOne.Recall, 3.0/4) || !approx(ent.OneToOne.F1, f1(3.0/5, 3.0/4)) {
		t.Errorf("one-to-one = %+v, want P 0.6 R 0.75", ent.OneToOne)
	}
	// Typed matching: Ada and London only.
	if ent.TypedOneToOne == nil || !approx(ent.TypedOneToOne.Precision, 2.0/5) || !approx(ent.TypedOneToOne.Recall, 2.0/4) {
		t.Errorf("typed one-to-one = %+v, want P 0.4 R 0.5", ent.TypedOneToOne)
	}
	per := ent.ByType["PER"]
	if per.Found != 2 || !approx(per.Recall, 1) || per.TypedFound != 1 || per.TypedRecall == nil || !approx(*per.TypedRecall, 0.5) {
		t.Errorf("PER = %+v, want found 2 (recall 1), typed found 1 (recall 0.5)", per)
	}
	if tm := ent.ByType["TIME"]; tm.TypedRecall == nil || *tm.TypedRecall != 0 {
		t.Errorf("TIME typed recall = %v, want present and 0", tm.TypedRecall)
	}
	// Without a type map there is no typed figure.
	r = Score(scoreGold, graphs, nil)
	if r.Entities.ByType["PER"].TypedRecall != nil || r.Entities.TypedOneToOne != nil {
		t.Errorf("typed figures without a type map: %+v", r.Entities)
	}
	if !approx(r.Entities.OneToOne.Precision, 3.0/5) {
		t.Errorf("one-to-one without type map = %+v", r.Entities.OneToOne)
	}
}

func TestMaxMatching(t *testing.T) {
	tests := []struct {
		name  string
		cands [][]int
		nGold int
		want  int
	}{
		{"Empty", nil, 3, 0},
		{"SameEntity", [][]int{{0}, {0}, {0}}, 1, 1},
		// Greedy would give node 0 entity 0 and leave node 1 without.
		{"NeedsAugmenting", [][]int{{0, 1}, {0}}, 2, 2},
		{"Disjoint", [][]int{{0}, {1}, {2}}, 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxMatching(tt.cands, tt.nGold); got != tt.want {
				t.Errorf("maxMatching = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestReport_JSON(t *testing.T) {
	data, err := json.Marshal(Score(scoreGold, []extract.Graph{{}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	ent := m["entities"].(map[string]any)
	for _, k := range []string{"precision", "recall", "f1", "by_type", "one_to_one"} {
		if _, ok := ent[k]; !ok {
			t.Errorf("entities lacks %q: %s", k, data)
		}
	}
	per := ent["by_type"].(map[string]any)["PER"].(map[string]any)
	for _, k := range []string{"gold", "found", "recall"} {
		if _, ok := per[k]; !ok {
			t.Errorf("by_type.PER lacks %q: %s", k, data)
		}
	}
	rel := m["relations"].(map[string]any)
	for _, k := range []string{"unlabelled", "labelled"} {
		sub, ok := rel[k].(map[string]any)
		if !ok || sub["f1"] == nil || sub["precision"] == nil || sub["recall"] == nil {
			t.Errorf("relations.%s malformed: %s", k, data)
		}
	}
	if m["entries"] != 1.0 {
		t.Errorf("entries = %v", m["entries"])
	}
	if strings.Contains(string(data), `"typed"`) || strings.Contains(string(data), `"missing"`) {
		t.Errorf("optional fields present: %s", data)
	}
}

func TestNormalizeLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"currentTenants", "current tenants"},
		{"CURRENT_TENANTS", "current tenants"},
		{"current tenants", "current tenants"},
		{"powerType", "power type"},
		{"ISBN_number", "isbn number"},
		{"leaderName2", "leader name2"},
		{"所在国", "所在国"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := NormalizeLabel(tt.in); got != tt.want {
				t.Errorf("NormalizeLabel(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// oracle builds, for each entry, the graph a perfect extractor would
// return: one node per entity (first name, mapped type) and one edge per
// relation.
func oracle(entries []Entry, typeMap map[string]string) []extract.Graph {
	out := make([]extract.Graph, len(entries))
	for i, e := range entries {
		var g extract.Graph
		for _, ge := range e.Entities {
			g.Nodes = append(g.Nodes, extract.Node{Key: extract.NodeKey(ge.Names[0]), Name: ge.Names[0], Type: typeMap[ge.Type]})
		}
		for _, r := range e.Relations {
			g.Edges = append(g.Edges, extract.Edge{
				Source: extract.NodeKey(e.Entities[r.Head].Names[0]), Target: extract.NodeKey(e.Entities[r.Tail].Names[0]), Label: r.Label,
			})
		}
		out[i] = g
	}
	return out
}

func TestScore_RealFiles(t *testing.T) {
	web, err := ReadWebNLG(strings.NewReader(string(mustRead(t, "webnlg2020_text2rdf_seen_first200.xml"))))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ReadDocRED(strings.NewReader(string(mustRead(t, "redocred_dev_revised_first100.json"))))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		entries []Entry
		typeMap map[string]string
	}{
		{"WebNLG", web, nil},
		{"DocRED", doc, DocREDTypes},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/Oracle", func(t *testing.T) {
			r := Score(tt.entries, oracle(tt.entries, tt.typeMap), tt.typeMap)
			one := PRF{Precision: 1, Recall: 1, F1: 1}
			if r.Entities.Precision != 1 || r.Entities.Recall != 1 {
				t.Errorf("entities = %+v", r.Entities)
			}
			if r.Relations.Unlabelled != one || r.Relations.Labelled != one || !r.Relations.LabelsComparable {
				t.Errorf("relations = %+v", r.Relations)
			}
			if tt.typeMap != nil && (r.Entities.Typed == nil || *r.Entities.Typed != one) {
				t.Errorf("typed = %+v", r.Entities.Typed)
			}
			if r.Entities.OneToOne != one {
				t.Errorf("one-to-one = %+v", r.Entities.OneToOne)
			}
		})
		t.Run(tt.name+"/Nothing", func(t *testing.T) {
			r := Score(tt.entries, make([]extract.Graph, len(tt.entries)), tt.typeMap)
			if r.Entities.Recall != 0 || r.Relations.Unlabelled.Recall != 0 || r.Entities.Gold == 0 || r.Relations.GoldPairs == 0 {
				t.Errorf("report = %+v", r)
			}
		})
	}
}

func BenchmarkScore(b *testing.B) {
	doc, err := ReadDocRED(strings.NewReader(string(mustRead(b, "redocred_dev_revised_first100.json"))))
	if err != nil {
		b.Fatal(err)
	}
	graphs := oracle(doc, DocREDTypes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Score(doc, graphs, DocREDTypes)
	}
}
