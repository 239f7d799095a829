package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/kgstudio/kgstudio/extract"
)

// ProviderGemini is the provider name of the Gemini client.
const ProviderGemini = extract.ProviderGemini

// DefaultGeminiModel is used when GeminiConfig.Model is empty.
const DefaultGeminiModel = "gemini-2.5-flash"

// GeminiConfig configures the Gemini client.
type GeminiConfig struct {
	// APIKey is the Gemini API key. When empty the SDK reads GEMINI_API_KEY
	// or GOOGLE_API_KEY from the environment.
	APIKey string
	// Model defaults to DefaultGeminiModel.
	Model string
	// BaseURL replaces the API endpoint (a gateway, a proxy or a local fake).
	// When empty the SDK honours GOOGLE_GEMINI_BASE_URL.
	BaseURL string
	// Timeout bounds one HTTP attempt; zero means no bound besides ctx.
	Timeout time.Duration
	// HTTPClient is optional.
	HTTPClient *http.Client
}

// Gemini is a Client over Google's google.golang.org/genai SDK using the
// Gemini API backend. (The older github.com/google/generative-ai-go SDK
// reached end of life on 2025-08-31 and is not used.) It makes exactly one HTTP attempt per call: retries,
// rate limits and concurrency belong to WithPolicy.
type Gemini struct {
	client  *genai.Client
	model   string
	apiKey  string
	timeout time.Duration
}

var _ Client = (*Gemini)(nil)

// NewGemini builds a Gemini client. It returns a KindInvalid error when no
// API key is configured.
func NewGemini(ctx context.Context, cfg GeminiConfig) (*Gemini, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultGeminiModel
	}
	cc := &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  cfg.HTTPClient,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	}
	c, err := genai.NewClient(ctx, cc)
	if err != nil {
		return nil, extract.Wrap(extract.KindInvalid, redactErr(err, cfg.APIKey), "gemini client configuration")
	}
	return &Gemini{client: c, model: cfg.Model, apiKey: c.ClientConfig().APIKey, timeout: cfg.Timeout}, nil
}

// Model returns the model name the client calls.
func (g *Gemini) Model() string { return g.model }

// Complete sends one generateContent call. System messages become the
// system instruction; assistant messages are sent with the "model" role.
func (g *Gemini) Complete(ctx context.Context, req Request) (Response, error) {
	rec := newRecord(ProviderGemini, g.model, req)
	if len(req.Messages) == 0 {
		return Response{}, extract.Errorf(extract.KindInvalid, "gemini: request has no messages")
	}
	config := &genai.GenerateContentConfig{Temperature: genai.Ptr(float32(req.Temperature))}
	var system []string
	var contents []*genai.Content
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "assistant", "model":
			contents = append(contents, genai.NewContentFromText(m.Content, genai.RoleModel))
		case "user", "":
			contents = append(contents, genai.NewContentFromText(m.Content, genai.RoleUser))
		default:
			return Response{}, extract.Errorf(extract.KindInvalid, "gemini: unknown message role %q", m.Role)
		}
	}
	if len(contents) == 0 {
		return Response{}, extract.Errorf(extract.KindInvalid, "gemini: request has no user message")
	}
	if len(system) > 0 {
		config.SystemInstruction = genai.NewContentFromText(strings.Join(system, "\n\n"), genai.RoleUser)
	}
	if req.JSONSchema != nil {
		config.ResponseMIMEType = "application/json"
		config.ResponseJsonSchema = req.JSONSchema
	}
	if g.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.timeout)
		defer cancel()
	}

	start := time.Now()
	if delta := streamOf(ctx); delta != nil && req.JSONSchema == nil {
		return g.stream(ctx, contents, config, rec, start, delta)
	}
	resp, err := g.client.Models.GenerateContent(ctx, g.model, contents, config)
	rec.Latency = time.Since(start)
	if err != nil {
		return Response{}, g.mapErr(ctx, err)
	}
	if resp.UsageMetadata != nil {
		rec.PromptTokens = int(resp.UsageMetadata.PromptTokenCount)
		rec.OutputTokens = int(resp.UsageMetadata.CandidatesTokenCount + resp.UsageMetadata.ThoughtsTokenCount)
	}
	if len(resp.Candidates) == 0 {
		reason := "no candidates"
		if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			reason = "prompt blocked: " + string(resp.PromptFeedback.BlockReason)
			return Response{}, extract.Errorf(extract.KindInvalid, "gemini: %s", reason)
		}
		return Response{}, extract.Errorf(extract.KindUnavailable, "gemini: %s", reason)
	}
	text := resp.Text()
	rec.Response = text
	return Response{Text: text, Record: rec}, nil
}

// stream asks for the answer streamed and passes each piece to delta.
func (g *Gemini) stream(ctx context.Context, contents []*genai.Content, config *genai.GenerateContentConfig, rec extract.CallRecord, start time.Time, delta func(string)) (Response, error) {
	var text strings.Builder
	for resp, err := range g.client.Models.GenerateContentStream(ctx, g.model, contents, config) {
		if err != nil {
			rec.Latency = time.Since(start)
			return Response{}, g.mapErr(ctx, err)
		}
		if resp.UsageMetadata != nil {
			rec.PromptTokens = int(resp.UsageMetadata.PromptTokenCount)
			rec.OutputTokens = int(resp.UsageMetadata.CandidatesTokenCount + resp.UsageMetadata.ThoughtsTokenCount)
		}
		if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			return Response{}, extract.Errorf(extract.KindInvalid, "gemini: prompt blocked: %s", resp.PromptFeedback.BlockReason)
		}
		if t := resp.Text(); t != "" {
			text.WriteString(t)
			delta(t)
		}
	}
	rec.Latency = time.Since(start)
	rec.Response = text.String()
	return Response{Text: rec.Response, Record: rec}, nil
}

// mapErr turns SDK errors into *extract.Error, reading RetryInfo from the
// error details of a 429.
func (g *Gemini) mapErr(ctx context.Context, err error) error {
	err = redactErr(err, g.apiKey)
	var ae genai.APIError
	if errors.As(err, &ae) {
		se := &StatusError{Provider: ProviderGemini, Status: ae.Code, Message: redact(ae.Message, g.apiKey)}
		for _, d := range ae.Details {
			if t, _ := d["@type"].(string); strings.HasSuffix(t, "RetryInfo") {
				if s, ok := d["retryDelay"].(string); ok {
					if dur, perr := time.ParseDuration(s); perr == nil {
						se.RetryAfter = dur
					}
				}
			}
		}
		if se.Status == 0 {
			se.Status = http.StatusInternalServerError
		}
		return statusErr(se)
	}
	return transportErr(ctx, ProviderGemini, fmt.Errorf("generate content: %w", err))
}
