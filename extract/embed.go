package extract

import "context"

// Embedder turns texts into vectors: KAG's vectorizer step. Implementations
// are batched (one call embeds many texts), know their model id and the
// length of the vectors they return, and return one vector per text in
// order. Errors are *Error: KindUnavailable for transport or provider
// failures, KindInvalid for requests the provider refuses.
type Embedder interface {
	// Model names the embedding model; vectors of different models are
	// never compared.
	Model() string
	// Dimensions is the length of every returned vector.
	Dimensions() int
	// Embed returns one vector per text and what the call used.
	Embed(ctx context.Context, texts []string) ([][]float32, EmbedUsage, error)
}

// EmbedUsage counts what embedding calls used: provider calls made, input
// tokens sent and texts answered from a cache.
type EmbedUsage struct {
	Calls  int `json:"calls"`
	Tokens int `json:"tokens"`
	Cached int `json:"cached"`
}

// Add sums two usages.
func (u EmbedUsage) Add(o EmbedUsage) EmbedUsage {
	return EmbedUsage{Calls: u.Calls + o.Calls, Tokens: u.Tokens + o.Tokens, Cached: u.Cached + o.Cached}
}

// SplitEmbedder is an embedder that serves only some texts (a sentence
// encoder with an English vocabulary meets Chinese, say) and names the
// embedder for the rest. Vectors of the two models are never compared:
// the vectorizer keeps the fallback's vectors in an index of their own,
// and a question goes to the index of the model that serves it.
type SplitEmbedder interface {
	Embedder
	// Serves reports whether the embedder's own model serves the text.
	Serves(text string) bool
	// Fallback embeds the texts it does not serve.
	Fallback() Embedder
}

// EmbedderName names an embedder a run may pick (Config.Embedder).
type EmbedderName string

// Embedders a run may pick.
const (
	// EmbedderUSELite is Universal Sentence Encoder Lite, run offline in
	// pure Go (the default).
	EmbedderUSELite EmbedderName = "use-lite"
	EmbedderOffline EmbedderName = "offline"
	EmbedderGemini  EmbedderName = EmbedderName(ProviderGemini)
	EmbedderOpenAI  EmbedderName = EmbedderName(ProviderOpenAI)
)

// PaidEmbedder reports whether an embedder calls a provider (each call
// may cost money) rather than running in the process.
func PaidEmbedder(name EmbedderName) bool { return name == EmbedderGemini || name == EmbedderOpenAI }
