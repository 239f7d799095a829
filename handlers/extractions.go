package handlers

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// listExtractions renders the extractions page.
func (h *Handler) listExtractions(c echo.Context) error {
	ctx := c.Request().Context()
	exs, err := h.appOf(c).Versions.Extractions(ctx, 0)
	if err != nil {
		return err
	}
	counts, err := h.appOf(c).Versions.Counts(ctx)
	if err != nil {
		return err
	}
	p := web.ExtractionsPage{HasDocs: counts.Documents > 0}
	for _, e := range exs {
		p.Groups = append(p.Groups, web.ExtractionGroup{Name: e.Name, Versions: versionRows(e.Versions)})
	}
	return h.page(c, "extractions", "Extractions", web.ExtractionsList(p))
}

// newExtraction renders the run form, pre-filled from a version with
// ?from=ID, or with documents picked by ?doc=ID.
func (h *Handler) newExtraction(c echo.Context) error {
	ctx := c.Request().Context()
	cfg := extract.DefaultConfig()
	form := web.RunForm{}
	picked := map[int]bool{}
	if from := intQuery(c, "from", 0); from > 0 {
		v, err := h.appOf(c).Versions.Get(ctx, from)
		if err != nil {
			return err
		}
		cfg = v.Config
		form.Name, form.From = v.Extraction, v.Label()
		for _, id := range v.DocumentIDs {
			picked[id] = true
		}
	}
	for _, s := range c.QueryParams()["doc"] {
		if id, err := strconv.Atoi(s); err == nil {
			picked[id] = true
		}
	}
	if err := h.fillRunForm(c, &form, cfg, picked); err != nil {
		return err
	}
	return h.page(c, "extractions", "New extraction", web.RunFormPage(form))
}

// uploadBatchGap is the most time between two documents stored by one
// upload: a batch is stored in one request, within it.
const uploadBatchGap = 2 * time.Second

// fillRunForm sets the choices and values of the run form from a config.
func (h *Handler) fillRunForm(c echo.Context, form *web.RunForm, cfg extract.Config, picked map[int]bool) error {
	ctx := c.Request().Context()
	docs, err := h.appOf(c).Documents.List(ctx, 0)
	if err != nil {
		return err
	}
	// With nothing picked, the newest upload's documents are: the newest
	// document and those stored just before it, one after the other
	// (documents list newest first).
	batch := 0
	for i := range docs {
		if i > 0 && docs[i-1].Created.Sub(docs[i].Created) > uploadBatchGap {
			break
		}
		batch++
	}
	for i, d := range docs {
		form.Docs = append(form.Docs, web.DocChoice{ID: d.ID, Name: d.Name, Kind: string(d.Kind), Checked: picked[d.ID] || len(picked) == 0 && i < batch})
	}
	schemas, err := h.schemaOptions(ctx)
	if err != nil {
		return err
	}
	cur := ""
	if cfg.SchemaName != "" {
		cur = fmt.Sprintf("%s@%d", cfg.SchemaName, cfg.SchemaVersion)
	}
	for _, o := range schemas {
		o.Selected = o.Value == cur
		form.Schemas = append(form.Schemas, o)
	}
	for _, s := range []struct {
		v extract.Strategy
		l string
	}{
		{extract.StrategyNLP, "nlp — offline NER and co-occurrence (no model)"},
		{extract.StrategyTuple, "tuple — open extraction with gleaning (LLM)"},
		{extract.StrategySchema, "schema — schema-constrained extraction (LLM)"},
		{extract.StrategyDialogue, "dialogue — memory operations per turn (LLM, or offline with provider none)"},
	} {
		form.Strategies = append(form.Strategies, web.Option{Value: string(s.v), Label: s.l, Selected: cfg.Strategy == s.v})
	}
	p := h.appOf(c).Providers()
	for _, s := range []struct {
		v  extract.Provider
		l  string
		ok bool
	}{
		{extract.ProviderNone, "none (offline)", true},
		{extract.ProviderGemini, "Gemini", p.Has(extract.ProviderGemini)},
		{extract.ProviderOpenAI, "OpenAI-compatible", p.Has(extract.ProviderOpenAI)},
	} {
		l := s.l
		if !s.ok {
			l += " — not configured"
		}
		form.Providers = append(form.Providers, web.Option{Value: string(s.v), Label: l, Selected: cfg.Provider == s.v})
	}
	form.ProviderHelp = providerHelp(p)
	for _, s := range []struct {
		v  extract.EmbedderName
		l  string
		ok bool
	}{
		{extract.EmbedderUSELite, "use-lite (sentence encoder, offline)", true},
		{extract.EmbedderOffline, "offline (hashed n-grams, no model)", true},
		{extract.EmbedderGemini, "Gemini embeddings", p.Has(extract.ProviderGemini)},
		{extract.EmbedderOpenAI, "OpenAI-compatible /v1/embeddings", p.Has(extract.ProviderOpenAI)},
	} {
		l := s.l
		if !s.ok {
			l += " — not configured"
		}
		form.Embedders = append(form.Embedders, web.Option{Value: string(s.v), Label: l, Selected: cmp.Or(cfg.Embedder, extract.EmbedderUSELite) == s.v})
	}
	for _, s := range []struct {
		v extract.ReportWriter
		l string
	}{
		{extract.ReportsOffline, "offline (from the graph's text)"},
		{extract.ReportsModel, "model (the provider, once per community)"},
	} {
		form.ReportWriters = append(form.ReportWriters, web.Option{Value: string(s.v), Label: s.l, Selected: cmp.Or(cfg.Reports, extract.ReportsOffline) == s.v})
	}
	form.Model = cfg.Model
	form.ChunkSize, form.Overlap, form.Strict = cfg.ChunkSize, cfg.Overlap, cfg.Strict
	form.Concurrency, form.MaxGleaning, form.Language = cfg.Concurrency, cfg.MaxGleaning, cfg.Language
	form.Reference = cfg.Reference
	form.ChunkNodes = cfg.ChunkNodes
	for _, s := range []struct {
		v extract.OfficialNames
		l string
	}{
		{extract.OfficialRename, "rename the node (the text's name kept as an alias)"},
		{extract.OfficialNode, "an official-name node and an OfficialName edge (KAG's shape)"},
	} {
		form.OfficialNames = append(form.OfficialNames, web.Option{Value: string(s.v), Label: s.l, Selected: cmp.Or(cfg.OfficialNames, extract.OfficialRename) == s.v})
	}
	prompts := app.DefaultPrompts()
	for k, v := range cfg.Prompts {
		prompts[k] = v
	}
	names := make([]string, 0, len(prompts))
	for k := range prompts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		form.Prompts = append(form.Prompts, web.PromptField{Name: k, Text: prompts[k], Strategy: string(app.PromptStrategy(k))})
	}
	return nil
}

// providerHelp says which providers are configured, never their keys.
func providerHelp(p app.Providers) string {
	var on []string
	if p.Has(extract.ProviderGemini) {
		on = append(on, "Gemini ("+p.GeminiModel+")")
	}
	if p.Has(extract.ProviderOpenAI) {
		on = append(on, "OpenAI-compatible ("+p.OpenAIModel+")")
	}
	if len(on) == 0 {
		return "No model provider is configured: set GEMINI_API_KEY or OPENAI_BASE_URL to use the LLM strategies. nlp works offline."
	}
	return "Configured: " + strings.Join(on, ", ") + "."
}

// runRequestOf reads a run request from the run form or its JSON body:
// what was sent, the request it makes and what is wrong with it.
func runRequestOf(c echo.Context) (runInput, app.RunRequest, error) {
	in, err := readRunInput(c)
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.Embedder = extract.Strategy(in.Strategy), extract.Provider(in.Provider), extract.EmbedderName(in.Embedder)
	cfg.Model, cfg.Language, cfg.Reference = strings.TrimSpace(in.Model), strings.TrimSpace(in.Language), strings.TrimSpace(in.Reference)
	cfg.Strict, cfg.Reports, cfg.NoCache = in.Strict, extract.ReportWriter(strings.TrimSpace(in.Reports)), in.NoCache
	cfg.OfficialNames, cfg.ChunkNodes = extract.OfficialNames(strings.TrimSpace(in.OfficialNames)), in.ChunkNodes
	// Numbers are only read here: their ranges are checked by the app, as
	// for the CLI.
	for _, n := range []struct {
		v   *int
		dst *int
	}{{in.ChunkSize, &cfg.ChunkSize}, {in.Overlap, &cfg.Overlap}, {in.Concurrency, &cfg.Concurrency}, {in.MaxGleaning, &cfg.MaxGleaning}, {in.MaxReports, &cfg.MaxReports}} {
		if n.v != nil {
			*n.dst = *n.v
		}
	}
	if err == nil && cfg.Strategy != extract.StrategyNLP {
		posted := map[string]string{}
		for k := range app.DefaultPrompts() {
			if v, ok := in.Prompts[k]; ok {
				posted[k] = strings.ReplaceAll(v, "\r\n", "\n")
			}
		}
		cfg.Prompts = app.StrategyPrompts(cfg.Strategy, posted)
	}
	return in, app.RunRequest{Extraction: strings.TrimSpace(in.Name), Config: cfg, SchemaRef: in.Schema,
		DocumentIDs: append(in.Documents, in.Doc...), Note: in.Note}, err
}

// apiEstimate answers POST /api/extractions/estimate: what the run the
// body describes would ask of its model (the contract of extract
// --estimate --json), calling no model and storing nothing.
func (h *Handler) apiEstimate(c echo.Context) error {
	_, req, err := runRequestOf(c)
	if err != nil {
		return err
	}
	est, err := h.appOf(c).Runs.EstimateRequest(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, est)
}

// startExtraction creates a version from the run form (or its JSON body)
// and starts it in the background. The form's Estimate button (op
// estimate) shows the form again with what the run would cost instead.
func (h *Handler) startExtraction(c echo.Context) error {
	ctx := c.Request().Context()
	in, req, err := runRequestOf(c)
	cfg, docIDs, name := req.Config, req.DocumentIDs, req.Extraction
	if err == nil && !wantsJSON(c) && c.FormValue("op") == "estimate" {
		return h.showEstimate(c, in, req)
	}
	var v record.Version
	if err == nil {
		v, cfg, err = h.appOf(c).Runs.NewRun(ctx, req)
	}
	if err != nil {
		if extract.KindOf(err) != extract.KindInvalid || wantsJSON(c) {
			return err
		}
		// Show the form again with the message and what was typed.
		form := web.RunForm{Name: name, Error: extract.MessageOf(err)}
		picked := map[int]bool{}
		for _, id := range docIDs {
			picked[id] = true
		}
		if ferr := h.fillRunForm(c, &form, cfg, picked); ferr != nil {
			return ferr
		}
		form.Name, form.Note = name, in.Note
		c.Response().Status = http.StatusUnprocessableEntity
		return h.renderStatus(c, http.StatusUnprocessableEntity, "extractions", "New extraction", web.RunFormPage(form))
	}
	h.appOf(c).Runs.Start(v)
	if wantsJSON(c) {
		// The version as GET /api/versions/{id} shows it, as queued.
		return c.JSON(http.StatusAccepted, app.VersionJSONOf(v))
	}
	if v.Number > 1 {
		// A name already taken adds a version to that extraction: said,
		// so a user who meant a new one can tell.
		return redirectFlash(c, fmt.Sprintf("/versions/%d", v.ID), fmt.Sprintf("Started %s, a new version of the extraction %s; its earlier versions are kept, to compare with.", v.Label(), v.Extraction), false)
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/versions/%d", v.ID))
}

// showEstimate renders the run form again, as filled, with the estimate
// of the run it describes (or why there is none).
func (h *Handler) showEstimate(c echo.Context, in runInput, req app.RunRequest) error {
	form := web.RunForm{}
	est, err := h.appOf(c).Runs.EstimateRequest(c.Request().Context(), req)
	switch {
	case err == nil:
		form.Estimate = estimateView(est)
	case extract.KindOf(err) == extract.KindInvalid:
		form.Error = "No estimate: " + extract.MessageOf(err)
	default:
		return err
	}
	picked := map[int]bool{}
	for _, id := range req.DocumentIDs {
		picked[id] = true
	}
	if err := h.fillRunForm(c, &form, req.Config, picked); err != nil {
		return err
	}
	form.Name, form.Note = req.Extraction, in.Note
	return h.page(c, "extractions", "New extraction", web.RunFormPage(form))
}

// estimateView shows an estimate.
func estimateView(est app.Estimate) *web.EstimateView {
	v := &web.EstimateView{Chunks: est.Chunks, Calls: est.Calls, InputTokens: est.InputTokens, OutputTokens: est.OutputTokens,
		Cost: fmt.Sprintf("%.4f %s", est.Cost, est.Currency), Exact: est.ExactTokens, Priced: est.Priced, Model: est.Model, Notes: est.Notes}
	return v
}

// cancelVersion stops a running version.
func (h *Handler) cancelVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	id := v.ID
	if !v.Active() {
		return redirectFlash(c, fmt.Sprintf("/versions/%d", id), fmt.Sprintf("%s has already finished (%s).", v.Label(), v.Status), true)
	}
	if v, err = h.appOf(c).Runs.CancelVersion(c.Request().Context(), v); err != nil {
		return err
	}
	return redirectFlash(c, fmt.Sprintf("/versions/%d", id), fmt.Sprintf("Extraction canceled after %d of %d chunks.", v.ChunksDone, v.ChunksTotal), false)
}

// versionProgress renders the live progress partial.
func (h *Handler) versionProgress(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	// While the final job merges, the stored count is the merge's: the
	// chunks extracted stay shown, with the phase and the merge's count.
	ph, err := h.appOf(c).Runs.Phase(c.Request().Context(), v)
	if err != nil {
		return err
	}
	v.ChunksDone = ph.ChunksDone
	if wantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]any{"id": v.ID, "status": v.Status, "chunks_done": v.ChunksDone,
			"chunks_total": v.ChunksTotal, "nodes": v.Nodes, "edges": v.Edges, "error": v.Error,
			"phase": ph.Name, "chunks_merged": ph.ChunksMerged})
	}
	p := progressOf(v)
	p.Phase, p.ChunksMerged = string(ph.Name), ph.ChunksMerged
	p.Polled = true
	if c.QueryParam("refresh") == "1" {
		// The page shows the run's results elsewhere: reload it once the
		// run has ended.
		p.Refresh = true
		if !v.Active() {
			c.Response().Header().Set("HX-Refresh", "true")
		}
	}
	return render(c, http.StatusOK, web.ProgressView(p))
}

func progressOf(v record.Version) web.Progress {
	elapsed := v.Elapsed
	if v.Active() && v.StartedAt != nil {
		elapsed = v.HeartbeatAt.Sub(*v.StartedAt)
	}
	return web.Progress{VersionID: v.ID, Status: string(v.Status), ChunksDone: v.ChunksDone, ChunksTotal: v.ChunksTotal,
		Nodes: v.Nodes, Edges: v.Edges, Elapsed: web.HumanDuration(elapsed), Active: v.Active(), Error: v.Error}
}

// apiVersion returns a version's status, config and jobs as JSON (what
// version show --json prints).
func (h *Handler) apiVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	j, err := h.appOf(c).Versions.WithJobs(c.Request().Context(), v)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, j)
}

// apiCancelVersion cancels a queued or running version and answers it as
// apiVersion does; a version that has ended is a 409.
func (h *Handler) apiCancelVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if v, err = h.appOf(c).Runs.CancelVersion(ctx, v); err != nil {
		return err
	}
	j, err := h.appOf(c).Versions.WithJobs(ctx, v)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, j)
}

// apiExtractions lists extractions with their versions, newest first.
func (h *Handler) apiExtractions(c echo.Context) error {
	exs, err := h.appOf(c).Versions.Extractions(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	type extractionJSON struct {
		Name     string            `json:"name"`
		Versions []app.VersionJSON `json:"versions"`
	}
	out := make([]extractionJSON, 0, len(exs))
	for _, e := range exs {
		x := extractionJSON{Name: e.Name, Versions: make([]app.VersionJSON, 0, len(e.Versions))}
		for _, v := range e.Versions {
			x.Versions = append(x.Versions, app.VersionJSONOf(v))
		}
		out = append(out, x)
	}
	return c.JSON(http.StatusOK, out)
}

// schemaOptions lists "NAME@V" choices for the run form: every schema at its
// latest version first, then older versions, newest first.
func (h *Handler) schemaOptions(ctx context.Context) ([]web.Option, error) {
	list, err := h.appIn(ctx).Schemas.List(ctx)
	if err != nil {
		return nil, err
	}
	var latest, older []web.Option
	for _, s := range list {
		for n := s.Latest; n >= 1; n-- {
			ref := fmt.Sprintf("%s@%d", s.Name, n)
			if n == s.Latest {
				latest = append(latest, web.Option{Value: ref, Label: fmt.Sprintf("%s (latest, %d types)", ref, s.Types)})
			} else {
				older = append(older, web.Option{Value: ref, Label: ref})
			}
		}
	}
	return append(latest, older...), nil
}

// runInput is what POST /api/extractions and the run form send: a JSON
// body (Content-Type application/json), or form values by the same names,
// documents as repeated doc values and each prompt template as
// prompt_NAME.
type runInput struct {
	Name       string `json:"name"`
	Strategy   string `json:"strategy"`
	Provider   string `json:"provider"`
	Embedder   string `json:"embedder"`
	Reports    string `json:"reports"`
	MaxReports *int   `json:"max_reports"`
	Model      string `json:"model"`
	Language   string `json:"language"`
	Reference  string `json:"reference"`
	Schema     string `json:"schema"`
	Note       string `json:"note"`
	Strict     bool   `json:"strict"`
	// NoCache asks the model anew instead of answering from the call
	// cache (the CLI's --no-cache).
	NoCache bool `json:"no_cache"`
	// OfficialNames is rename or node (Config.OfficialNames); ChunkNodes
	// puts KAG's chunk layer into the graph (Config.ChunkNodes).
	OfficialNames string            `json:"official_names"`
	ChunkNodes    bool              `json:"chunk_nodes"`
	ChunkSize     *int              `json:"chunk_size"`
	Overlap       *int              `json:"overlap"`
	Concurrency   *int              `json:"concurrency"`
	MaxGleaning   *int              `json:"max_gleaning"`
	Documents     []int             `json:"document_ids"`
	Doc           []int             `json:"doc"`
	Prompts       map[string]string `json:"prompts"`
}

// readRunInput reads a run request from a JSON body or the form. An
// error says what is wrong with it; the fields read before it are
// returned too, for the form shown again.
func readRunInput(c echo.Context) (runInput, error) {
	var in runInput
	req := c.Request()
	if strings.HasPrefix(req.Header.Get(echo.HeaderContentType), echo.MIMEApplicationJSON) {
		data, err := io.ReadAll(req.Body)
		if err != nil {
			return in, extract.Wrap(extract.KindInvalid, err, "read the run request")
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return runInput{}, extract.Errorf(extract.KindInvalid, "the run request is not valid JSON: %s", extract.JSONProblem(data, err))
		}
		return in, nil
	}
	in.Name, in.Strategy, in.Provider, in.Embedder = c.FormValue("name"), c.FormValue("strategy"), c.FormValue("provider"), c.FormValue("embedder")
	in.Model, in.Language, in.Reference = c.FormValue("model"), c.FormValue("language"), c.FormValue("reference")
	in.Reports = c.FormValue("reports")
	in.Schema, in.Note, in.Strict = c.FormValue("schema"), c.FormValue("note"), c.FormValue("strict") != ""
	in.NoCache = c.FormValue("no_cache") != ""
	in.OfficialNames, in.ChunkNodes = c.FormValue("official_names"), c.FormValue("chunk_nodes") != ""
	num := func(name string, dst **int) error {
		s := strings.TrimSpace(c.FormValue(name))
		if s == "" {
			return nil
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return extract.Errorf(extract.KindInvalid, "%s must be a whole number", strings.ReplaceAll(name, "_", " "))
		}
		*dst = &n
		return nil
	}
	for _, s := range req.Form["doc"] {
		id, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return in, extract.Errorf(extract.KindInvalid, "doc %q is not a document id", s)
		}
		in.Documents = append(in.Documents, id)
	}
	for k, v := range req.Form {
		if name, ok := strings.CutPrefix(k, "prompt_"); ok && len(v) > 0 {
			if in.Prompts == nil {
				in.Prompts = map[string]string{}
			}
			in.Prompts[name] = v[0]
		}
	}
	return in, cmp.Or(num("chunk_size", &in.ChunkSize), num("overlap", &in.Overlap),
		num("concurrency", &in.Concurrency), num("max_gleaning", &in.MaxGleaning), num("max_reports", &in.MaxReports))
}
