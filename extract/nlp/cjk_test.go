package nlp

import (
	"os"
	"regexp"
	"sort"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
)

// bareNumberRE matches node names that are only a short number.
var bareNumberRE = regexp.MustCompile(`^\d{1,3}$`)

// degrees counts the edges at each node key.
func degrees(g extract.Graph) map[string]int {
	d := map[string]int{}
	for _, e := range g.Edges {
		d[e.Source]++
		d[e.Target]++
	}
	return d
}

// TestExtractor_Baike runs the extractor over the Baidu Baike articles of
// the KAG example data: the article's subject must be a Person node among
// the three highest-degree nodes, and no node may be a bare short number
// (a citation marker or a stray count) other than a title in 《》.
func TestExtractor_Baike(t *testing.T) {
	e := mustNew(t, Options{})
	tests := []struct {
		name, file, subject string
	}{
		{"Zhouxingchi", "zhouxingchi_baike.txt", "周星驰"},
		{"Zhoujielun", "zhoujielun_baike.txt", "周杰伦"},
		{"Zhourunfa", "zhourunfa_baike.txt", "周润发"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(testkit.Path(t, "corpora/kag-baike/"+tt.file))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := extract.ReadDocument(tt.file, data, 0)
			if err != nil {
				t.Fatal(err)
			}
			doc.ID = 1
			g := extractDoc(t, e, doc)
			checkMentions(t, doc, g)

			byType := map[string]int{}
			labels := map[string]int{}
			for _, n := range g.Nodes {
				byType[n.Type]++
				// A title in 《》 may be a number ("《007》").
				if bareNumberRE.MatchString(n.Name) && n.Type != "Content" {
					t.Errorf("node %q is a bare number", n.Name)
				}
			}
			for _, ed := range g.Edges {
				labels[ed.Label]++
			}
			deg := degrees(g)
			ranked := make([]string, 0, len(deg))
			for k := range deg {
				ranked = append(ranked, k)
			}
			sort.Slice(ranked, func(i, j int) bool {
				if deg[ranked[i]] != deg[ranked[j]] {
					return deg[ranked[i]] > deg[ranked[j]]
				}
				return ranked[i] < ranked[j]
			})
			top := ranked
			if len(top) > 10 {
				top = top[:10]
			}
			var topList []string
			for _, k := range top {
				topList = append(topList, k+":"+itoa(deg[k]))
			}
			var persons []string
			for _, n := range g.Nodes {
				if n.Type == "Person" {
					persons = append(persons, n.Name)
				}
			}
			sort.Strings(persons)
			t.Logf("nodes by type %v; edges %d, labels %v", byType, len(g.Edges), labels)
			t.Logf("top-10 by degree %v", topList)
			t.Logf("persons %v", persons)

			n := nodeByKey(g, extract.NodeKey(tt.subject))
			if n == nil || n.Type != "Person" {
				t.Fatalf("subject %q is no Person node (%v)", tt.subject, n)
			}
			rank := -1
			for i, k := range ranked {
				if k == n.Key {
					rank = i
					break
				}
			}
			if rank < 0 || rank > 2 {
				t.Errorf("subject %q has degree rank %d, want among the first three", tt.subject, rank+1)
			}
		})
	}
}

// TestExtractor_CJKNoPairAcrossSemicolon checks that entities on either
// side of "；" are not linked.
func TestExtractor_CJKNoPairAcrossSemicolon(t *testing.T) {
	e := mustNew(t, Options{})
	text := "周星驰主演《功夫》；吴孟达主演《赌侠》。吴孟达是演员。周星驰是导演。"
	doc, err := extract.ReadDocument("s.txt", []byte(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	doc.ID = 8
	g := extractDoc(t, e, doc)
	checkMentions(t, doc, g)
	left, right := map[string]bool{"周星驰": true, "功夫": true}, map[string]bool{"吴孟达": true, "赌侠": true}
	for _, ed := range g.Edges {
		if left[ed.Source] && right[ed.Target] || right[ed.Source] && left[ed.Target] {
			t.Errorf("edge across ；: %s -%s-> %s", ed.Source, ed.Label, ed.Target)
		}
	}
	if !hasEdge(g, [3]string{"吴孟达", "主演", "赌侠"}) {
		t.Errorf("edge 吴孟达 -主演-> 赌侠 missing; edges: %v", edgeList(g))
	}
}

// TestExtractor_CJKRules pins each CJK rule on a short inline text.
func TestExtractor_CJKRules(t *testing.T) {
	e := mustNew(t, Options{})
	tests := []struct {
		name      string
		text      string
		wantNodes map[string]string // key -> type
		noNodes   []string
		wantEdge  [3]string // source, label, target ("" to skip)
	}{
		{
			name:      "CitationMarkers",
			text:      "周星驰出生于中国香港 [12]，祖籍浙江宁波 [12-14]。他是导演［3］和编剧 [注 1]。",
			wantNodes: map[string]string{"周星驰": "Person", "中国": "Location", "香港": "Location"},
			noNodes:   []string{"12", "14", "3", "1", "注 1"},
		},
		{
			name:      "YearsDatesAndUnitsStay",
			text:      "1962年6月22日，他出生。2019年，该片票房5.6亿，观众300万，排名第4，共3部。",
			wantNodes: map[string]string{"1962年6月22日": "Data", "2019年": "Data", "5.6亿": "Data", "300万": "Data", "3部": "Data"},
			noNodes:   []string{"4", "第4"},
		},
		{
			name:      "RecurringName",
			text:      "吴孟达是演员。吴孟达与他合作多年。",
			wantNodes: map[string]string{"吴孟达": "Person"},
			noNodes:   []string{"吴孟"},
		},
		{
			name:      "CuedName",
			text:      "这部电影由王晶导演，口碑很好。",
			wantNodes: map[string]string{"王晶": "Person"},
			noNodes:   []string{"王晶导"},
		},
		{
			name:    "SurnameCharacterWords",
			text:    "王国的高度令人惊叹。王国很大，高度很高。",
			noNodes: []string{"王国", "高度"},
		},
		{
			name:      "SuffixTyped",
			text:      "他毕业于中国人民大学，加入寰亚电影公司，获得第30届香港电影金像奖，出席柏林电影节。",
			wantNodes: map[string]string{"中国人民大学": "Organization", "寰亚电影公司": "Organization", "香港电影金像奖": "Concept", "柏林电影节": "Event"},
		},
		{
			name:      "SuffixNameStartsAtBoundary",
			text:      "他获得新加坡金曲奖，又获2005年度风云大奖，后出席柏林电影节。",
			wantNodes: map[string]string{"新加坡金曲奖": "Concept", "年度风云大奖": "Concept", "柏林电影节": "Event"},
			noNodes:   []string{"坡金曲奖", "度风云大奖", "出席柏林电影节"},
		},
		{
			name: "SurnameNotInsideWords",
			text: "生长激素是由垂体前叶分泌的激素。垂体前叶分泌多种激素。它促进蛋白质合成，影响蛋白质代谢。" +
				"毛细血管扩张，毛细血管破裂。",
			noNodes: []string{"叶分泌", "白质", "毛细血", "毛细"},
		},
		{
			name:      "WorksAndVerbEdge",
			text:      "周星驰主演《大话西游》。周星驰执导《功夫》。",
			wantNodes: map[string]string{"周星驰": "Person", "大话西游": "Content"},
			wantEdge:  [3]string{"周星驰", "主演", "大话西游"},
		},
		{
			name:      "NoVerbIsRelated",
			text:      "周星驰，《少林足球》。周星驰。",
			wantEdge:  [3]string{"周星驰", "related_to", "少林足球"},
			wantNodes: map[string]string{"少林足球": "Content"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.ReadDocument("t.txt", []byte(tt.text), 0)
			if err != nil {
				t.Fatal(err)
			}
			doc.ID = 7
			if tt.name == "SurnameNotInsideWords" {
				g := extractDoc(t, e, doc)
				for _, n := range g.Nodes {
					if n.Type == "Person" {
						t.Errorf("person %q inside a word; nodes: %v", n.Name, keys(g))
					}
				}
			}
			g := extractDoc(t, e, doc)
			checkMentions(t, doc, g)
			checkNodes(t, g, tt.wantNodes, tt.noNodes)
			if tt.wantEdge[0] != "" && !hasEdge(g, tt.wantEdge) {
				t.Errorf("edge %v missing; edges: %v", tt.wantEdge, edgeList(g))
			}
		})
	}
}

// checkNodes checks that the graph has each wanted node key with its type
// and none of the unwanted keys.
func checkNodes(t *testing.T, g extract.Graph, want map[string]string, unwanted []string) {
	t.Helper()
	for key, typ := range want {
		n := nodeByKey(g, extract.NodeKey(key))
		if n == nil {
			t.Errorf("node %q missing; nodes: %v", key, keys(g))
			continue
		}
		if n.Type != typ {
			t.Errorf("node %q type = %q, want %q", key, n.Type, typ)
		}
	}
	for _, key := range unwanted {
		if nodeByKey(g, extract.NodeKey(key)) != nil {
			t.Errorf("unwanted node %q; nodes: %v", key, keys(g))
		}
	}
}
