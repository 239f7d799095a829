package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/kgstudio/kgstudio/extract"
)

// requestSnapshot is what identifies a call besides provider and model.
type requestSnapshot struct {
	Messages    []Message      `json:"messages"`
	Temperature float64        `json:"temperature"`
	JSONSchema  map[string]any `json:"json_schema,omitempty"`
}

// RequestJSON renders the parts of req that shape the answer (messages,
// temperature and schema; not Purpose) as canonical JSON. Map keys are
// sorted by encoding/json, so equal requests give equal text.
func RequestJSON(req Request) string {
	b, err := json.Marshal(requestSnapshot{Messages: req.Messages, Temperature: req.Temperature, JSONSchema: req.JSONSchema})
	if err != nil {
		// A schema that cannot be encoded still needs a stable identity.
		b, _ = json.Marshal(requestSnapshot{Messages: req.Messages, Temperature: req.Temperature})
	}
	return string(b)
}

// Key is the cache key of a call: the hex sha256 of provider, model,
// messages, temperature and schema.
func Key(provider extract.Provider, model string, req Request) string {
	h := sha256.New()
	h.Write([]byte(provider))
	h.Write([]byte{0})
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(RequestJSON(req)))
	return hex.EncodeToString(h.Sum(nil))
}

// newRecord starts the record of a call.
func newRecord(provider extract.Provider, model string, req Request) extract.CallRecord {
	return extract.CallRecord{
		Key:      Key(provider, model, req),
		Provider: provider,
		Model:    model,
		Purpose:  req.Purpose,
		Request:  RequestJSON(req),
	}
}
