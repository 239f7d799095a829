package app

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/extract/tuple"
	"github.com/kgstudio/kgstudio/internal/lru"
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
	// GeminiEmbedModel and OpenAIEmbedModel are the embedding models of
	// the gemini and openai embedders (empty: each one's default).
	GeminiEmbedModel string
	OpenAIEmbedModel string
	// Embedder is the embedder of the runs whose config names none
	// (KGSTUDIO_EMBEDDER); empty means DefaultEmbedder.
	Embedder extract.EmbedderName
	// Concurrency bounds concurrent model calls per run.
	Concurrency int
	// Timeout bounds one model call.
	Timeout time.Duration
	// RetryDelay is the first wait before a failed model call is tried
	// again (zero: llm.DefaultPolicy's); it doubles per attempt.
	RetryDelay time.Duration
	// RequestsPerMinute and TokensPerMinute limit the calls to each
	// provider and model across all runs; zero means unlimited.
	RequestsPerMinute int
	TokensPerMinute   int
	// Prices is the per-model price table for cost estimates (see
	// DefaultPrices), lower-case model names.
	Prices map[string]Price
}

// Has reports whether a model provider (extract.ProviderGemini or
// extract.ProviderOpenAI) is configured: it is the one place that knows
// what each one needs. The offline provider (none) always is.
func (p Providers) Has(provider extract.Provider) bool {
	switch provider {
	case extract.ProviderGemini:
		return p.GeminiAPIKey != ""
	case extract.ProviderOpenAI:
		return p.OpenAIBaseURL != "" || p.OpenAIAPIKey != ""
	case extract.ProviderNone:
		return true
	}
	return extract.Offline(provider) // "" (the default) too
}

// Configured lists the model providers that can answer, in preference
// order (gemini first).
func (p Providers) Configured() []extract.Provider {
	var out []extract.Provider
	for _, name := range []extract.Provider{extract.ProviderGemini, extract.ProviderOpenAI} {
		if p.Has(name) {
			out = append(out, name)
		}
	}
	return out
}

// Default is the preferred configured provider, or none.
func (p Providers) Default() extract.Provider {
	if conf := p.Configured(); len(conf) > 0 {
		return conf[0]
	}
	return extract.ProviderNone
}

// Model is the configured model of a provider (empty for none).
func (p Providers) Model(provider extract.Provider) string {
	switch provider {
	case extract.ProviderGemini:
		return p.GeminiModel
	case extract.ProviderOpenAI:
		return p.OpenAIModel
	case extract.ProviderNone:
		return ""
	}
	return ""
}

// needs says what a provider needs configured, for refusals.
func needs(provider extract.Provider) string {
	if provider == extract.ProviderGemini {
		return "GEMINI_API_KEY"
	}
	return "OPENAI_BASE_URL (and OPENAI_API_KEY for hosted servers)"
}

// DefaultPrompts returns every editable prompt template of the LLM
// strategies, by key.
func DefaultPrompts() map[string]string {
	out := tuple.DefaultPrompts()
	maps.Copy(out, kag.DefaultPrompts())
	out[dialogue.PromptKey] = dialogue.SystemPrompt()
	return out
}

// promptPrefix is the key prefix of each LLM strategy's prompt templates.
var promptPrefix = map[extract.Strategy]string{
	extract.StrategyTuple:    "tuple_",
	extract.StrategySchema:   "kag_",
	extract.StrategyDialogue: "dialogue_",
}

// PromptStrategy names the strategy a prompt template belongs to, or "".
func PromptStrategy(key string) extract.Strategy {
	for strategy, prefix := range promptPrefix {
		if strings.HasPrefix(key, prefix) {
			return strategy
		}
	}
	return ""
}

// StrategyPrompts keeps the templates a strategy uses.
func StrategyPrompts(strategy extract.Strategy, prompts map[string]string) map[string]string {
	prefix, ok := promptPrefix[strategy]
	if !ok {
		return nil
	}
	out := map[string]string{}
	for k, v := range prompts {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// Price is the list price of a million tokens in US dollars.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// DefaultPrices is the built-in price table for cost estimates; local
// models are not listed and cost nothing.
func DefaultPrices() map[string]Price {
	return map[string]Price{
		"gemini-2.5-flash":      {Input: 0.30, Output: 2.50},
		"gemini-2.5-flash-lite": {Input: 0.10, Output: 0.40},
		"gemini-2.5-pro":        {Input: 1.25, Output: 10.00},
		"gemini-2.0-flash":      {Input: 0.10, Output: 0.40},
		"gpt-4o-mini":           {Input: 0.15, Output: 0.60},
		"gpt-4o":                {Input: 2.50, Output: 10.00},
		"gpt-4.1-mini":          {Input: 0.40, Output: 1.60},
		"gpt-4.1":               {Input: 2.00, Output: 8.00},
		// Embedding models: input tokens only.
		"gemini-embedding-001":   {Input: 0.15},
		"text-embedding-3-small": {Input: 0.02},
		"text-embedding-3-large": {Input: 0.13},
		"text-embedding-ada-002": {Input: 0.10},
	}
}

// EmbedCostOf estimates what a version's vectorizer step cost from the
// input tokens of the embedding calls it paid for (texts answered from the
// cache are free) and the price table: "$0" for the offline embedders,
// "n/a" for models the table does not list (set KGSTUDIO_PRICES).
func (p Providers) EmbedCostOf(st record.VectorStats) string {
	if st.Embedder == extract.EmbedderOffline || st.Embedder == extract.EmbedderUSELite || st.Embedder == "" {
		return "$0"
	}
	price, ok := p.Prices[strings.ToLower(st.Model)]
	if !ok {
		return "n/a (no price for " + st.Model + ")"
	}
	return fmt.Sprintf("$%.4f", float64(st.Tokens)*price.Input/1e6)
}

// CostOf estimates what a run cost from the tokens of the calls it paid for
// (not those answered from the cache) and the price table: "$0" for offline
// runs, "n/a" for models the table does not list (set KGSTUDIO_PRICES).
func (p Providers) CostOf(v record.Version) string {
	if (v.Config.Strategy == extract.StrategyNLP && !v.Config.ModelReports()) || extract.Offline(v.Config.Provider) {
		return "$0"
	}
	price, ok := p.Prices[strings.ToLower(v.Config.Model)]
	if !ok {
		return "n/a (no price for " + v.Config.Model + ")"
	}
	// Calls answered from the cache cost nothing.
	pt, ot := v.PromptTokens-v.CachedPromptTokens, v.OutputTokens-v.CachedOutputTokens
	usd := (float64(pt)*price.Input + float64(ot)*price.Output) / 1e6
	return fmt.Sprintf("$%.4f", usd)
}

// models holds what the Apps of every workspace of a server share of the
// model providers, so that their runs share the limits and the loaded
// models: one rate-limited client per provider and model, one limited
// embedder per provider, the sentence encoder with its cache of recent
// vectors, and one offline extractor per entity-type list (each holds a
// loaded NER model). The caches of calls and embeddings stay each
// workspace's, in its own database.
type models struct {
	mu        sync.Mutex
	clients   map[string]llm.Client
	embedders map[string]extract.Embedder
	// nlpByTypes holds one offline extractor per entity-type list.
	nlpByTypes *lru.Cache[string, *nlp.Extractor]
}

func newModels() *models {
	return &models{clients: map[string]llm.Client{}, embedders: map[string]extract.Embedder{},
		nlpByTypes: lru.New[string, *nlp.Extractor](nlpCacheSize)}
}

// shared returns the value models keeps under key, made by make the
// first time.
func shared[T any](m *models, table map[string]T, key string, make func() (T, error)) (T, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := table[key]; ok {
		return v, nil
	}
	v, err := make()
	if err == nil {
		table[key] = v
	}
	return v, err
}

// client builds the model client a config asks for: the provider, wrapped
// in retries, rate limits and a concurrency bound (shared by every run on
// the same provider and model), behind the call cache.
func (m *Models) client(ctx context.Context, cfg extract.Config) (llm.Client, string, error) {
	if err := m.checkProvider(cfg); err != nil {
		return nil, "", err
	}
	if extract.Offline(cfg.Provider) {
		return nil, "", extract.Errorf(extract.KindInvalid, "strategy %q needs a model provider: choose gemini or openai", cfg.Strategy)
	}
	p := m.providers
	model := cfg.Model
	if model == "" {
		model = p.GeminiModel
		if cfg.Provider == llm.ProviderOpenAI {
			model = p.OpenAIModel
		}
	}
	key := string(cfg.Provider) + "/" + model
	limited, err := shared(m.models, m.models.clients, key, func() (llm.Client, error) {
		var base llm.Client
		switch cfg.Provider {
		case llm.ProviderGemini:
			g, err := llm.NewGemini(ctx, llm.GeminiConfig{APIKey: p.GeminiAPIKey, Model: model, BaseURL: p.GeminiBaseURL})
			if err != nil {
				return nil, err
			}
			base = g
		default:
			o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: p.OpenAIBaseURL, APIKey: p.OpenAIAPIKey, Model: model})
			if err != nil {
				return nil, err
			}
			base = o
		}
		pol := llm.DefaultPolicy()
		if p.Timeout > 0 {
			pol.Timeout = p.Timeout
		}
		if p.RetryDelay > 0 {
			pol.BaseDelay = p.RetryDelay
		}
		pol.Concurrency = max(p.Concurrency, cfg.Concurrency)
		pol.RequestsPerMinute, pol.TokensPerMinute = p.RequestsPerMinute, p.TokensPerMinute
		// On PostgreSQL the limits hold across every process (workers,
		// servers) calling this provider and model; calls in flight are
		// the provider's setting there, since runs share the workers.
		inflight := pol.Concurrency
		if p.Concurrency > 0 {
			inflight = p.Concurrency
		}
		// The main database's gate: every workspace's runs share it.
		pol.Gate = m.gates.ProviderGate(key, pol.RequestsPerMinute, pol.TokensPerMinute, inflight)
		return llm.WithPolicy(base, pol), nil
	})
	if err != nil {
		return nil, "", err
	}
	if cfg.NoCache {
		return llm.Uncached(limited, cfg.Provider, model, m.store), model, nil
	}
	return llm.Cached(limited, cfg.Provider, model, m.store), model, nil
}

// llmExtractor builds the tuple or schema strategy.
func (m *Models) llmExtractor(ctx context.Context, cfg extract.Config) (extract.Extractor, error) {
	client, model, err := m.client(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cfg.Model = model
	switch cfg.Strategy {
	case extract.StrategyTuple:
		return tuple.New(client, cfg, tuple.Options{})
	case extract.StrategySchema:
		types, err := m.kagTypes(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return kag.New(client, cfg, types, kag.Options{})
	case extract.StrategyNLP, extract.StrategyDialogue:
	}
	return nil, extract.Errorf(extract.KindInvalid, "strategy %q is not an LLM strategy", cfg.Strategy)
}

// kagTypes turns the version's schema (or the built-in default) into the
// schema strategy's type specs.
func (m *Models) kagTypes(ctx context.Context, cfg extract.Config) ([]kag.TypeSpec, error) {
	sc := schema.Default()
	if cfg.SchemaName != "" {
		s, _, err := m.store.SchemaVersion(ctx, cfg.SchemaName, cfg.SchemaVersion)
		if err != nil {
			return nil, err
		}
		sc = s
	}
	return kag.TypesFromSchema(sc), nil
}
