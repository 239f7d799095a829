package handlers

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// querySnippet is how many runes of a chunk the query page shows.
const querySnippet = 320

// queryInput reads a query request (the URL's query or a posted form) into
// the app's query input: q, provider, keywords=model, mode, top_k and as_of
// (a date or RFC 3339 time: the graph as it stood then). Only
// a POST may call a model: a GET retrieves.
func (h *Handler) queryInput(c echo.Context) (app.QueryInput, error) {
	in := app.QueryInput{Question: c.FormValue("q"), Provider: extract.Provider(c.FormValue("provider")), Keywords: app.KeywordSource(c.FormValue("keywords")),
		Mode: query.Mode(c.FormValue("mode")), AsOf: c.FormValue("as_of"), RetrievalOnly: c.Request().Method != http.MethodPost,
		ResponseType: c.FormValue("response_type")}
	// Only read here; app.Queries.Ask checks the values.
	if s := strings.TrimSpace(c.FormValue("top_k")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return in, extract.Errorf(extract.KindInvalid, "top_k must be a number from 1 to %d", query.MaxTopK)
		}
		in.TopK = n
	}
	return in, nil
}

// showAsk opens the query page of the newest finished version (the menu's
// Ask), or says there is none yet.
func (h *Handler) showAsk(c echo.Context) error {
	if id := c.QueryParam("v"); id != "" {
		// The query page's version picker.
		n, err := strconv.Atoi(id)
		if err != nil {
			return extract.Errorf(extract.KindInvalid, "v %q is not a version id", id)
		}
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/versions/%d/query", n))
	}
	vs, err := h.appOf(c).Versions.Recent(c.Request().Context(), 50)
	if err != nil {
		return err
	}
	// The newest finished version with text to answer from; an imported
	// or edited graph without chunks only when there is no other.
	pick := 0
	for _, v := range vs {
		if v.Status != record.StatusDone {
			continue
		}
		if v.ChunksTotal > 0 {
			pick = v.ID
			break
		}
		if pick == 0 {
			pick = v.ID
		}
	}
	if pick > 0 {
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/versions/%d/query", pick))
	}
	return redirectFlash(c, "/extractions", "Ask answers questions over a finished extraction: there is none yet. Start one, then ask.", true)
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
	var res app.QueryResult
	if strings.TrimSpace(in.Question) == "" {
		res, err = h.appOf(c).Queries.Blank(in) // the form, before a question
	} else {
		res, err = h.appOf(c).Queries.Ask(ctx, v, in)
	}
	if err != nil {
		return err
	}
	docs, err := h.appOf(c).Runs.DocKinds(ctx, v)
	if err != nil {
		return err
	}
	p := h.queryPage(v, in, res, docs)
	recent, err := h.appOf(c).Versions.Recent(ctx, 50)
	if err != nil {
		return err
	}
	for _, o := range recent {
		if o.Status == record.StatusDone {
			p.Versions = append(p.Versions, web.Option{Value: strconv.Itoa(o.ID), Label: o.Label(), Selected: o.ID == v.ID})
		}
	}
	return h.page(c, "ask", "Ask "+v.Label(), web.QueryView(p))
}

// queryAPI answers GET /api/versions/:id/query?q=&mode=&top_k=&as_of=&provider=&keywords=model
// with retrieval only, and the same fields POSTed (as a form or in the
// query) with the model's answer too.
func (h *Handler) queryAPI(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	in, err := h.queryInput(c)
	if err != nil {
		return err
	}
	res, err := h.appOf(c).Queries.Ask(c.Request().Context(), v, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *Handler) queryPage(v record.Version, in app.QueryInput, res app.QueryResult, docs []extract.Document) web.QueryPage {
	base := "/versions/" + itoa(v.ID)
	p := web.QueryPage{
		Version:       versionRow(v),
		Action:        base + "/query",
		GraphURL:      base + "/graph",
		Question:      res.Question,
		TopK:          res.TopK,
		AsOf:          res.AsOf,
		Embedder:      res.Embedder,
		ModelKeywords: in.Keywords != app.KeywordsOffline,
		High:          res.Keywords.High,
		Low:           res.Keywords.Low,
		KeywordSource: string(res.Keywords.Source),
		Note:          res.Note,
		Context:       res.Context().Render(),
	}
	if res.Question != "" {
		vals := url.Values{"q": {res.Question}, "provider": {string(res.Provider)}, "mode": {string(res.Mode)}, "top_k": {strconv.Itoa(res.TopK)}}
		if res.AsOf != "" {
			vals.Set("as_of", res.AsOf)
		}
		p.APIURL = "/api" + base + "/query?" + vals.Encode()
	}
	for _, m := range query.Modes {
		p.Modes = append(p.Modes, web.Option{Value: string(m), Label: string(m) + " — " + query.ModeSummary(m), Selected: m == cmp.Or(res.Mode, query.ModeMix)})
	}
	conf := h.app.Providers().Configured()
	for _, o := range []struct {
		v extract.Provider
		l string
	}{{extract.ProviderNone, "none (context only)"}, {extract.ProviderGemini, "Gemini"}, {extract.ProviderOpenAI, "OpenAI-compatible"}} {
		l := o.l
		if !extract.Offline(o.v) && !slices.Contains(conf, o.v) {
			l += " — not configured"
		}
		p.Providers = append(p.Providers, web.Option{Value: string(o.v), Label: l, Selected: res.Provider == o.v})
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
		where := cmp.Or(ch.Document, docName[ch.DocumentID]) + " · chunk " + itoa(ch.Index)
		refURL[ch.Ref], refText[ch.Ref] = u, where
		p.Chunks = append(p.Chunks, web.QueryChunk{Ref: ch.Ref, Where: where, URL: u, Snippet: snippetAround(ch.Text, names, querySnippet),
			Score: score(ch.Score), Mentions: strings.Join(append(append([]string{}, ch.Entities...), ch.Relations...), " ")})
	}
	if a := res.Answer; a != nil {
		p.Answer = a.Text
		p.AnswerBy = string(a.Provider) + " " + a.Model
		p.Cited = citedRefs(a.Text, a.Cited, res.References, refText, refURL)
	}
	return p
}

// citedRefs lists what an answer cites as it cites it: a document by its
// number ([1], as the answer's references number it: its title and
// passages), an entity, a relation or a passage by its id ([E2], [C1]),
// in the order the answer first cites each. An answer citing nothing the
// context holds by either form lists cited (a global answer's
// passages).
func citedRefs(answer string, cited []string, refs []query.Reference, text, links map[string]string) []web.QueryRef {
	byN := map[string]query.Reference{}
	for _, r := range refs {
		byN[itoa(r.N)] = r
	}
	var out []web.QueryRef
	seen := map[string]bool{}
	for _, m := range citePattern.FindAllStringSubmatch(answer, -1) {
		id := m[1]
		if seen[id] {
			continue
		}
		if r, ok := byN[id]; ok && len(r.Chunks) > 0 {
			seen[id] = true
			out = append(out, web.QueryRef{Ref: id, Text: r.Title + " · passages " + strings.Join(r.Chunks, ", "), URL: links[r.Chunks[0]]})
		} else if _, ok := text[id]; ok {
			seen[id] = true
			out = append(out, web.QueryRef{Ref: id, Text: text[id], URL: links[id]})
		}
	}
	if len(out) == 0 {
		for _, id := range cited {
			out = append(out, web.QueryRef{Ref: id, Text: text[id], URL: links[id]})
		}
	}
	return out
}

// citePattern is an answer's citation: [1], [E2], [R3], [C4].
var citePattern = regexp.MustCompile(`\[([ERC]?\d+)\]`)

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
