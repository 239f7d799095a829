package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/store"
)

// Providers holds the model-provider settings. Keys are never logged or
// rendered.
type Providers struct {
	GeminiAPIKey  string
	GeminiModel   string
	GeminiBaseURL string
	OpenAIBaseURL string
	OpenAIAPIKey  string
	OpenAIModel   string
	// Concurrency bounds concurrent model calls per run.
	Concurrency int
	// Timeout bounds one model call.
	Timeout time.Duration
	// RequestsPerMinute and TokensPerMinute limit the calls to each
	// provider and model across all runs; zero means unlimited.
	RequestsPerMinute int
	TokensPerMinute   int
	// Prices is the per-model price table for cost estimates (see
	// DefaultPrices), lower-case model names.
	Prices map[string]Price
}

// Runner executes extraction versions: in the background for the server,
// in the foreground for the CLI. A run writes each finished chunk through
// the store's sink, so a run that was interrupted (even by a killed
// process) resumes where it stopped.
type Runner struct {
	store     *store.Store
	log       *slog.Logger
	providers Providers
	// owner names this process in the versions it runs (see lease.go).
	owner string

	// nlpMu guards nlpByTypes: one offline extractor (and so one loaded
	// model) per entity-type list.
	nlpMu      sync.Mutex
	nlpByTypes map[string]*nlp.Extractor

	mu     sync.Mutex
	active map[int]context.CancelFunc
	// clients holds one rate-limited client per provider and model, so
	// concurrent runs share the limits.
	clients map[string]llm.Client
	wg      sync.WaitGroup
}

// NewRunner builds a runner.
func NewRunner(st *store.Store, log *slog.Logger, p Providers) *Runner {
	return &Runner{store: st, log: log, providers: p, owner: newOwner(), active: map[int]context.CancelFunc{}, clients: map[string]llm.Client{}}
}

// Start runs a version in the background; it returns at once.
func (r *Runner) Start(v store.Version) {
	r.mu.Lock()
	if _, running := r.active[v.ID]; running {
		r.mu.Unlock()
		return
	}
	// A background run outlives the request that started it.
	ctx, cancel := context.WithCancel(context.Background())
	r.active[v.ID] = cancel
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			delete(r.active, v.ID)
			r.mu.Unlock()
			cancel()
		}()
		switch err := r.Run(ctx, v, nil); {
		case err == nil, errors.Is(err, context.Canceled):
		case errors.Is(err, ErrRunElsewhere):
			r.log.Debug("extraction runs elsewhere", "version_id", v.ID)
		default:
			r.log.Error("extraction failed", "version_id", v.ID, "extraction", v.Extraction, "error", err)
		}
	}()
}

// Cancel stops a background run; it reports whether one was running.
func (r *Runner) Cancel(id int) bool {
	r.mu.Lock()
	cancel, ok := r.active[id]
	r.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// Running reports whether a version runs in this process.
func (r *Runner) Running(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.active[id]
	return ok
}

// Shutdown cancels background runs and waits for them; runs canceled this
// way stay "running" in the database and resume on the next start.
func (r *Runner) Shutdown(ctx context.Context) {
	r.mu.Lock()
	for _, c := range r.active {
		c()
	}
	r.mu.Unlock()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Resume restarts every version left queued or running that no live
// process runs.
func (r *Runner) Resume(ctx context.Context) error {
	vs, err := r.store.UnfinishedVersions(ctx)
	if err != nil {
		return err
	}
	now := r.store.Now()
	for _, v := range vs {
		if r.Running(v.ID) {
			continue
		}
		if v.Owner != "" && v.Owner != r.owner && now.Sub(v.HeartbeatAt) <= leaseStale && !ownerDead(v.Owner) {
			continue // a live process runs it
		}
		r.log.Info("resuming extraction", "version_id", v.ID, "extraction", v.Extraction, "chunks_done", v.ChunksDone)
		r.Start(v)
	}
	return nil
}

// Run executes one version to the end and records its outcome. It first
// leases the version (ErrRunElsewhere when another live process runs it).
// A canceled context leaves the version "running" so it resumes later;
// other errors mark it failed.
func (r *Runner) Run(ctx context.Context, v store.Version, progress func(extract.Progress)) error {
	stop, err := r.lease(ctx, v.ID)
	if err != nil {
		return err
	}
	defer stop()
	begin := time.Now()
	err = r.run(ctx, v, progress)
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
	if ferr := r.store.FinishVersion(context.WithoutCancel(ctx), v.ID, status, time.Since(begin), msg); ferr != nil {
		return errors.Join(err, ferr)
	}
	return err
}

func (r *Runner) run(ctx context.Context, v store.Version, progress func(extract.Progress)) error {
	docs, err := r.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return err
	}
	cfg := v.Config
	// Dialogue runs go turn by turn (see dialogue_run.go).
	if useDialogue(cfg, docs) {
		return r.runDialogue(ctx, v, docs, progress)
	}
	if useCSV(cfg, docs) {
		return r.runCSV(ctx, v, docs, progress)
	}
	total := 0
	settings := chunkSettings(cfg)
	for _, d := range docs {
		chunks := extract.Split(d, cfg.ChunkSize, cfg.Overlap, cfg.Strict)
		total += len(chunks)
		if err := r.store.SaveChunks(ctx, d.ID, settings, chunks); err != nil {
			return err
		}
	}
	if err := r.store.StartVersion(ctx, v.ID, total); err != nil {
		return err
	}
	ex, err := r.Extractor(ctx, cfg)
	if err != nil {
		return err
	}
	sink := r.store.Sink(v.ID, sinkFragments(cfg))
	if err := extract.Run(ctx, docs, cfg, ex, sink, progress); err != nil {
		return err
	}
	return r.summarize(ctx, v, ex)
}

// chunkSettings names a splitter setting, so chunks of different settings
// are stored apart.
func chunkSettings(cfg extract.Config) string {
	return fmt.Sprintf("%d/%d/%t", cfg.ChunkSize, cfg.Overlap, cfg.Strict)
}

// DialogueChunkSet names the chunks of dialogue runs: one per turn, the same
// whatever the splitter settings.
const DialogueChunkSet = "dialogue"

// chunkSetOf names the chunk set a version's chunks are stored under.
func (h *Handler) chunkSetOf(ctx context.Context, v store.Version) (string, error) {
	docs, err := h.docKinds(ctx, v)
	if err != nil {
		return "", err
	}
	return chunkSetFor(v.Config, docs), nil
}

// chunkSetFor names the chunk set of a run of cfg over docs.
func chunkSetFor(cfg extract.Config, docs []extract.Document) string {
	if useDialogue(cfg, docs) {
		return DialogueChunkSet
	}
	return chunkSettings(cfg)
}

// docKinds returns a version's documents with only ID, name and kind set.
func (h *Handler) docKinds(ctx context.Context, v store.Version) ([]extract.Document, error) {
	docs := make([]extract.Document, 0, len(v.DocumentIDs))
	for _, id := range v.DocumentIDs {
		d, err := h.store.DocumentInfo(ctx, id)
		if err != nil {
			return nil, err
		}
		docs = append(docs, extract.Document{ID: d.ID, Name: d.Name, Kind: d.Kind})
	}
	return docs, nil
}

// Extractor builds the strategy a config asks for.
func (r *Runner) Extractor(ctx context.Context, cfg extract.Config) (extract.Extractor, error) {
	switch cfg.Strategy {
	case extract.StrategyNLP, "":
		return r.nlp(cfg)
	case extract.StrategyTuple, extract.StrategySchema:
		return r.llmExtractor(ctx, cfg)
	default:
		return nil, extract.Errorf(extract.KindInvalid, "unknown strategy %q (use nlp, tuple, schema or dialogue)", cfg.Strategy)
	}
}

// nlp returns the offline extractor for the config's entity types, built
// once per type list (building one loads the NER model).
func (r *Runner) nlp(cfg extract.Config) (extract.Extractor, error) {
	key := strings.Join(cfg.EntityTypes, "\x1f")
	r.nlpMu.Lock()
	defer r.nlpMu.Unlock()
	if ex, ok := r.nlpByTypes[key]; ok {
		return ex, nil
	}
	ex, err := nlp.New(nlp.Options{EntityTypes: cfg.EntityTypes})
	if err != nil {
		return nil, err
	}
	if r.nlpByTypes == nil {
		r.nlpByTypes = map[string]*nlp.Extractor{}
	}
	r.nlpByTypes[key] = ex
	return ex, nil
}

// Prepare fills a config before a version is created: defaults for the
// provider and model, and the entity types of a referenced schema.
func (r *Runner) Prepare(ctx context.Context, cfg *extract.Config, schemaRef string) error {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.MaxFragments <= 0 {
		cfg.MaxFragments = 8
	}
	if cfg.Strategy == "" {
		cfg.Strategy = extract.StrategyNLP
	}
	switch cfg.Strategy {
	case extract.StrategyNLP:
		cfg.Provider, cfg.Model, cfg.Prompts = "none", "", nil
	case extract.StrategyTuple, extract.StrategySchema, extract.StrategyDialogue:
		if cfg.Provider == "" {
			cfg.Provider = r.defaultProvider()
		}
	default:
		return extract.Errorf(extract.KindInvalid, "unknown strategy %q (use nlp, tuple, schema or dialogue)", cfg.Strategy)
	}
	if err := r.checkProvider(*cfg); err != nil {
		return err
	}
	if cfg.Provider != "none" && cfg.Model == "" {
		switch cfg.Provider {
		case "gemini":
			cfg.Model = r.providers.GeminiModel
		case "openai":
			cfg.Model = r.providers.OpenAIModel
		}
	}
	if schemaRef != "" {
		return r.ResolveSchema(ctx, cfg, schemaRef)
	}
	return nil
}

// defaultProvider is the configured provider, gemini first, or "none".
func (r *Runner) defaultProvider() string {
	switch {
	case r.providers.GeminiAPIKey != "":
		return "gemini"
	case r.providers.OpenAIBaseURL != "" || r.providers.OpenAIAPIKey != "":
		return "openai"
	}
	return "none"
}

// checkProvider refuses a config whose model provider is missing or not
// configured, before a version is created for it.
func (r *Runner) checkProvider(cfg extract.Config) error {
	needs := cfg.Strategy == extract.StrategyTuple || cfg.Strategy == extract.StrategySchema
	switch cfg.Provider {
	case "none", "":
		if needs {
			return extract.Errorf(extract.KindInvalid, "strategy %s needs a model provider: set GEMINI_API_KEY or OPENAI_BASE_URL, or use nlp offline", cfg.Strategy)
		}
	case "gemini":
		if r.providers.GeminiAPIKey == "" {
			return extract.Errorf(extract.KindInvalid, "the gemini provider needs GEMINI_API_KEY")
		}
	case "openai":
		if r.providers.OpenAIBaseURL == "" && r.providers.OpenAIAPIKey == "" {
			return extract.Errorf(extract.KindInvalid, "the openai provider needs OPENAI_BASE_URL (and OPENAI_API_KEY for hosted servers)")
		}
	default:
		return extract.Errorf(extract.KindInvalid, "unknown provider %q (use gemini, openai or none)", cfg.Provider)
	}
	return nil
}
