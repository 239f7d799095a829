package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

// DefaultOpenAIEmbedModel is the embedding model when none is configured.
const DefaultOpenAIEmbedModel = "text-embedding-3-small"

// OpenAIEmbedConfig configures an embedder for any OpenAI-compatible
// /v1/embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp's server).
type OpenAIEmbedConfig struct {
	// BaseURL is the API root; the embedder posts to BaseURL + "/embeddings".
	BaseURL string
	// APIKey is sent as a Bearer token when set.
	APIKey string
	// Model defaults to DefaultOpenAIEmbedModel.
	Model string
	// Dimensions, when set, is asked of the server and checked; otherwise
	// the length of the first vector returned is the embedder's.
	Dimensions int
	// HTTPClient is optional.
	HTTPClient *http.Client
}

// OpenAIEmbedder is an extract.Embedder over an OpenAI-compatible
// embeddings endpoint. It makes one HTTP attempt per call; see
// WithEmbedPolicy for retries and limits. Vectors come back at unit length.
type OpenAIEmbedder struct {
	cfg  OpenAIEmbedConfig
	http *http.Client
	url  string
	dims atomic.Int64
}

var _ extract.Embedder = (*OpenAIEmbedder)(nil)

// NewOpenAIEmbedder builds the embedder; a malformed base URL is a
// KindInvalid error.
func NewOpenAIEmbedder(cfg OpenAIEmbedConfig) (*OpenAIEmbedder, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		cfg.Model = DefaultOpenAIEmbedModel
	}
	base, err := openAIBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	e := &OpenAIEmbedder{cfg: cfg, http: hc, url: base + "/embeddings"}
	e.dims.Store(int64(cfg.Dimensions))
	return e, nil
}

// Model implements extract.Embedder.
func (e *OpenAIEmbedder) Model() string { return e.cfg.Model }

// Dimensions implements extract.Embedder: the configured length, or that
// of the first vector returned (zero before the first call).
func (e *OpenAIEmbedder) Dimensions() int { return int(e.dims.Load()) }

// openAIBase checks an OpenAI-compatible API root (the default when
// empty) and trims its final slash.
func openAIBase(baseURL string) (string, error) {
	if baseURL == "" {
		baseURL = DefaultOpenAIBaseURL
	}
	base := strings.TrimRight(baseURL, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return "", extract.Errorf(extract.KindInvalid, "openai: base URL must start with http:// or https://")
	}
	return base, nil
}

type oaEmbedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type oaEmbedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Embed implements extract.Embedder with one POST /embeddings.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, extract.EmbedUsage, error) {
	use := extract.EmbedUsage{}
	if len(texts) == 0 {
		return nil, use, nil
	}
	payload, err := json.Marshal(oaEmbedRequest{Model: e.cfg.Model, Input: texts, EncodingFormat: "float", Dimensions: e.cfg.Dimensions})
	if err != nil {
		return nil, use, extract.Wrap(extract.KindInvalid, err, "openai: encode embeddings request")
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(payload))
	if err != nil {
		return nil, use, extract.Wrap(extract.KindInvalid, err, "openai: build request")
	}
	hreq.Header.Set("Content-Type", "application/json")
	if e.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+e.cfg.APIKey)
	}
	use.Calls = 1
	hresp, err := e.http.Do(hreq)
	if err != nil {
		return nil, use, transportErr(ctx, ProviderOpenAI, redactErr(err, e.cfg.APIKey))
	}
	defer hresp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(hresp.Body, 256<<20))
	if err != nil {
		return nil, use, transportErr(ctx, ProviderOpenAI, fmt.Errorf("read response: %w", err))
	}
	var out oaEmbedResponse
	jsonErr := json.Unmarshal(raw, &out)
	if hresp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if jsonErr == nil && out.Error != nil {
			msg = out.Error.Message
		}
		return nil, use, statusErr(&StatusError{Provider: ProviderOpenAI, Status: hresp.StatusCode,
			RetryAfter: parseRetryAfter(hresp.Header.Get("Retry-After"), time.Now()), Message: redact(msg, e.cfg.APIKey)})
	}
	if jsonErr != nil {
		return nil, use, extract.Wrap(extract.KindUnavailable, jsonErr, "openai: malformed embeddings response")
	}
	if len(out.Data) != len(texts) {
		return nil, use, extract.Errorf(extract.KindUnavailable, "openai: %d embeddings for %d texts", len(out.Data), len(texts))
	}
	vecs := make([][]float32, len(texts))
	for i, d := range out.Data {
		at := d.Index
		if at < 0 || at >= len(texts) || vecs[at] != nil {
			at = i
		}
		// Unit length, as search compares by dot product (local servers
		// do not all normalise).
		vecs[at] = normalize(d.Embedding)
	}
	want := e.Dimensions()
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, use, extract.Errorf(extract.KindUnavailable, "openai: empty embedding for text %d", i)
		}
		if want == 0 {
			e.dims.CompareAndSwap(0, int64(len(v)))
			want = e.Dimensions()
		}
		if len(v) != want {
			return nil, use, extract.Errorf(extract.KindUnavailable, "openai: embedding of %d dimensions, want %d", len(v), want)
		}
	}
	use.Tokens = cmpOr(out.Usage.PromptTokens, out.Usage.TotalTokens, estimateTexts(texts))
	return vecs, use, nil
}

func cmpOr(xs ...int) int {
	for _, x := range xs {
		if x > 0 {
			return x
		}
	}
	return 0
}

// estimateTexts is a token estimate of texts (four bytes a token) for
// providers that do not report usage.
func estimateTexts(texts []string) int {
	n := 0
	for _, t := range texts {
		n += len(t)/4 + 1
	}
	return n
}
