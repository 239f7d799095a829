package llm

import (
	"context"
	"math"

	"google.golang.org/genai"

	"github.com/kgstudio/kgstudio/extract"
)

// DefaultGeminiEmbedModel is the Gemini embedding model when none is
// configured; DefaultGeminiEmbedDimensions the vector length asked of it.
const (
	DefaultGeminiEmbedModel      = "gemini-embedding-001"
	DefaultGeminiEmbedDimensions = 768
)

// GeminiEmbedder is an extract.Embedder over the Gemini API's
// EmbedContent (Google's google.golang.org/genai SDK), asking for
// vectors of a fixed length and normalising them. It makes one attempt per
// call; see WithEmbedPolicy for retries and limits.
type GeminiEmbedder struct {
	g    *Gemini
	dims int
}

var _ extract.Embedder = (*GeminiEmbedder)(nil)

// NewGeminiEmbedder builds the embedder from the same settings as the
// Gemini chat client (key, base URL, HTTP client); cfg.Model is the
// embedding model (DefaultGeminiEmbedModel when empty) and dims the vector
// length (DefaultGeminiEmbedDimensions when zero).
func NewGeminiEmbedder(ctx context.Context, cfg GeminiConfig, dims int) (*GeminiEmbedder, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultGeminiEmbedModel
	}
	if dims <= 0 {
		dims = DefaultGeminiEmbedDimensions
	}
	g, err := NewGemini(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &GeminiEmbedder{g: g, dims: dims}, nil
}

// Model implements extract.Embedder.
func (e *GeminiEmbedder) Model() string { return e.g.model }

// Dimensions implements extract.Embedder.
func (e *GeminiEmbedder) Dimensions() int { return e.dims }

// Embed implements extract.Embedder with one EmbedContent call for the
// whole batch.
func (e *GeminiEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, extract.EmbedUsage, error) {
	use := extract.EmbedUsage{}
	if len(texts) == 0 {
		return nil, use, nil
	}
	contents := make([]*genai.Content, len(texts))
	for i, t := range texts {
		contents[i] = genai.NewContentFromText(t, genai.RoleUser)
	}
	dims := int32(e.dims)
	use.Calls = 1
	resp, err := e.g.client.Models.EmbedContent(ctx, e.g.model, contents, &genai.EmbedContentConfig{OutputDimensionality: &dims})
	if err != nil {
		return nil, use, e.g.mapErr(ctx, err)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, use, extract.Errorf(extract.KindUnavailable, "gemini: %d embeddings for %d texts", len(resp.Embeddings), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, emb := range resp.Embeddings {
		if emb == nil || len(emb.Values) != e.dims {
			n := 0
			if emb != nil {
				n = len(emb.Values)
			}
			return nil, use, extract.Errorf(extract.KindUnavailable, "gemini: embedding of %d dimensions, want %d", n, e.dims)
		}
		out[i] = normalize(emb.Values)
	}
	// The Gemini API reports no token count for embeddings: estimate it.
	use.Tokens = estimateTexts(texts)
	return out, use, nil
}

// normalize returns v scaled to unit length (reduced Gemini vectors are
// not normalised by the service).
func normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	out := make([]float32, len(v))
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}
