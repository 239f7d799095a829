package nlp

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// cjkCase is a mixed-script or CJK text with the nodes, linked pairs and labelled edges it must give.
type cjkCase struct {
	name      string
	text      string
	wantNodes map[string]string // key -> type
	noNodes   []string
	wantEdges [][2]string // linked pairs, either direction, any label
	wantVerbs [][3]string // source, label, target
}

// cjkCases are the texts TestExtractor_CJKNamesAndEdges extracts.
var cjkCases = []cjkCase{
	{
		name:      "MixedEnglishWithHanNames",
		text:      "The poet 杜甫 was born near 洛阳. Later 杜甫 moved to 成都, where he wrote many poems.",
		wantNodes: map[string]string{"杜甫": "Person", "洛阳": "Location", "成都": "Location"},
		wantEdges: [][2]string{{"杜甫", "洛阳"}, {"杜甫", "成都"}},
	},
	{
		name:      "MixedHanSentenceInEnglish",
		text:      "Our notes say: 王安石出生于江西临川县。 The rest of the report is in English and names Mary Smith.",
		wantNodes: map[string]string{"王安石": "Person", "临川县": "Location", "Mary Smith": "Person"},
		wantEdges: [][2]string{{"王安石", "临川县"}},
	},
	{
		name:      "MixedNameMetOnce",
		text:      "In 1918 鲁迅 published a story in 北京. It made him famous.",
		wantNodes: map[string]string{"鲁迅": "Person", "北京": "Location"},
		noNodes:   []string{"In"},
		wantEdges: [][2]string{{"鲁迅", "北京"}},
	},
	{
		name:      "MixedEnglishVerbBetweenHanNames",
		text:      "王维 visited 长安. Both 王维 and 李白 wrote about 长安.",
		wantNodes: map[string]string{"王维": "Person", "长安": "Location", "李白": "Person"},
		wantVerbs: [][3]string{{"王维", "visited", "长安"}},
	},
	{
		name:      "MixedJapaneseSentence",
		text:      "Yesterday we met 田中さん. 田中さんは東京大学で働いています。",
		wantNodes: map[string]string{"田中": "Person", "東京大学": "Organization"},
		wantEdges: [][2]string{{"田中", "東京大学"}},
	},
	{
		name:      "ChineseSuffixAndGazetteer",
		text:      "诗人苏轼生于四川眉山。他曾在杭州任职，又被贬到黄州和海南岛。",
		wantVerbs: [][3]string{{"苏轼", "生于", "四川"}},
		wantNodes: map[string]string{"苏轼": "Person", "四川": "Location", "眉山": "Location", "杭州": "Location", "黄州": "Location", "海南岛": "Location"},
		noNodes:   []string{"四川眉山"},
		wantEdges: [][2]string{{"苏轼", "四川"}, {"杭州", "黄州"}},
	},
	{
		name:      "ChineseCoordinatedNameMetOnce",
		text:      "韩愈是唐代文学家。韩愈和柳宗元一起倡导古文运动，两人都到过长安。",
		wantNodes: map[string]string{"韩愈": "Person", "柳宗元": "Person", "长安": "Location"},
		wantEdges: [][2]string{{"韩愈", "柳宗元"}},
	},
	{
		name:      "ChineseRiversAndMountains",
		text:      "黄河流经青海、甘肃和山东，长江发源于唐古拉山。泰山位于山东省。",
		wantNodes: map[string]string{"黄河": "Location", "长江": "Location", "唐古拉山": "Location", "泰山": "Location", "山东省": "Location", "青海": "Location", "甘肃": "Location"},
		wantEdges: [][2]string{{"长江", "唐古拉山"}, {"泰山", "山东省"}},
		wantVerbs: [][3]string{{"长江", "发源于", "唐古拉山"}, {"泰山", "位于", "山东省"}},
	},
	{
		name:      "JapanesePlaces",
		text:      "佐藤さんは大阪府から京都市へ引っ越した。京都市には多くの寺がある。",
		wantNodes: map[string]string{"佐藤": "Person", "大阪府": "Location", "京都市": "Location"},
		wantEdges: [][2]string{{"佐藤", "大阪府"}},
	},
	{
		name:      "AdministrativeChain",
		text:      "她的籍贯是湖南省长沙市望城县，后来移居广东省江门市。",
		wantNodes: map[string]string{"湖南省": "Location", "长沙市": "Location", "望城县": "Location", "广东省": "Location", "江门市": "Location"},
		noNodes:   []string{"望城", "省江", "湖南"},
	},
	{
		name:      "JapaneseNameNotCut",
		text:      "夏目漱石は東京で生まれた。彼は松山市の学校で教えた。",
		wantNodes: map[string]string{"東京": "Location", "松山市": "Location"},
		noNodes:   []string{"夏目漱", "夏目"},
	},
	{
		name:      "DottedForeignNames",
		text:      "列夫·托尔斯泰是俄国作家。他读过查尔斯·狄更斯的小说。レオナルド・ダ・ヴィンチはイタリアで生まれた。",
		wantNodes: map[string]string{"列夫·托尔斯泰": "Person", "查尔斯·狄更斯": "Person", "レオナルド・ダ・ヴィンチ": "Person"},
		noNodes:   []string{"读过查尔斯·狄更斯"},
	},
	{
		name:    "CommonWordsWithPlaceSuffixes",
		text:    "我们上山砍柴，然后进城买米。他们过河以后去了城市。唱片在音乐市场很畅销，江湖传说很多。",
		noNodes: []string{"上山", "进城", "过河", "城市", "城", "音乐市", "音乐市场", "江湖"},
	},
}

// TestExtractor_CJKNamesAndEdges checks mixed-script and CJK text: CJK
// names inside English prose reach the CJK rules, places are typed by a
// gazetteer or their suffix, names met once are found by their context,
// and entities of one sentence are linked.
func TestExtractor_CJKNamesAndEdges(t *testing.T) {
	e := mustNew(t, Options{})
	for _, tt := range cjkCases {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.ReadDocument("t.txt", []byte(tt.text), 0)
			if err != nil {
				t.Fatal(err)
			}
			doc.ID = 9
			g := extractDoc(t, e, doc)
			checkMentions(t, doc, g)
			checkNodes(t, g, tt.wantNodes, tt.noNodes)
			for _, p := range tt.wantEdges {
				a, b := extract.NodeKey(p[0]), extract.NodeKey(p[1])
				found := false
				for _, ed := range g.Edges {
					if ed.Source == a && ed.Target == b || ed.Source == b && ed.Target == a {
						found = true
					}
				}
				if !found {
					t.Errorf("no edge between %q and %q; edges: %v", p[0], p[1], edgeList(g))
				}
			}
			for _, v := range tt.wantVerbs {
				if !hasEdge(g, v) {
					t.Errorf("edge %v missing; edges: %v", v, edgeList(g))
				}
			}
		})
	}
}
