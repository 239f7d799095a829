package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/store"
)

// Start runs a version in the background; it returns at once.
func (a *App) Start(v store.Version) {
	a.mu.Lock()
	if _, running := a.active[v.ID]; running {
		a.mu.Unlock()
		return
	}
	// A background run outlives the request that started it.
	ctx, cancel := context.WithCancel(context.Background())
	a.active[v.ID] = cancel
	a.mu.Unlock()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer func() {
			a.mu.Lock()
			delete(a.active, v.ID)
			a.mu.Unlock()
			cancel()
		}()
		switch err := a.Run(ctx, v, nil); {
		case err == nil, errors.Is(err, context.Canceled):
		case errors.Is(err, ErrRunElsewhere):
			a.log.Debug("extraction runs elsewhere", "version_id", v.ID)
		default:
			a.log.Error("extraction failed", "version_id", v.ID, "extraction", v.Extraction, "error", err)
		}
	}()
}

// Cancel stops a background run; it reports whether one was running.
func (a *App) Cancel(id int) bool {
	a.mu.Lock()
	cancel, ok := a.active[id]
	a.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// Running reports whether a version runs in this process.
func (a *App) Running(id int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.active[id]
	return ok
}

// Shutdown cancels background runs and waits for them; runs canceled this
// way stay "running" in the database and resume on the next start.
func (a *App) Shutdown(ctx context.Context) {
	a.mu.Lock()
	for _, c := range a.active {
		c()
	}
	a.mu.Unlock()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Resume restarts every version left queued or running that no live
// process runs.
func (a *App) Resume(ctx context.Context) error {
	vs, err := a.store.UnfinishedVersions(ctx)
	if err != nil {
		return err
	}
	now := a.store.Now()
	for _, v := range vs {
		if a.Running(v.ID) {
			continue
		}
		if v.Owner != "" && v.Owner != a.owner && now.Sub(v.HeartbeatAt) <= leaseStale && !ownerDead(v.Owner) {
			continue // a live process runs it
		}
		a.log.Info("resuming extraction", "version_id", v.ID, "extraction", v.Extraction, "chunks_done", v.ChunksDone)
		a.Start(v)
	}
	return nil
}

// Run executes one version to the end and records its outcome. It first
// leases the version (ErrRunElsewhere when another live process runs it).
// A canceled context leaves the version "running" so it resumes later;
// other errors mark it failed.
func (a *App) Run(ctx context.Context, v store.Version, progress func(extract.Progress)) error {
	stop, err := a.lease(ctx, v.ID)
	if err != nil {
		return err
	}
	defer stop()
	begin := time.Now()
	err = a.run(ctx, v, progress)
	if err == nil {
		// Injection of the reference graph the run names (app/inject.go).
		err = a.inject(ctx, v)
	}
	if err == nil {
		// The duplicate decisions taken on earlier versions.
		err = a.applyDecisions(ctx, v)
	}
	if err == nil {
		// The vectorizer step, after every kind of run.
		err = a.vectorize(ctx, v)
	}
	status, msg := store.StatusDone, ""
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		return err
	default:
		status, msg = store.StatusFailed, extract.MessageOf(err)
		if extract.KindOf(err) == extract.KindInternal {
			msg = err.Error()
		}
	}
	if ferr := a.store.FinishVersion(context.WithoutCancel(ctx), v.ID, status, time.Since(begin), msg); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

func (a *App) run(ctx context.Context, v store.Version, progress func(extract.Progress)) error {
	docs, err := a.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return err
	}
	// Each document takes its own route (see routes.go).
	routes, err := a.planRoutes(ctx, v, docs)
	if err != nil {
		return err
	}
	return a.runRoutes(ctx, v, routes, progress)
}

// chunkSettings names a splitter setting, so chunks of different settings
// are stored apart.
func chunkSettings(cfg extract.Config) string {
	return fmt.Sprintf("%d/%d/%t", cfg.ChunkSize, cfg.Overlap, cfg.Strict)
}

// DialogueChunkSet names the chunks of dialogue runs: one per turn, the same
// whatever the splitter settings.
const DialogueChunkSet = "dialogue"

// DocKinds returns a version's documents with only ID, name and kind set.
func (a *App) DocKinds(ctx context.Context, v store.Version) ([]extract.Document, error) {
	docs := make([]extract.Document, 0, len(v.DocumentIDs))
	for _, id := range v.DocumentIDs {
		d, err := a.store.DocumentInfo(ctx, id)
		if err != nil {
			return nil, err
		}
		docs = append(docs, extract.Document{ID: d.ID, Name: d.Name, Kind: d.Kind})
	}
	return docs, nil
}

// Extractor builds the strategy a config asks for.
func (a *App) Extractor(ctx context.Context, cfg extract.Config) (extract.Extractor, error) {
	switch cfg.Strategy {
	case extract.StrategyNLP, "":
		if cfg.SchemaName != "" {
			return a.schemaNLP(ctx, cfg)
		}
		return a.nlp(cfg)
	case extract.StrategyTuple, extract.StrategySchema:
		return a.llmExtractor(ctx, cfg)
	default:
		return nil, extract.Errorf(extract.KindInvalid, "unknown strategy %q (use nlp, tuple, schema or dialogue)", cfg.Strategy)
	}
}

// nlp returns the offline extractor for the config's entity types, built
// once per type list (building one loads the NER model).
func (a *App) nlp(cfg extract.Config) (extract.Extractor, error) {
	key := strings.Join(cfg.EntityTypes, "\x1f")
	a.nlpMu.Lock()
	defer a.nlpMu.Unlock()
	if ex, ok := a.nlpByTypes[key]; ok {
		return ex, nil
	}
	ex, err := nlp.New(nlp.Options{EntityTypes: cfg.EntityTypes})
	if err != nil {
		return nil, err
	}
	if a.nlpByTypes == nil {
		a.nlpByTypes = map[string]*nlp.Extractor{}
	}
	a.nlpByTypes[key] = ex
	return ex, nil
}

// Prepare fills and checks a config before a version is created: the
// defaults (extract.Config.WithDefaults), the provider and model, and the
// entity types of a referenced schema. Settings extract.Config.Validate
// refuses, and a provider that is not configured, are invalid errors.
func (a *App) Prepare(ctx context.Context, cfg *extract.Config, schemaRef string) error {
	*cfg = cfg.WithDefaults()
	if cfg.Strategy != extract.StrategyNLP && cfg.Provider == "" {
		cfg.Provider = a.defaultProvider()
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := a.checkProvider(*cfg); err != nil {
		return err
	}
	if err := a.checkEmbedder(*cfg); err != nil {
		return err
	}
	if cfg.Provider != "none" && cfg.Model == "" {
		switch cfg.Provider {
		case "gemini":
			cfg.Model = a.providers.GeminiModel
		case "openai":
			cfg.Model = a.providers.OpenAIModel
		}
	}
	// The version keeps the prompts it runs with, defaults included, so a
	// later release with new defaults cannot change what it says it ran.
	if defaults := StrategyPrompts(cfg.Strategy, DefaultPrompts()); len(defaults) > 0 {
		prompts := make(map[string]string, len(defaults))
		for k, v := range defaults {
			prompts[k] = v
			if own, ok := cfg.Prompts[k]; ok && own != "" {
				prompts[k] = own
			}
		}
		cfg.Prompts = prompts
	}
	// The reference graph to inject (app/inject.go).
	if err := a.checkReference(ctx, cfg); err != nil {
		return err
	}
	if schemaRef != "" {
		return a.ResolveSchema(ctx, cfg, schemaRef)
	}
	return nil
}

// RunRequest is a new version to run: the extraction it belongs to, its
// settings, an optional schema reference ("NAME" or "NAME@V") and the
// documents.
type RunRequest struct {
	Extraction  string
	Config      extract.Config
	SchemaRef   string
	DocumentIDs []int
	Note        string
}

// NewRun checks a request and creates its version, queued; Start or Run
// executes it. A missing name or document and settings Prepare refuses
// are invalid errors. The returned config is the one stored, defaults
// filled in, also when the request is refused.
func (a *App) NewRun(ctx context.Context, req RunRequest) (store.Version, extract.Config, error) {
	cfg := req.Config
	name := strings.TrimSpace(req.Extraction)
	if name == "" {
		return store.Version{}, cfg, extract.Errorf(extract.KindInvalid, "give the extraction a name")
	}
	// The same document twice (two identical files are stored once) runs
	// once.
	var ids []int
	for _, id := range req.DocumentIDs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return store.Version{}, cfg, extract.Errorf(extract.KindInvalid, "pick at least one document")
	}
	if err := a.Prepare(ctx, &cfg, req.SchemaRef); err != nil {
		return store.Version{}, cfg, err
	}
	v, err := a.store.NewVersion(ctx, name, cfg, ids, strings.TrimSpace(req.Note))
	return v, cfg, err
}

// defaultProvider is the configured provider, gemini first, or "none".
func (a *App) defaultProvider() string {
	switch {
	case a.providers.GeminiAPIKey != "":
		return "gemini"
	case a.providers.OpenAIBaseURL != "" || a.providers.OpenAIAPIKey != "":
		return "openai"
	}
	return "none"
}

// checkProvider refuses a config whose model provider is missing or not
// configured, before a version is created for it.
func (a *App) checkProvider(cfg extract.Config) error {
	needs := cfg.Strategy == extract.StrategyTuple || cfg.Strategy == extract.StrategySchema
	switch cfg.Provider {
	case "none", "":
		if needs {
			return extract.Errorf(extract.KindInvalid, "strategy %s needs a model provider: set GEMINI_API_KEY or OPENAI_BASE_URL, or use nlp offline", cfg.Strategy)
		}
	case "gemini":
		if a.providers.GeminiAPIKey == "" {
			return extract.Errorf(extract.KindInvalid, "the gemini provider needs GEMINI_API_KEY")
		}
	case "openai":
		if a.providers.OpenAIBaseURL == "" && a.providers.OpenAIAPIKey == "" {
			return extract.Errorf(extract.KindInvalid, "the openai provider needs OPENAI_BASE_URL (and OPENAI_API_KEY for hosted servers)")
		}
	default:
		return extract.Errorf(extract.KindInvalid, "unknown provider %q (use gemini, openai or none)", cfg.Provider)
	}
	return nil
}
