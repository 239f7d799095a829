package tuple_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/tuple"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, writing it on -update or mismatch
// (as name.actual) so the difference can be inspected.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
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

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestParse(t *testing.T) {
	tests := []struct {
		file         string
		nodes, edges int
		failures     int
		wantReasons  []string
	}{
		{"clean", 5, 4, 0, nil},
		{"messy", 6, 4, 6, []string{"entity name is empty", "relation line has 3 of 5 fields", "relation links an entity to itself", "unknown record type \"fact\"", "not an entity or relation line"}},
		{"truncated", 2, 1, 1, []string{"probably truncated"}},
		{"chinese", 4, 3, 0, nil},
		{"empty", 0, 0, 0, nil},
		{"legacy", 2, 1, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "parse", tt.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			g, fails := tuple.Parse(string(in))
			if len(g.Nodes) != tt.nodes || len(g.Edges) != tt.edges || len(fails) != tt.failures {
				t.Errorf("got %d nodes, %d edges, %d failures; want %d, %d, %d", len(g.Nodes), len(g.Edges), len(fails), tt.nodes, tt.edges, tt.failures)
			}
			all := ""
			for _, f := range fails {
				all += f.Reason + "\n"
			}
			for _, r := range tt.wantReasons {
				if !strings.Contains(all, r) {
					t.Errorf("no failure with reason %q in:\n%s", r, all)
				}
			}
			golden(t, filepath.Join("parse", tt.file+".golden.json"), mustJSON(t, map[string]any{"graph": g, "failures": fails}))
		})
	}
}

func TestParse_Details(t *testing.T) {
	t.Run("delimiter variants and quotes", func(t *testing.T) {
		g, _ := tuple.Parse("entity<|>\"Belle\"<|>Person<|>A young woman.\n<|COMPLETE|>")
		if len(g.Nodes) != 1 || g.Nodes[0].Name != "Belle" || g.Nodes[0].Type != "Person" {
			t.Fatalf("nodes = %+v", g.Nodes)
		}
	})
	t.Run("types keep the case first given", func(t *testing.T) {
		// A type keeps the case the answer gave it; the same type in
		// another case is spelt as first given, not made a second type.
		g, _ := tuple.Parse("entity<|>Belle<|>Person<|>A young woman.\nentity<|>Fan<|>PERSON<|>His sister.\n" +
			"entity<|>London<|>city<|>A city.\n<|COMPLETE|>")
		types := map[string]string{}
		for _, n := range g.Nodes {
			types[n.Name] = n.Type
		}
		if types["Belle"] != "Person" || types["Fan"] != "Person" || types["London"] != "city" {
			t.Fatalf("types %v; want Person, Person, city", types)
		}
	})
	t.Run("repeated entity keeps both descriptions once", func(t *testing.T) {
		g, _ := tuple.Parse("entity<|#|>A<|#|>x<|#|>one\nentity<|#|>A<|#|>x<|#|>two\nentity<|#|>a<|#|>x<|#|>one\n")
		if len(g.Nodes) != 1 || g.Nodes[0].Description != "one\ntwo" {
			t.Fatalf("nodes = %+v", g.Nodes)
		}
	})
	t.Run("undirected relation merged", func(t *testing.T) {
		g, _ := tuple.Parse("relation<|#|>B<|#|>A<|#|>k1<|#|>d\nrelation<|#|>A<|#|>B<|#|>k2, k1<|#|>d\n")
		if len(g.Edges) != 1 || g.Edges[0].Source != "a" || g.Edges[0].Keywords != "k1, k2" {
			t.Fatalf("edges = %+v", g.Edges)
		}
		if len(g.Nodes) != 2 || g.Nodes[0].Type != tuple.UnknownType {
			t.Fatalf("implicit nodes = %+v", g.Nodes)
		}
	})
	t.Run("legacy weight", func(t *testing.T) {
		g, _ := tuple.Parse(`("relationship"<|>"A"<|>"B"<|>"desc"<|>"kw"<|>7)`)
		if len(g.Edges) != 1 || g.Edges[0].Weight != 7 || g.Edges[0].Keywords != "kw" || g.Edges[0].Description != "desc" {
			t.Fatalf("edges = %+v", g.Edges)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"clean", "messy", "truncated", "chinese", "legacy"} {
		b, err := os.ReadFile(filepath.Join("testdata", "parse", name+".txt"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("entity<|#|>\x00<|#|>\xff<|#|>")
	f.Add("((((relation<|>|#|<|#|>)))##entity##")
	f.Fuzz(func(t *testing.T, s string) {
		g, fails := tuple.Parse(s)
		keys := map[string]bool{}
		for _, n := range g.Nodes {
			if n.Key == "" || keys[n.Key] {
				t.Fatalf("bad or repeated node key %q", n.Key)
			}
			keys[n.Key] = true
		}
		for _, e := range g.Edges {
			if !keys[e.Source] || !keys[e.Target] || e.Source == e.Target {
				t.Fatalf("edge %q-%q has no endpoints", e.Source, e.Target)
			}
		}
		for _, f := range fails {
			if f.Line == "" || f.Reason == "" {
				t.Fatalf("empty failure %+v", f)
			}
		}
		if utf8.ValidString(s) && len(g.Nodes)+len(g.Edges)+len(fails) == 0 && strings.Contains(s, "<|#|>") && strings.Contains(strings.ToLower(s), "entity<|#|>a") {
			t.Fatalf("entity line vanished without a failure: %q", s)
		}
	})
}

func TestPrompts_Render(t *testing.T) {
	cfg := extract.DefaultConfig()
	x, err := tuple.New(llm.Cached(nil, "x", "y", llm.NewMemoryStore()), cfg, tuple.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := x.Messages("Marley was dead, to begin with.")
	if err != nil {
		t.Fatal(err)
	}
	p, err := tuple.ParsePrompts(nil)
	if err != nil {
		t.Fatal(err)
	}
	cont, err := p.Render(tuple.PromptContinue, tuple.PromptData{TupleDelimiter: tuple.TupleDelimiter, CompletionDelimiter: tuple.CompletionDelimiter, Language: "English"})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := p.Render(tuple.PromptSummary, tuple.PromptData{Name: "Scrooge", DescriptionType: tuple.DescriptionEntity, Fragments: []string{"A miser.", "Marley's partner."}, Language: "English", MaxTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"system": msgs[0].Content, "user": msgs[1].Content, "continue": cont, "summary": sum} {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(text, "{{") || strings.Contains(text, "<no value>") {
				t.Errorf("unrendered template text in %s", name)
			}
			golden(t, filepath.Join("prompts", name+".golden"), []byte(text))
		})
	}
	t.Run("system names the delimiters", func(t *testing.T) {
		if !strings.Contains(msgs[0].Content, "entity<|#|>name<|#|>type<|#|>description") || !strings.Contains(msgs[0].Content, "<|COMPLETE|>") {
			t.Error("system prompt lacks the line formats")
		}
	})
}

func TestParsePrompts(t *testing.T) {
	tests := []struct {
		name      string
		overrides map[string]string
		wantErr   bool
	}{
		{"defaults", nil, false},
		{"edited user prompt", map[string]string{tuple.PromptUser: "Text: {{.InputText}}"}, false},
		{"unrelated keys ignored", map[string]string{"kag_ner_en": "{{.Nope}}"}, false},
		{"syntax error", map[string]string{tuple.PromptUser: "{{.InputText"}, true},
		{"unknown field", map[string]string{tuple.PromptContinue: "{{.Nope}}"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tuple.ParsePrompts(tt.overrides)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil && extract.KindOf(err) != extract.KindInvalid {
				t.Errorf("kind = %v", extract.KindOf(err))
			}
		})
	}
}

// carol returns the document and its first story chunk.
func carol(t testing.TB) (extract.Document, extract.Chunk) {
	t.Helper()
	b, err := os.ReadFile(testkit.Path(t, "corpora/a_christmas_carol_gutenberg24022.txt"))
	if err != nil {
		t.Fatal(err)
	}
	content := strings.TrimPrefix(string(b), "\ufeff")
	start := strings.Index(content, "Marley was dead, to begin with.")
	end := strings.Index(content, "relate. If we were not")
	if start < 0 || end < start {
		t.Fatal("chunk not found in the Christmas Carol text")
	}
	doc := extract.Document{ID: 1, Name: "carol", Kind: extract.DocText, Content: content}
	return doc, extract.Chunk{DocumentID: 1, Index: 0, Text: content[start:end], Start: start, End: end}
}

func carolRules(t testing.TB) []fakellm.Rule {
	return []fakellm.Rule{
		{Contains: "last answer missed", Anywhere: "Marley was dead", Text: fakellm.Load(t, "testdata/recorded/carol_glean.txt")},
		{Contains: "Marley was dead", Text: fakellm.Load(t, "testdata/recorded/carol_extract.txt")},
		{Contains: "Descriptions", Text: fakellm.Load(t, "testdata/recorded/carol_summary.txt")},
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

// stable strips timing so results can be compared with golden files.
func stable(res extract.ChunkResult) extract.ChunkResult {
	res.Elapsed = 0
	for i := range res.Calls {
		res.Calls[i].Latency = 0
		res.Calls[i].Request = ""
		res.Calls[i].PromptTokens, res.Calls[i].OutputTokens = 0, 0
		res.Calls[i].Provider, res.Calls[i].Model, res.Calls[i].Key = "", "", ""
	}
	return res
}

func TestExtractor_Extract(t *testing.T) {
	doc, chunk := carol(t)
	srv := fakellm.New(t, fakellm.Options{Rules: carolRules(t)})
	for name, c := range clients(t, srv) {
		t.Run(name, func(t *testing.T) {
			srv.Reset()
			cfg := extract.DefaultConfig()
			cfg.Strategy, cfg.MaxGleaning = extract.StrategyTuple, 2
			x, err := tuple.New(c, cfg, tuple.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := x.Extract(context.Background(), doc, chunk)
			if err != nil {
				t.Fatal(err)
			}
			// Round 2 repeats round 1's answer, adds nothing and ends gleaning.
			if srv.Count() != 3 || len(res.Calls) != 3 {
				t.Fatalf("requests = %d, calls = %d, want 3", srv.Count(), len(res.Calls))
			}
			for i, want := range []string{"extract", "glean-1", "glean-2"} {
				if res.Calls[i].Purpose != want {
					t.Errorf("call %d purpose = %q", i, res.Calls[i].Purpose)
				}
			}
			if last := srv.Calls()[1]; len(last.Messages) != 4 || last.Messages[2].Role != "assistant" {
				t.Errorf("gleaning did not continue the conversation: %d messages", len(last.Messages))
			}
			if len(res.Graph.Nodes) != 5 || len(res.Graph.Edges) != 3 {
				t.Errorf("graph has %d nodes, %d edges; want 5, 3", len(res.Graph.Nodes), len(res.Graph.Edges))
			}
			for _, n := range res.Graph.Nodes {
				if len(n.Mentions) != 1 {
					t.Fatalf("node %s has %d mentions", n.Key, len(n.Mentions))
				}
				m := n.Mentions[0]
				if m.End > 0 && doc.Content[m.Start:m.End] != m.Text {
					t.Errorf("mention of %s points at %q", n.Key, doc.Content[m.Start:m.End])
				}
			}
			golden(t, "extract_carol.golden.json", mustJSON(t, stable(res)))
		})
	}
}

func TestExtractor_Cache(t *testing.T) {
	doc, chunk := carol(t)
	srv := fakellm.New(t, fakellm.Options{Rules: carolRules(t)})
	c := clients(t, srv)["openai"]
	store := llm.NewMemoryStore()
	cached := llm.Cached(c, llm.ProviderOpenAI, "local", store)
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyTuple // MaxGleaning 1: two calls per chunk
	run := func(cfg extract.Config) extract.ChunkResult {
		t.Helper()
		x, err := tuple.New(cached, cfg, tuple.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := x.Extract(context.Background(), doc, chunk)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	tests := []struct {
		name       string
		edit       func(*extract.Config)
		wantPaid   int
		wantCached int
	}{
		{"first run pays", func(*extract.Config) {}, 2, 0},
		{"re-run is free", func(*extract.Config) {}, 0, 2},
		{"edited continue prompt pays only for gleaning", func(c *extract.Config) {
			p := tuple.DefaultPrompts()
			c.Prompts = map[string]string{tuple.PromptContinue: p[tuple.PromptContinue] + "\nBe thorough.\n"}
		}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Reset()
			cfg := cfg
			tt.edit(&cfg)
			res := run(cfg)
			cachedN := 0
			for _, r := range res.Calls {
				if r.Cached {
					cachedN++
				}
			}
			if srv.Count() != tt.wantPaid || cachedN != tt.wantCached {
				t.Errorf("provider requests = %d, cached = %d; want %d, %d", srv.Count(), cachedN, tt.wantPaid, tt.wantCached)
			}
		})
	}
}

func TestExtractor_MergeDescriptions(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: carolRules(t)})
	c := clients(t, srv)["gemini"]
	cfg := extract.DefaultConfig()
	cfg.MaxFragments = 3
	x, err := tuple.New(c, cfg, tuple.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		fragments []string
		wantCall  bool
	}{
		{"few fragments are joined", []string{"A miser.", "Marley's partner.", "A miser."}, false},
		{"many fragments are summarised", []string{"A miser.", "Marley's partner.", "Signed the register.", "A man of business."}, true},
		{"none", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Reset()
			got, rec, err := x.MergeDescriptions(context.Background(), "Scrooge", tt.fragments)
			if err != nil {
				t.Fatal(err)
			}
			if (srv.Count() == 1) != tt.wantCall || (rec.Purpose == "summary") != tt.wantCall {
				t.Fatalf("requests = %d, purpose = %q", srv.Count(), rec.Purpose)
			}
			if tt.wantCall && !strings.HasPrefix(got, "Scrooge is a London businessman") {
				t.Errorf("summary = %q", got)
			}
			if !tt.wantCall && got != strings.Join(func() []string {
				if tt.fragments == nil {
					return nil
				}
				return tt.fragments[:2]
			}(), "\n") {
				t.Errorf("joined = %q", got)
			}
		})
	}
	t.Run("package helper", func(t *testing.T) {
		got, err := tuple.Summarize(context.Background(), c, "Scrooge", []string{"a", "b"})
		if err != nil || !strings.HasPrefix(got, "Scrooge") {
			t.Fatalf("got %q, %v", got, err)
		}
	})
}

func TestExtractor_Errors(t *testing.T) {
	doc, chunk := carol(t)
	srv := fakellm.New(t, fakellm.Options{}) // no recorded answers
	c := clients(t, srv)["openai"]
	x, err := tuple.New(c, extract.DefaultConfig(), tuple.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("provider rejects", func(t *testing.T) {
		_, err := x.Extract(context.Background(), doc, chunk)
		if extract.KindOf(err) != extract.KindInvalid {
			t.Fatalf("kind = %v (%v)", extract.KindOf(err), err)
		}
	})
	t.Run("blank chunk makes no call", func(t *testing.T) {
		srv.Reset()
		res, err := x.Extract(context.Background(), doc, extract.Chunk{Text: " \n\t"})
		if err != nil || srv.Count() != 0 || len(res.Graph.Nodes) != 0 {
			t.Fatalf("err = %v, requests = %d", err, srv.Count())
		}
	})
	t.Run("nil client", func(t *testing.T) {
		if _, err := tuple.New(nil, extract.DefaultConfig(), tuple.Options{}); extract.KindOf(err) != extract.KindInvalid {
			t.Fatalf("err = %v", err)
		}
	})
}

// Without a configured language the output follows the text: Chinese text
// asks for Chinese, other text for English; a configured one wins.
func TestPrompts_LanguageFollowsText(t *testing.T) {
	for _, c := range []struct{ cfgLang, text, want string }{
		{"", "Marley was dead, to begin with.", "Write names, keywords and descriptions in English."},
		{"", "鹿鸣茶社于2018年在杭州开业。", "Write names, keywords and descriptions in Chinese."},
		{"en", "鹿鸣茶社于2018年在杭州开业。", "Write names, keywords and descriptions in English."},
		{"zh", "Marley was dead.", "Write names, keywords and descriptions in Chinese."},
	} {
		cfg := extract.DefaultConfig()
		cfg.Language = c.cfgLang
		x, err := tuple.New(llm.Cached(nil, "x", "y", llm.NewMemoryStore()), cfg, tuple.Options{})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := x.Messages(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msgs[0].Content, c.want) {
			t.Errorf("language %q, text %q: the system prompt does not say %q", c.cfgLang, c.text, c.want)
		}
	}
}
