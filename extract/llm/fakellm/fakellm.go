// Package fakellm is a local stand-in for model providers in tests. One
// httptest server speaks both Gemini's REST API
// (POST /v1beta/models/{model}:generateContent) and the OpenAI
// chat-completions API (POST /v1/chat/completions or /chat/completions),
// answering with recorded outputs chosen by rules, with optional latency and
// injected faults, and counting every request it receives.
package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract/llm"
)

// Rule maps requests to a recorded answer. A rule matches when every set
// condition holds; a rule with no conditions matches everything. Rules are
// tried in order.
type Rule struct {
	// Contains must occur in the last user message.
	Contains string
	// Anywhere must occur in some message (system, user or assistant).
	Anywhere string
	// Text is the answer.
	Text string
}

// Options configure a Server.
type Options struct {
	// Latency is added before each answer.
	Latency time.Duration
	// Rules choose answers; see Rule.
	Rules []Rule
	// Queue answers requests that match no rule, in order.
	Queue []string
	// FailFirst makes the first N requests fail with FailStatus (default
	// 429) before answers are served.
	FailFirst int
	// FailStatus is the status of injected failures.
	FailStatus int
	// RetryAfter, when set, is sent as the Retry-After header of injected
	// failures (seconds, e.g. "0").
	RetryAfter string
	// StreamGate, when set, holds a streamed answer after its first piece
	// until the gate is closed (or the request ends), so a test can see
	// whether the first piece reached its listener before the model
	// finished.
	StreamGate chan struct{}
}

// Call is one request the server received.
type Call struct {
	API      string // "gemini" or "openai"
	Model    string
	Messages []llm.Message
	// JSON reports whether the request asked for JSON output.
	JSON bool
	// Stream reports whether the request asked for the answer streamed.
	Stream bool
	// Status is the HTTP status the server answered with.
	Status int
}

// Server is a running fake provider.
type Server struct {
	*httptest.Server
	opts  Options
	mu    sync.Mutex
	calls []Call
	queue []string
}

// New starts a fake server that is closed when the test ends.
func New(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.FailStatus == 0 {
		opts.FailStatus = http.StatusTooManyRequests
	}
	s := &Server{opts: opts, queue: append([]string(nil), opts.Queue...)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	tb.Cleanup(s.Close)
	return s
}

// GeminiURL is the base URL to give the Gemini client.
func (s *Server) GeminiURL() string { return s.URL + "/" }

// OpenAIURL is the base URL to give the OpenAI-compatible client.
func (s *Server) OpenAIURL() string { return s.URL + "/v1" }

// Count returns the number of requests received, failed ones included.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// Calls returns a copy of the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// LastPrompt is every message of the last request received, joined
// ("" before any).
func (s *Server) LastPrompt() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 0 {
		return ""
	}
	var b strings.Builder
	for _, m := range s.calls[len(s.calls)-1].Messages {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// Reset forgets the requests received so far (the fault counter too).
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// Load reads a recorded answer from a file, failing the test if it cannot.
func Load(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("fakellm: %v", err)
	}
	return string(b)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var call Call
	switch {
	case (strings.HasSuffix(r.URL.Path, ":generateContent") || strings.HasSuffix(r.URL.Path, ":streamGenerateContent")) && strings.Contains(r.URL.Path, "/models/"):
		call, err = parseGemini(r.URL.Path, body)
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		call, err = parseOpenAI(body)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}

	if s.opts.Latency > 0 {
		select {
		case <-time.After(s.opts.Latency):
		case <-r.Context().Done():
			return
		}
	}

	s.mu.Lock()
	n := len(s.calls)
	fail := n < s.opts.FailFirst
	text, found := "", false
	if !fail {
		text, found = s.match(call.Messages)
	}
	switch {
	case fail:
		call.Status = s.opts.FailStatus
	case !found:
		call.Status = http.StatusBadRequest
	default:
		call.Status = http.StatusOK
	}
	s.calls = append(s.calls, call)
	s.mu.Unlock()

	switch {
	case fail:
		if s.opts.RetryAfter != "" {
			w.Header().Set("Retry-After", s.opts.RetryAfter)
		}
		writeError(w, call.API, call.Status, "injected failure")
	case !found:
		writeError(w, call.API, call.Status, "fakellm: no recorded answer for this request")
	case call.Stream:
		s.writeStream(w, r, call, text)
	case call.API == "gemini":
		writeGemini(w, call, text)
	default:
		writeOpenAI(w, call, text)
	}
}

// writeStream sends an answer as server-sent events, a word at a time,
// in the form of the call's API; after the first piece it waits for
// Options.StreamGate when set.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, c Call, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		flush()
	}
	p, o := promptTokens(c.Messages), tokens(text)
	for i, piece := range strings.SplitAfter(text, " ") {
		if piece == "" {
			continue
		}
		if c.API == "gemini" {
			send(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": piece}}}, "index": 0}},
				"usageMetadata": map[string]any{"promptTokenCount": p, "candidatesTokenCount": o, "totalTokenCount": p + o}, "modelVersion": c.Model})
		} else {
			send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": c.Model,
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": piece}, "finish_reason": nil}}})
		}
		if i == 0 && s.opts.StreamGate != nil {
			select {
			case <-s.opts.StreamGate:
			case <-r.Context().Done():
				return
			}
		}
	}
	if c.API != "gemini" {
		send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": c.Model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": p, "completion_tokens": o, "total_tokens": p + o}})
		fmt.Fprint(w, "data: [DONE]\n\n")
		flush()
	}
}

// match picks the answer; the caller holds s.mu.
func (s *Server) match(msgs []llm.Message) (string, bool) {
	last := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			last = msgs[i].Content
			break
		}
	}
	for _, r := range s.opts.Rules {
		if r.Contains != "" && !strings.Contains(last, r.Contains) {
			continue
		}
		if r.Anywhere != "" && !anyContains(msgs, r.Anywhere) {
			continue
		}
		return r.Text, true
	}
	if len(s.queue) > 0 {
		t := s.queue[0]
		s.queue = s.queue[1:]
		return t, true
	}
	return "", false
}

func anyContains(msgs []llm.Message, sub string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, sub) {
			return true
		}
	}
	return false
}

type geminiPart struct {
	Text string `json:"text"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

func joinParts(c geminiContent) string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func parseGemini(path string, body []byte) (Call, error) {
	var in struct {
		Contents          []geminiContent `json:"contents"`
		SystemInstruction *geminiContent  `json:"systemInstruction"`
		GenerationConfig  struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Call{}, fmt.Errorf("fakellm: bad gemini body: %w", err)
	}
	model, method, _ := strings.Cut(path[strings.LastIndex(path, "/models/")+len("/models/"):], ":")
	call := Call{API: "gemini", Model: model, JSON: in.GenerationConfig.ResponseMimeType == "application/json", Stream: method == "streamGenerateContent"}
	if in.SystemInstruction != nil {
		call.Messages = append(call.Messages, llm.Message{Role: "system", Content: joinParts(*in.SystemInstruction)})
	}
	for _, c := range in.Contents {
		role := "user"
		if c.Role == "model" {
			role = "assistant"
		}
		call.Messages = append(call.Messages, llm.Message{Role: role, Content: joinParts(c)})
	}
	return call, nil
}

func parseOpenAI(body []byte) (Call, error) {
	var in struct {
		Model          string          `json:"model"`
		Messages       []llm.Message   `json:"messages"`
		ResponseFormat json.RawMessage `json:"response_format"`
		Stream         bool            `json:"stream"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Call{}, fmt.Errorf("fakellm: bad openai body: %w", err)
	}
	return Call{API: "openai", Model: in.Model, Messages: in.Messages, JSON: len(in.ResponseFormat) > 0, Stream: in.Stream}, nil
}

func tokens(s string) int { return len(s)/4 + 1 }

func promptTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += tokens(m.Content)
	}
	return n
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeGemini(w http.ResponseWriter, c Call, text string) {
	p, o := promptTokens(c.Messages), tokens(text)
	writeJSON(w, http.StatusOK, map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": p, "candidatesTokenCount": o, "totalTokenCount": p + o},
		"modelVersion":  c.Model,
	})
}

func writeOpenAI(w http.ResponseWriter, c Call, text string) {
	p, o := promptTokens(c.Messages), tokens(text)
	writeJSON(w, http.StatusOK, map[string]any{
		"id":      "chatcmpl-fake",
		"object":  "chat.completion",
		"model":   c.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": p, "completion_tokens": o, "total_tokens": p + o},
	})
}

func writeError(w http.ResponseWriter, api string, status int, msg string) {
	if api == "gemini" {
		writeJSON(w, status, map[string]any{"error": map[string]any{
			"code": status, "message": msg, "status": strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_")),
		}})
		return
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "fake_error", "code": strconv.Itoa(status)}})
}
