// Package llm holds the model-provider contract shared by the LLM-backed
// strategies: a chat request, its response and the Client that answers it.
package llm

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
)

// Message is one chat message. Role is "system", "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat call.
type Request struct {
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	// JSONSchema, when set, asks for JSON output that follows this schema
	// (a JSON Schema object).
	JSONSchema map[string]any `json:"json_schema,omitempty"`
	// Purpose labels the call for the inspector ("extract", "glean-1", ...).
	// It is not part of the cache key.
	Purpose string `json:"-"`
}

// Response is the model's answer with the record of the call.
type Response struct {
	Text   string
	Record extract.CallRecord
}

// Client answers chat requests. Implementations return *extract.Error of kind
// KindUnavailable for transport or provider failures after retries, and
// KindInvalid for requests the provider rejects.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
}
