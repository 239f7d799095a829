package kag_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/schema"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(want) != string(got) {
		_ = os.WriteFile(path+".actual", got, 0o644)
		t.Errorf("%s differs from golden; actual output written to %s.actual", name, path)
	}
}

var zhTypes = []kag.TypeSpec{
	{Name: "Person", Alias: "人物", Kind: schema.KindEntity, Description: "真实人物",
		Properties: []kag.PropSpec{{Name: "birthPlace", Type: "GeographicLocation"}, {Name: "birthDate", Type: "Text"}},
		Relations:  []kag.RelSpec{{Name: "release", Alias: "发行", Target: "Works"}, {Name: "graduatedFrom", Target: "Organization"}}},
	{Name: "Works", Alias: "作品", Kind: schema.KindEntity},
	{Name: "GeographicLocation", Alias: "地理位置", Kind: schema.KindConcept},
	{Name: "Organization", Alias: "组织机构", Kind: schema.KindEntity},
	{Name: "Event", Alias: "事件", Kind: schema.KindEvent, Properties: []kag.PropSpec{{Name: "subject", Type: "Person"}, {Name: "time", Type: "Text"}}},
}

var enTypes = []kag.TypeSpec{
	{Name: "Person", Kind: schema.KindEntity, Properties: []kag.PropSpec{{Name: "worksFor", Type: "Company"}},
		Relations: []kag.RelSpec{{Name: "partnerOf", Target: "Person"}}},
	{Name: "Company", Kind: schema.KindEntity},
}

func rules(t testing.TB) []fakellm.Rule {
	load := func(f string) string { return fakellm.Load(t, filepath.Join("testdata", "recorded", f)) }
	return []fakellm.Rule{
		{Contains: "属于下列 schema 类型", Text: load("zh_ner.json")},
		{Contains: "属于下列事件类型", Text: load("zh_event.json")},
		{Contains: "官方名称", Text: load("zh_std.json")},
		{Contains: "实体之间的关系", Text: load("zh_relation.json")},
		{Contains: "belongs to one of the schema types", Text: load("en_ner.json")},
		{Contains: "give its official name", Text: load("en_std.json")},
		{Contains: "Find the relations", Text: load("en_relation.json")},
	}
}

func clients(t testing.TB, srv *fakellm.Server) map[string]llm.Client {
	g, err := llm.NewGemini(context.Background(), llm.GeminiConfig{APIKey: "k", BaseURL: srv.GeminiURL()})
	if err != nil {
		t.Fatal(err)
	}
	o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.OpenAIURL(), Model: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]llm.Client{"gemini": g, "openai": o}
}

func zhChunk(t testing.TB) (extract.Document, extract.Chunk) {
	b, err := os.ReadFile(testkit.Path(t, "corpora/kag-baike/zhoujielun_baike.txt"))
	if err != nil {
		t.Fatal(err)
	}
	content := strings.TrimPrefix(string(b), "\ufeff")
	end := strings.Index(content, "2004年")
	if end < 0 {
		t.Fatal("chunk end not found")
	}
	return extract.Document{ID: 7, Content: content}, extract.Chunk{DocumentID: 7, Index: 0, Text: content[:end], End: end}
}

func enChunk() (extract.Document, extract.Chunk) {
	text := "Scrooge never painted out Old Marley's name. The firm was known as Scrooge and Marley. Bob Cratchit, the clerk, kept a very small fire."
	return extract.Document{ID: 3, Content: text}, extract.Chunk{DocumentID: 3, Text: text, End: len(text)}
}

func stable(res extract.ChunkResult) extract.ChunkResult {
	res.Elapsed = 0
	for i := range res.Calls {
		c := &res.Calls[i]
		c.Latency, c.Request, c.Key, c.Provider, c.Model, c.PromptTokens, c.OutputTokens = 0, "", "", "", "", 0, 0
	}
	return res
}

func node(g extract.Graph, key string) *extract.Node {
	for i := range g.Nodes {
		if g.Nodes[i].Key == key {
			return &g.Nodes[i]
		}
	}
	return nil
}

func hasEdge(g extract.Graph, s, label, o string) bool {
	for _, e := range g.Edges {
		if e.Source == s && e.Label == label && e.Target == o {
			return true
		}
	}
	return false
}

func TestExtractor_Extract(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: rules(t)})
	for name, c := range clients(t, srv) {
		t.Run(name+"/chinese", func(t *testing.T) {
			srv.Reset()
			x, err := kag.New(c, extract.Config{Strategy: extract.StrategySchema}, zhTypes, kag.Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, chunk := zhChunk(t)
			res, err := x.Extract(context.Background(), doc, chunk)
			if err != nil {
				t.Fatal(err)
			}
			var purposes []string
			for _, cl := range res.Calls {
				purposes = append(purposes, cl.Purpose)
			}
			if got := strings.Join(purposes, ","); got != "ner,event,std,relation" || srv.Count() != 4 {
				t.Fatalf("calls = %s, requests = %d", got, srv.Count())
			}
			for _, call := range srv.Calls() {
				if !call.JSON {
					t.Errorf("%s call did not ask for JSON", call.API)
				}
			}
			g := res.Graph
			school := node(g, "organization:淡江高级中学")
			if school == nil || school.Type != "Organization" {
				t.Fatalf("standardised node missing: %+v", g.Nodes)
			}
			if a, _ := school.Properties["aliases"].([]string); len(a) != 1 || a[0] != "淡江中学" {
				t.Errorf("aliases = %v", school.Properties["aliases"])
			}
			if n := node(g, "works:jay"); n == nil || n.Type != "Works" {
				t.Errorf("alias type 作品 not mapped to Works: %+v", n)
			}
			if n := node(g, "geographiclocation:台湾省新北市"); n == nil || n.Type != "GeographicLocation" {
				t.Errorf("property node missing: %+v", n)
			}
			for _, e := range [][3]string{
				{"person:周杰伦", "birthPlace", "geographiclocation:台湾省新北市"},
				{"person:周杰伦", "graduatedFrom", "organization:淡江高级中学"},
				{"person:周杰伦", "release", "works:范特西"},
				{"person:周杰伦", "release", "works:jay"},
				{"event:周杰伦举行the one世界巡回演唱会", "subject", "person:周杰伦"},
				{"person:周杰伦", "coverOf", "magazine:时代周刊"},
			} {
				if !hasEdge(g, e[0], e[1], e[2]) {
					t.Errorf("edge %v missing", e)
				}
			}
			// Magazine type, coverOf relation, and 叶惠美 (release to an unknown node is fine).
			if res.OffSchema != 2 {
				t.Errorf("OffSchema = %d, want 2", res.OffSchema)
			}
			if n := node(g, "magazine:时代周刊"); n == nil || n.Properties["off_schema"] != true || n.Type != "Magazine" {
				t.Errorf("off-schema node not kept: %+v", n)
			}
			if len(res.Failures) != 3 {
				t.Errorf("failures = %+v", res.Failures)
			}
			for _, n := range g.Nodes {
				if len(n.Mentions) != 1 || n.Mentions[0].ChunkIndex != 0 {
					t.Errorf("node %s mentions = %+v", n.Key, n.Mentions)
				}
				if m := n.Mentions[0]; m.End > 0 && doc.Content[m.Start:m.End] != m.Text {
					t.Errorf("mention of %s is off", n.Key)
				}
			}
			b, _ := json.MarshalIndent(stable(res), "", "  ")
			golden(t, "extract_zh.golden.json", append(b, '\n'))
		})
		t.Run(name+"/english", func(t *testing.T) {
			srv.Reset()
			x, err := kag.New(c, extract.Config{}, enTypes, kag.Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, chunk := enChunk()
			res, err := x.Extract(context.Background(), doc, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if srv.Count() != 3 { // no event types: no event call
				t.Fatalf("requests = %d, want 3", srv.Count())
			}
			g := res.Graph
			if !hasEdge(g, "person:ebenezer scrooge", "worksFor", "company:scrooge and marley") || !hasEdge(g, "person:ebenezer scrooge", "partnerOf", "person:jacob marley") {
				t.Errorf("edges = %+v", g.Edges)
			}
			if res.OffSchema != 1 { // Bob Cratchit worksFor a Person
				t.Errorf("OffSchema = %d, want 1", res.OffSchema)
			}
			if n := node(g, "person:jacob marley"); n == nil || n.Mentions[0].Text != "Marley" {
				t.Errorf("alias mention: %+v", n)
			}
			b, _ := json.MarshalIndent(stable(res), "", "  ")
			golden(t, "extract_en.golden.json", append(b, '\n'))
		})
	}
}

func TestExtractor_MalformedOutput(t *testing.T) {
	tests := []struct {
		name    string
		ner     string
		wantErr string
	}{
		{"not json", "I could not find entities.", "no JSON in output"},
		// The answer is quoted as the model wrote it, not JSON-encoded
		// (entity\u003c|#|\u003e...).
		{"tuple form", "entity<|#|>Scrooge<|#|>Person<|#|>A miser & a partner.", "no JSON in output"},
		{"truncated in the first item", `{"entities": [{"name": "Scrooge"`, ""},
		{"wrong key", `{"things": []}`, `no "entities" list`},
		{"bare list", `[{"name": "Scrooge", "category": "Person"}]`, ""},
		{"kag layout", `[{"category": "Person", "properties": {"name": "Scrooge", "worksFor": null}}]`, ""},
		{"empty", `{"entities": []}`, ""},
		{"reasoning with braces", "<think>The text has {Scrooge} and maybe [Marley].</think>\n```json\n{\"entities\": [{\"name\": \"Scrooge\", \"category\": \"Person\"}]}\n```", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
				{Contains: "schema types", Text: tt.ner},
				{Contains: "official name", Text: `{"entities": []}`},
			}})
			x, err := kag.New(clients(t, srv)["openai"], extract.Config{}, enTypes, kag.Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, chunk := enChunk()
			res, err := x.Extract(context.Background(), doc, chunk)
			if err != nil {
				t.Fatalf("malformed output must not be an error: %v", err)
			}
			if tt.wantErr == "" {
				if len(res.Failures) != 0 {
					t.Errorf("failures = %+v", res.Failures)
				}
				return
			}
			if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, tt.wantErr) || res.Failures[0].Round != 0 {
				t.Errorf("failures = %+v", res.Failures)
			}
			if res.Failures[0].Line != tt.ner {
				t.Errorf("failure quotes %q, want the answer %q", res.Failures[0].Line, tt.ner)
			}
		})
	}
}

func TestExtractor_Cache(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: rules(t)})
	store := llm.NewMemoryStore()
	c := llm.Cached(clients(t, srv)["gemini"], llm.ProviderGemini, llm.DefaultGeminiModel, store)
	doc, chunk := zhChunk(t)
	tests := []struct {
		name     string
		prompts  map[string]string
		wantPaid int
	}{
		{"first run", nil, 4},
		{"re-run", nil, 0},
		{"edited relation prompt", map[string]string{kag.PromptKey(kag.StepRelation, kag.LangChinese): kag.DefaultPrompts()[kag.PromptKey(kag.StepRelation, kag.LangChinese)] + "\n注意方向。\n"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Reset()
			x, err := kag.New(c, extract.Config{Prompts: tt.prompts}, zhTypes, kag.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.Extract(context.Background(), doc, chunk); err != nil {
				t.Fatal(err)
			}
			if srv.Count() != tt.wantPaid {
				t.Errorf("provider requests = %d, want %d", srv.Count(), tt.wantPaid)
			}
		})
	}
}

func TestLanguage(t *testing.T) {
	tests := []struct {
		cfg, text string
		want      kag.Lang
	}{
		{"", "Scrooge and Marley", kag.LangEnglish},
		{"", "周杰伦（Jay Chou），1979年1月18日出生于台湾省新北市", kag.LangChinese},
		{"en", "周杰伦出生于台湾", kag.LangEnglish},
		{"Chinese", "Scrooge", kag.LangChinese},
		{"", "", kag.LangEnglish},
	}
	for _, tt := range tests {
		t.Run(tt.cfg+"/"+string(tt.want), func(t *testing.T) {
			if got := kag.Language(tt.cfg, tt.text); got != tt.want {
				t.Errorf("Language = %q", got)
			}
		})
	}
}

func TestNew(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{})
	c := clients(t, srv)["openai"]
	tests := []struct {
		name   string
		client llm.Client
		types  []kag.TypeSpec
		cfg    extract.Config
	}{
		{"nil client", nil, enTypes, extract.Config{}},
		{"no types", c, nil, extract.Config{}},
		{"nameless type", c, []kag.TypeSpec{{Kind: schema.KindEntity}}, extract.Config{}},
		{"bad prompt", c, enTypes, extract.Config{Prompts: map[string]string{kag.PromptKey(kag.StepNER, kag.LangEnglish): "{{.Missing}}"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := kag.New(tt.client, tt.cfg, tt.types, kag.Options{}); extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestDefaultPrompts_Render(t *testing.T) {
	// The rendered prompts are what the fake server saw; keep them as golden files.
	srv := fakellm.New(t, fakellm.Options{Rules: rules(t)})
	x, err := kag.New(clients(t, srv)["openai"], extract.Config{}, zhTypes, kag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, chunk := zhChunk(t)
	if _, err := x.Extract(context.Background(), doc, chunk); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range srv.Calls() {
		b.WriteString("=== " + c.API + " " + c.Model + "\n")
		b.WriteString(c.Messages[len(c.Messages)-1].Content + "\n")
	}
	if strings.Contains(b.String(), "<no value>") {
		t.Error("unrendered field in prompts")
	}
	golden(t, "prompts_zh.golden", []byte(b.String()))
}

// With official names as nodes (KAG's shape), an entity keeps the name
// the text uses and an OfficialName edge leads to a node of its official
// name; the relations name the entities as the text does; a name that is
// its own official name gets no such edge.
func TestExtractor_OfficialNameNodes(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: rules(t)})
	x, err := kag.New(clients(t, srv)["openai"], extract.Config{OfficialNames: extract.OfficialNode}, enTypes, kag.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, chunk := enChunk()
	res, err := x.Extract(context.Background(), doc, chunk)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graph
	for _, want := range [][3]string{
		{"person:scrooge", extract.OfficialNameLabel, "person:ebenezer scrooge"},
		{"person:marley", extract.OfficialNameLabel, "person:jacob marley"},
		{"person:scrooge", "partnerOf", "person:marley"},
	} {
		if !hasEdge(g, want[0], want[1], want[2]) {
			t.Errorf("no edge %v in %+v", want, g.Edges)
		}
	}
	if n := node(g, "person:scrooge"); n == nil || n.Properties["aliases"] != nil {
		t.Errorf("surface node %+v", n)
	}
	if node(g, "person:ebenezer scrooge") == nil {
		t.Error("no official-name node")
	}
	for _, e := range g.Edges {
		if e.Label == extract.OfficialNameLabel && e.Source == "person:bob cratchit" {
			t.Errorf("an OfficialName edge to itself: %+v", e)
		}
	}
}
