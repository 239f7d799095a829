package app

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/tuple"
)

// Estimate is what a run would ask of its model, counted before any call
// is made: the chunks the documents split into, the calls (the first
// extraction call of each chunk and, as an upper bound, every gleaning
// round), the tokens they send and receive, and their cost from a price
// table. Input tokens are the rendered prompts' estimated tokens
// (promptTokens; no provider's tokenizer is available offline, so
// ExactTokens is false); output tokens are estimated from each chunk's
// length. Notes say what is not counted.
type Estimate struct {
	Chunks       int     `json:"chunks"`
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Cost         float64 `json:"cost"`
	Currency     string  `json:"currency"`
	ExactTokens  bool    `json:"exact_tokens"`

	Strategy extract.Strategy `json:"strategy"`
	Provider extract.Provider `json:"provider"`
	Model    string           `json:"model"`
	// Priced says whether the price table (Providers.Prices, edited
	// with KGSTUDIO_PRICES) has the model; without it the cost is 0.
	Priced bool `json:"priced"`
	// Price is the model's price used, in Currency per million tokens.
	Price *Price   `json:"price,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// estimateOutputShare is the output tokens an extraction call is
// estimated to give per token of its chunk, and a gleaning round per
// token of the first call's output: an entity and relation list restates
// most of what a chunk names.
const (
	estimateOutputShare = 0.6
	estimateGleanShare  = 0.5
)

// noCalls is the model client of an estimate: it is never asked.
type noCalls struct{}

func (noCalls) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, extract.Errorf(extract.KindInvalid, "an estimate calls no model")
}

// EstimateRun counts what a run of cfg (prepared: see Prepare) over docs
// would ask of its model, without asking it and without storing
// anything, priced by the price table (Providers.Prices). The nlp
// strategy asks nothing; tuple is counted call by call from its prompts;
// the schema and dialogue strategies are refused (their calls depend on
// what the model answers).
func (rs *Runs) EstimateRun(ctx context.Context, cfg extract.Config, docs []extract.Document) (Estimate, error) {
	est := Estimate{Currency: "USD", Strategy: cfg.Strategy, Provider: cfg.Provider, Model: cfg.Model}
	if est.Model == "" {
		est.Model = rs.models.providers.Model(cfg.Provider)
	}
	for i := range docs {
		if docs[i].ID == 0 {
			docs[i].ID = i + 1 // distinct ids for planning
		}
	}
	jobs, err := extract.Plan(docs, cfg)
	if err != nil {
		return est, err
	}
	est.Chunks = len(jobs)
	switch cfg.Strategy {
	case extract.StrategyNLP, "":
		est.Notes = append(est.Notes, "the nlp strategy extracts offline: no model call")
	case extract.StrategyTuple:
		x, err := tuple.New(noCalls{}, cfg, tuple.Options{})
		if err != nil {
			return est, err
		}
		cont, err := x.ContinuePrompt()
		if err != nil {
			return est, err
		}
		contTokens := promptTokens(cont)
		for _, j := range jobs {
			if err := ctx.Err(); err != nil {
				return est, err
			}
			msgs, err := x.Messages(j.Chunk.Text)
			if err != nil {
				return est, err
			}
			in := 0
			for _, m := range msgs {
				in += promptTokens(m.Content)
			}
			out := int(estimateOutputShare*float64(promptTokens(j.Chunk.Text))) + 1
			est.Calls++
			est.InputTokens += in
			est.OutputTokens += out
			// Each gleaning round sends the conversation so far and the
			// continue prompt; counted as if none stopped early.
			prev := out
			for range max(0, cfg.MaxGleaning) {
				in += prev + contTokens
				glean := int(estimateGleanShare*float64(prev)) + 1
				est.Calls++
				est.InputTokens += in
				est.OutputTokens += glean
				prev = glean
			}
		}
		if cfg.MaxGleaning > 0 {
			est.Notes = append(est.Notes, fmt.Sprintf("gleaning counted in full (--max-gleaning %d); a round that adds nothing ends a chunk's gleaning, so the run may make fewer calls", cfg.MaxGleaning))
		}
		est.Notes = append(est.Notes, fmt.Sprintf("description summaries are not counted: a node or edge described in more than %d chunks costs one call more", cfg.MaxFragments))
	default:
		return est, extract.Errorf(extract.KindInvalid, "an estimate counts the nlp and tuple strategies; the %s strategy's calls depend on what the model answers", cfg.Strategy)
	}
	if cfg.ModelReports() {
		est.Notes = append(est.Notes, fmt.Sprintf("model community reports are not counted: up to %d calls more", cfg.MaxReports))
	}
	if extract.PaidEmbedder(cfg.Embedder) {
		est.Notes = append(est.Notes, "the "+string(cfg.Embedder)+" embedder's calls are not counted")
	}
	if est.Calls > 0 {
		est.Notes = append(est.Notes, "tokens are estimated (four characters a token, a CJK character one), not counted by the provider's tokenizer")
	}
	if est.Calls == 0 {
		est.Priced = true // nothing to pay
	} else if p, ok := rs.models.providers.Prices[strings.ToLower(est.Model)]; ok {
		est.Priced, est.Price = true, &p
		est.Cost = (float64(est.InputTokens)*p.Input + float64(est.OutputTokens)*p.Output) / 1e6
	} else {
		est.Notes = append(est.Notes, fmt.Sprintf("no price for model %q: set KGSTUDIO_PRICES (model=input/output, US dollars a million tokens)", est.Model))
	}
	return est, nil
}

// promptTokens estimates the tokens a model counts for a text: one a CJK
// character, one per four other characters, spaces included (the rule of
// thumb of BPE tokenizers on English).
func promptTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

// EstimateRequest is EstimateRun for a run request over stored documents:
// the settings are prepared as NewRun would (defaults, provider, schema),
// and nothing is made or asked.
func (rs *Runs) EstimateRequest(ctx context.Context, req RunRequest) (Estimate, error) {
	cfg := req.Config
	if err := rs.Prepare(ctx, &cfg, req.SchemaRef); err != nil {
		return Estimate{}, err
	}
	if len(req.DocumentIDs) == 0 {
		return Estimate{}, extract.Errorf(extract.KindInvalid, "pick at least one document to estimate")
	}
	docs, err := rs.store.Documents(ctx, req.DocumentIDs)
	if err != nil {
		return Estimate{}, err
	}
	return rs.EstimateRun(ctx, cfg, docs)
}

// EstimateOf is the estimate a version's run would have had before it
// ran (its settings over its documents), to show beside what it spent;
// ok is false for a run whose calls cannot be counted ahead (nlp, schema,
// dialogue, or documents gone).
func (rs *Runs) EstimateOf(ctx context.Context, v record.Version) (Estimate, bool) {
	if v.Config.Strategy != extract.StrategyTuple || extract.Offline(v.Config.Provider) {
		return Estimate{}, false
	}
	docs, err := rs.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return Estimate{}, false
	}
	est, err := rs.EstimateRun(ctx, v.Config, docs)
	return est, err == nil
}
