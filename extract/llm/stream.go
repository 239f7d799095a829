package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
)

// streamKey carries a call's stream in its context.
type streamKey struct{}

// WithStream returns a context whose model calls stream: a provider
// client passes each piece of the answer to delta as it arrives, and
// still returns the whole answer. Calls asking for JSON output do not
// stream. A call answered from the call cache sends no pieces.
func WithStream(ctx context.Context, delta func(string)) context.Context {
	return context.WithValue(ctx, streamKey{}, delta)
}

// streamOf returns the context's stream, nil for none.
func streamOf(ctx context.Context) func(string) {
	d, _ := ctx.Value(streamKey{}).(func(string))
	return d
}

// readSSE calls data with the payload of each "data:" line of a
// server-sent event stream until the stream ends or data returns false.
func readSSE(r io.Reader, data func(string) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := sc.Text()
		payload, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		if !data(strings.TrimSpace(payload)) {
			return nil
		}
	}
	return sc.Err()
}

// oaChunk is one chunk of an OpenAI-compatible streamed answer.
type oaChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// decodeOAChunk reads one chunk; ok is false for one that is not JSON.
func decodeOAChunk(s string) (oaChunk, bool) {
	var c oaChunk
	return c, json.Unmarshal([]byte(s), &c) == nil
}
