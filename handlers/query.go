package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/store"
	"github.com/kgstudio/kgstudio/web"
)

// maxQuestion bounds a question's length in bytes.
const maxQuestion = 2000

// querySnippet is how many runes of a chunk the query page shows.
const querySnippet = 320

// QueryKeywords are a question's keywords.
type QueryKeywords struct {
	High   []string `json:"high"`
	Low    []string `json:"low"`
	Source string   `json:"source"` // "offline" or "model"
}

// QueryAnswer is the model's answer with the references it cites.
type QueryAnswer struct {
	Text     string   `json:"text"`
	Cited    []string `json:"cited"`
	Provider string   `json:"provider"`
	Model    string   `json:"model"`
}

// QueryResult is the answer of the query API.
type QueryResult struct {
	Question  string           `json:"question"`
	Keywords  QueryKeywords    `json:"keywords"`
	Entities  []query.Entity   `json:"entities"`
	Relations []query.Relation `json:"relations"`
	Chunks    []query.ChunkHit `json:"chunks"`
	Answer    *QueryAnswer     `json:"answer,omitempty"`
	// Note says why there is no answer (no provider, a failed call).
	Note string `json:"note,omitempty"`

	context query.Context
}

// queryInput is what a query request asks for.
type queryInput struct {
	Question string
	Provider string // "none", "gemini" or "openai"
	// ModelKeywords asks the model for the keywords too.
	ModelKeywords bool
}

// configuredProviders lists the providers that can answer, in preference
// order.
func (p Providers) configured() []string {
	var out []string
	if p.GeminiAPIKey != "" {
		out = append(out, "gemini")
	}
	if p.OpenAIBaseURL != "" || p.OpenAIAPIKey != "" {
		out = append(out, "openai")
	}
	return out
}

func (h *Handler) queryInput(c echo.Context) (queryInput, error) {
	in := queryInput{Question: strings.TrimSpace(c.QueryParam("q")), Provider: c.QueryParam("provider"), ModelKeywords: c.QueryParam("keywords") == "model"}
	if len(in.Question) > maxQuestion {
		return in, extract.Errorf(extract.KindInvalid, "the question is longer than %d bytes", maxQuestion)
	}
	if in.Provider == "" {
		in.Provider = "none"
		if conf := h.cfg.Providers.configured(); len(conf) > 0 {
			in.Provider = conf[0]
		}
	}
	switch in.Provider {
	case "none", "gemini", "openai":
	default:
		return in, extract.Errorf(extract.KindInvalid, "unknown provider %q (use gemini, openai or none)", in.Provider)
	}
	return in, nil
}

// runQuery retrieves the context of a question from a version's graph and,
// with a provider, asks the model to answer from it.
func (h *Handler) runQuery(ctx context.Context, v store.Version, in queryInput) (QueryResult, error) {
	res := QueryResult{Question: in.Question, Entities: []query.Entity{}, Relations: []query.Relation{}, Chunks: []query.ChunkHit{}}
	if in.Question == "" {
		return res, nil
	}
	cfg := v.Config
	if cfg.Provider != in.Provider {
		cfg.Model = ""
	}
	cfg.Provider = in.Provider
	llmClient, model := h.queryClient(ctx, cfg, &res)

	res.Keywords = QueryKeywords{Source: "offline"}
	res.Keywords.High, res.Keywords.Low = query.Keywords(in.Question)
	if in.ModelKeywords && llmClient != nil {
		high, low, _, err := query.KeywordsLLM(ctx, llmClient, in.Question)
		if err != nil {
			h.log.Warn("query keywords", "version", v.ID, "err", err)
			res.Note = "The model's keywords failed (" + extract.MessageOf(err) + "); offline keywords are used."
		} else {
			res.Keywords = QueryKeywords{High: high, Low: low, Source: "model"}
		}
	}
	if res.Keywords.High == nil {
		res.Keywords.High = []string{}
	}
	if res.Keywords.Low == nil {
		res.Keywords.Low = []string{}
	}

	g, err := h.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return res, err
	}
	settings, err := h.chunkSetOf(ctx, v)
	if err != nil {
		return res, err
	}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for _, id := range v.DocumentIDs {
		cs, err := h.store.Chunks(ctx, id, settings)
		if err != nil {
			return res, err
		}
		for _, ch := range cs {
			chunks[ch.Ref()] = ch
		}
	}
	qc := query.Retrieve(g, chunks, res.Keywords.High, res.Keywords.Low, query.DefaultOptions())
	res.context = qc
	if qc.Entities != nil {
		res.Entities = qc.Entities
	}
	if qc.Relations != nil {
		res.Relations = qc.Relations
	}
	if qc.Chunks != nil {
		res.Chunks = qc.Chunks
	}
	if llmClient == nil {
		return res, nil
	}
	if qc.Empty() {
		res.Note = "Nothing in the graph matches the question, so the model was not asked."
		return res, nil
	}
	text, _, err := query.Answer(ctx, llmClient, in.Question, qc)
	if err != nil {
		h.log.Warn("query answer", "version", v.ID, "err", err)
		res.Note = "The model did not answer: " + extract.MessageOf(err)
		return res, nil
	}
	res.Answer = &QueryAnswer{Text: text, Cited: qc.Cited(text), Provider: in.Provider, Model: model}
	if res.Answer.Cited == nil {
		res.Answer.Cited = []string{}
	}
	return res, nil
}

// queryClient builds the model client of the picked provider; without one
// (or when it is not configured) it notes why and returns nil.
func (h *Handler) queryClient(ctx context.Context, cfg extract.Config, res *QueryResult) (llm.Client, string) {
	if cfg.Provider == "none" {
		if len(h.cfg.Providers.configured()) == 0 {
			res.Note = "No model provider is configured (set GEMINI_API_KEY or OPENAI_BASE_URL), so there is no answer: the retrieved context is shown below."
		} else {
			res.Note = "Provider none: the retrieved context is shown without an answer."
		}
		return nil, ""
	}
	client, model, err := h.runner.client(ctx, cfg)
	if err != nil {
		res.Note = "No answer: " + extract.MessageOf(err)
		return nil, ""
	}
	return client, model
}

// showQuery is the query page of a version.
func (h *Handler) showQuery(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	in, err := h.queryInput(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	res, err := h.runQuery(ctx, v, in)
	if err != nil {
		return err
	}
	docs, err := h.docKinds(ctx, v)
	if err != nil {
		return err
	}
	return h.page(c, "extractions", "Query "+v.Label(), web.QueryView(h.queryPage(v, in, res, docs)))
}

// queryAPI answers GET /api/versions/:id/query?q=&provider=&keywords=model.
func (h *Handler) queryAPI(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	in, err := h.queryInput(c)
	if err != nil {
		return err
	}
	if in.Question == "" {
		return extract.Errorf(extract.KindInvalid, "a question is required: ?q=...")
	}
	res, err := h.runQuery(c.Request().Context(), v, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *Handler) queryPage(v store.Version, in queryInput, res QueryResult, docs []extract.Document) web.QueryPage {
	base := "/versions/" + itoa(v.ID)
	p := web.QueryPage{
		Version:       versionRow(v),
		Action:        base + "/query",
		GraphURL:      base + "/graph",
		Question:      in.Question,
		ModelKeywords: in.ModelKeywords,
		High:          res.Keywords.High,
		Low:           res.Keywords.Low,
		KeywordSource: res.Keywords.Source,
		Note:          res.Note,
		Context:       res.context.Render(),
	}
	if in.Question != "" {
		p.APIURL = "/api" + base + "/query?" + url.Values{"q": {in.Question}, "provider": {in.Provider}}.Encode()
	}
	conf := h.cfg.Providers.configured()
	for _, o := range []struct{ v, l string }{{"none", "none (context only)"}, {"gemini", "Gemini"}, {"openai", "OpenAI-compatible"}} {
		l := o.l
		if o.v != "none" && !contains(conf, o.v) {
			l += " — not configured"
		}
		p.Providers = append(p.Providers, web.Option{Value: o.v, Label: l, Selected: in.Provider == o.v})
	}
	docName := map[int]string{}
	for _, d := range docs {
		docName[d.ID] = d.Name
	}
	refURL := map[string]string{}
	refText := map[string]string{}
	var names []string
	for _, e := range res.Entities {
		u := base + "/graph?focus=" + url.QueryEscape(e.Key)
		refURL[e.Ref], refText[e.Ref] = u, e.Name+" ("+e.Type+")"
		names = append(names, e.Name)
		p.Entities = append(p.Entities, web.QueryEntity{Ref: e.Ref, Name: e.Name, Type: e.Type, Description: e.Description,
			Score: score(e.Score), Mentions: e.Mentions, URL: u})
	}
	for _, r := range res.Relations {
		u := base + "/graph?focus=" + url.QueryEscape(r.SourceKey)
		refURL[r.Ref], refText[r.Ref] = u, r.Source+" — "+r.Label+" → "+r.Target
		p.Relations = append(p.Relations, web.QueryRelation{Ref: r.Ref, Source: r.Source, Label: r.Label, Target: r.Target,
			Keywords: r.Keywords, Description: r.Description, Score: score(r.Score), URL: u})
	}
	for _, ch := range res.Chunks {
		u := base + "/chunks/" + itoa(ch.DocumentID) + "/" + itoa(ch.Index)
		where := docName[ch.DocumentID] + " · chunk " + itoa(ch.Index)
		refURL[ch.Ref], refText[ch.Ref] = u, where
		p.Chunks = append(p.Chunks, web.QueryChunk{Ref: ch.Ref, Where: where, URL: u, Snippet: snippetAround(ch.Text, names, querySnippet),
			Score: score(ch.Score), Mentions: strings.Join(append(append([]string{}, ch.Entities...), ch.Relations...), " ")})
	}
	if a := res.Answer; a != nil {
		p.Answer = a.Text
		p.AnswerBy = a.Provider + " " + a.Model
		for _, ref := range a.Cited {
			p.Cited = append(p.Cited, web.QueryRef{Ref: ref, Text: refText[ref], URL: refURL[ref]})
		}
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func score(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// snippetAround cuts about n runes of text around the first of the names
// found in it (case-insensitively), or from the start.
func snippetAround(text string, names []string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	lower := strings.ToLower(text)
	at := -1
	for _, name := range names {
		if i := strings.Index(lower, strings.ToLower(name)); i >= 0 && len(lower) == len(text) {
			at = i
			break
		}
	}
	start := 0
	if at > 0 {
		start = max(0, at-n/3)
		for start > 0 && !utf8.RuneStart(text[start]) {
			start--
		}
	}
	rs := []rune(text[start:])
	out := string(rs[:min(n, len(rs))])
	if start > 0 {
		out = "…" + out
	}
	if len(rs) > n {
		out += "…"
	}
	return out
}
