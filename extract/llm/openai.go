package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

// ProviderOpenAI is the provider name of the OpenAI-compatible client.
const ProviderOpenAI = extract.ProviderOpenAI

// DefaultOpenAIBaseURL is used when OpenAIConfig.BaseURL is empty.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIConfig configures a client for any OpenAI-compatible
// chat-completions server (Ollama, vLLM, llama.cpp's server, hosted ones).
type OpenAIConfig struct {
	// BaseURL is the API root, e.g. http://localhost:11434/v1; the client
	// posts to BaseURL + "/chat/completions".
	BaseURL string
	// APIKey is sent as a Bearer token when set.
	APIKey string
	// Model is required.
	Model string
	// Timeout bounds one HTTP attempt; zero means no bound besides ctx.
	Timeout time.Duration
	// HTTPClient is optional.
	HTTPClient *http.Client
}

// OpenAI is a chat-completions Client over net/http. It makes exactly one
// HTTP attempt per call; see WithPolicy for retries and limits.
type OpenAI struct {
	cfg  OpenAIConfig
	http *http.Client
	url  string
}

var _ Client = (*OpenAI)(nil)

// NewOpenAI builds an OpenAI-compatible client. It returns a KindInvalid
// error when the model is missing or the base URL is malformed.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, extract.Errorf(extract.KindInvalid, "openai: a model name is required")
	}
	base, err := openAIBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		// Keep enough idle connections for concurrent extraction; the
		// default of two per host would reconnect on most calls.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		hc = &http.Client{Transport: tr}
	}
	return &OpenAI{cfg: cfg, http: hc, url: base + "/chat/completions"}, nil
}

// Model returns the model name the client calls.
func (o *OpenAI) Model() string { return o.cfg.Model }

type oaRequest struct {
	Model          string         `json:"model"`
	Messages       []Message      `json:"messages"`
	Temperature    float64        `json:"temperature"`
	ResponseFormat map[string]any `json:"response_format,omitempty"`
	Stream         bool           `json:"stream,omitempty"`
	StreamOptions  map[string]any `json:"stream_options,omitempty"`
}

type oaResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// readStream reads a streamed answer, passing each piece to delta.
func (o *OpenAI) readStream(ctx context.Context, body io.Reader, rec extract.CallRecord, start time.Time, delta func(string)) (Response, error) {
	var text strings.Builder
	var streamErr string
	err := readSSE(io.LimitReader(body, 32<<20), func(data string) bool {
		if data == "[DONE]" {
			return false
		}
		c, ok := decodeOAChunk(data)
		if !ok {
			return true // a keep-alive or a line of another kind
		}
		if c.Error != nil {
			streamErr = c.Error.Message
			return false
		}
		if c.Usage != nil {
			rec.PromptTokens, rec.OutputTokens = c.Usage.PromptTokens, c.Usage.CompletionTokens
		}
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
			text.WriteString(c.Choices[0].Delta.Content)
			delta(c.Choices[0].Delta.Content)
		}
		return true
	})
	rec.Latency = time.Since(start)
	if err != nil {
		return Response{}, transportErr(ctx, ProviderOpenAI, fmt.Errorf("read streamed response: %w", err))
	}
	if streamErr != "" {
		return Response{}, extract.Errorf(extract.KindUnavailable, "openai: %s", redact(streamErr, o.cfg.APIKey))
	}
	rec.Response = text.String()
	return Response{Text: rec.Response, Record: rec}, nil
}

// Complete sends one chat-completions call; with a stream in ctx (see
// WithStream) it asks for the answer streamed and passes on its pieces.
func (o *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	rec := newRecord(ProviderOpenAI, o.cfg.Model, req)
	if len(req.Messages) == 0 {
		return Response{}, extract.Errorf(extract.KindInvalid, "openai: request has no messages")
	}
	delta := streamOf(ctx)
	if req.JSONSchema != nil {
		delta = nil
	}
	body := oaRequest{Model: o.cfg.Model, Messages: req.Messages, Temperature: req.Temperature, Stream: delta != nil}
	if delta != nil {
		body.StreamOptions = map[string]any{"include_usage": true}
	}
	if req.JSONSchema != nil {
		body.ResponseFormat = map[string]any{
			"type":        "json_schema",
			"json_schema": map[string]any{"name": "output", "schema": req.JSONSchema},
		}
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return Response{}, extract.Wrap(extract.KindInvalid, err, "openai: encode request")
	}
	if o.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.cfg.Timeout)
		defer cancel()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(payload))
	if err != nil {
		return Response{}, extract.Wrap(extract.KindInvalid, err, "openai: build request")
	}
	hreq.Header.Set("Content-Type", "application/json")
	if o.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}

	start := time.Now()
	hresp, err := o.http.Do(hreq)
	if err != nil {
		return Response{}, transportErr(ctx, ProviderOpenAI, redactErr(err, o.cfg.APIKey))
	}
	defer hresp.Body.Close()
	if delta != nil && hresp.StatusCode/100 == 2 && strings.HasPrefix(hresp.Header.Get("Content-Type"), "text/event-stream") {
		return o.readStream(ctx, hresp.Body, rec, start, delta)
	}
	raw, err := io.ReadAll(io.LimitReader(hresp.Body, 32<<20))
	rec.Latency = time.Since(start)
	if err != nil {
		return Response{}, transportErr(ctx, ProviderOpenAI, fmt.Errorf("read response: %w", err))
	}
	var out oaResponse
	jsonErr := json.Unmarshal(raw, &out)
	if hresp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if jsonErr == nil && out.Error != nil {
			msg = out.Error.Message
		}
		return Response{}, statusErr(&StatusError{
			Provider:   ProviderOpenAI,
			Status:     hresp.StatusCode,
			RetryAfter: parseRetryAfter(hresp.Header.Get("Retry-After"), time.Now()),
			Message:    redact(msg, o.cfg.APIKey),
		})
	}
	if jsonErr != nil {
		return Response{}, extract.Wrap(extract.KindUnavailable, jsonErr, "openai: malformed response body")
	}
	if len(out.Choices) == 0 {
		return Response{}, extract.Errorf(extract.KindUnavailable, "openai: response has no choices")
	}
	rec.PromptTokens = out.Usage.PromptTokens
	rec.OutputTokens = out.Usage.CompletionTokens
	rec.Response = out.Choices[0].Message.Content
	return Response{Text: rec.Response, Record: rec}, nil
}
