package handlers

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// The chat API lets chat front ends ask an extraction as they ask a model:
// OpenAI's POST /v1/chat/completions (and GET /v1/models, GET
// /v1/models/{id}), and Ollama's POST /api/chat, POST /api/show, GET
// /api/tags, GET /api/ps and GET /api/version, so Open WebUI, Continue,
// VS Code's Ollama provider and OpenAI client libraries connect unchanged. The model name picks the
// extraction (see app.ChatRequest); answers stream as the protocols do
// (server-sent events, newline-delimited JSON), in pieces of the whole
// answer.

// chatVersion is the Ollama version /api/version reports: clients check
// it against the API they speak.
const chatVersion = "0.9.0"

// chatMessage is a message as both APIs send it; OpenAI's content may
// also be a list of parts, of which the text parts count.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is the message's text.
func (m chatMessage) text() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", extract.Errorf(extract.KindInvalid, "a message's content must be a string or a list of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// chatBody is the part of an OpenAI or Ollama chat request kgstudio reads.
type chatBody struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	// Stream is OpenAI's flag (default false) and Ollama's (default true).
	Stream *bool `json:"stream"`
	// ResponseType shapes a model's answer, as LightRAG's response_type
	// ("Bullet Points"); a parameter beside the messages.
	ResponseType string `json:"response_type"`
}

// readChat decodes a chat request body.
func readChat(c echo.Context) (chatBody, app.ChatRequest, error) {
	var body chatBody
	dec := json.NewDecoder(c.Request().Body)
	if err := dec.Decode(&body); err != nil {
		return body, app.ChatRequest{}, extract.Errorf(extract.KindInvalid, "the body must be a JSON chat request: %v", err)
	}
	req := app.ChatRequest{Model: body.Model, ResponseType: body.ResponseType}
	for _, m := range body.Messages {
		t, err := m.text()
		if err != nil {
			return body, req, err
		}
		req.Messages = append(req.Messages, llm.Message{Role: m.Role, Content: t})
	}
	return body, req, nil
}

// pieces cuts an answer into the parts a stream sends: its lines, each
// with its newline, long lines by words.
func pieces(text string) []string {
	var out []string
	for _, line := range strings.SplitAfter(text, "\n") {
		for len(line) > 80 {
			cut := strings.LastIndexByte(line[:80], ' ')
			if cut <= 0 {
				cut = 80
				for cut < len(line) && line[cut]&0xC0 == 0x80 {
					cut++ // not inside a UTF-8 sequence
				}
			} else {
				cut++
			}
			out = append(out, line[:cut])
			line = line[cut:]
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

func chatID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "chatcmpl-" + hex.EncodeToString(b[:])
}

// openAIChat answers POST /v1/chat/completions. A streamed reply relays
// a model's answer as the provider sends it (its first piece goes out
// with the model's first token); what the provider did not stream (an
// offline answer, a cached one, the note of a failed call) follows in
// pieces.
func (h *Handler) openAIChat(c echo.Context) error {
	body, req, err := readChat(c)
	if err != nil {
		return err
	}
	id, created := chatID(), time.Now().Unix()
	type delta struct {
		Role    string `json:"role,omitempty"`
		Content string `json:"content"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      *delta  `json:"message,omitempty"`
		Delta        *delta  `json:"delta,omitempty"`
		FinishReason *string `json:"finish_reason"`
	}
	type completion struct {
		ID      string     `json:"id"`
		Object  string     `json:"object"`
		Created int64      `json:"created"`
		Model   string     `json:"model"`
		Choices []choice   `json:"choices"`
		Usage   *chatUsage `json:"usage,omitempty"`
	}
	stop := "stop"
	if body.Stream == nil || !*body.Stream {
		ans, err := h.appOf(c).Queries.Chat(c.Request().Context(), req)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, completion{ID: id, Object: "chat.completion", Created: created, Model: body.Model,
			Choices: []choice{{Message: &delta{Role: "assistant", Content: ans.Text}, FinishReason: &stop}}, Usage: usageOf(req, ans.Text)})
	}
	w := c.Response()
	st := &chatStream{start: func() {
		w.Header().Set(echo.HeaderContentType, "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
	}, send: func(p string, first bool) {
		d := &delta{Content: p}
		if first {
			d.Role = "assistant"
		}
		data, _ := json.Marshal(completion{ID: id, Object: "chat.completion.chunk", Created: created, Model: body.Model, Choices: []choice{{Delta: d}}})
		fmt.Fprintf(w, "data: %s\n\n", data)
		w.Flush()
	}}
	ans, err := h.relayChat(c, req, st)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(completion{ID: id, Object: "chat.completion.chunk", Created: created, Model: body.Model, Choices: []choice{{Delta: &delta{}, FinishReason: &stop}},
		Usage: usageOf(req, ans.Text)})
	fmt.Fprintf(w, "data: %s\n\n", data)
	fmt.Fprint(w, "data: [DONE]\n\n")
	w.Flush()
	return nil
}

// chatUsage is a chat's token counts, as OpenAI's usage gives them.
type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// usageOf estimates a chat's tokens (extract.EstimateTokens): the
// messages it was sent and the answer.
func usageOf(req app.ChatRequest, answer string) *chatUsage {
	u := &chatUsage{CompletionTokens: extract.EstimateTokens(answer)}
	for _, m := range req.Messages {
		u.PromptTokens += extract.EstimateTokens(m.Content)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// relayChat answers a streamed chat through st: the model's pieces as
// they come, then what the whole answer holds past them. An error before
// anything was sent is returned (the client gets its status); one after
// is said in the stream.
func (h *Handler) relayChat(c echo.Context, req app.ChatRequest, st *chatStream) (app.ChatAnswer, error) {
	req.Stream = st.piece
	ans, err := h.appOf(c).Queries.Chat(c.Request().Context(), req)
	if err != nil && !st.started {
		return ans, err
	}
	st.finish(ans.Text, err)
	return ans, nil
}

// chatStream relays a chat answer: the model's pieces as they come, then
// whatever of the whole answer they did not hold.
type chatStream struct {
	start   func()                         // writes the response's headers
	send    func(piece string, first bool) // writes one piece
	started bool
	sent    strings.Builder
	pieces  int
}

// piece relays one piece of the model's answer.
func (s *chatStream) piece(p string) {
	if s.sent.Len() == 0 {
		p = strings.TrimLeft(p, " \t\r\n") // the answer is trimmed
		if p == "" {
			return
		}
	}
	if !s.started {
		s.start()
		s.started = true
	}
	s.send(p, s.pieces == 0)
	s.pieces++
	s.sent.WriteString(p)
}

// finish sends what the whole answer holds past what was streamed (all
// of it when nothing was); a failure after the stream began is said in
// the stream, the status being sent.
func (s *chatStream) finish(text string, err error) {
	if !s.started {
		s.start()
		s.started = true
	}
	rest := text
	switch sent := s.sent.String(); {
	case err != nil:
		rest = "\n\n(" + extract.MessageOf(err) + ")"
	case sent == "":
	case strings.HasPrefix(text, sent):
		rest = text[len(sent):]
	case strings.HasPrefix(sent, text):
		rest = ""
	default:
		// The model's answer broke off and another took its place.
		rest = "\n\n" + text
	}
	for _, p := range pieces(rest) {
		s.send(p, s.pieces == 0)
		s.pieces++
	}
}

// ollamaChat answers Ollama's POST /api/chat; a streamed reply relays a
// model's answer as openAIChat does.
func (h *Handler) ollamaChat(c echo.Context) error {
	start := time.Now()
	body, req, err := readChat(c)
	if err != nil {
		return err
	}
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type reply struct {
		Model         string  `json:"model"`
		CreatedAt     string  `json:"created_at"`
		Message       message `json:"message"`
		Done          bool    `json:"done"`
		DoneReason    string  `json:"done_reason,omitempty"`
		TotalDuration int64   `json:"total_duration,omitempty"`
		PromptCount   int     `json:"prompt_eval_count,omitempty"`
		EvalCount     int     `json:"eval_count,omitempty"`
	}
	now := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	final := reply{Model: body.Model, Message: message{Role: "assistant"}, Done: true, DoneReason: "stop"}
	if body.Stream != nil && !*body.Stream {
		ans, err := h.appOf(c).Queries.Chat(c.Request().Context(), req)
		if err != nil {
			return err
		}
		final.CreatedAt, final.Message.Content = now(), ans.Text
		u := usageOf(req, ans.Text)
		final.TotalDuration, final.PromptCount, final.EvalCount = time.Since(start).Nanoseconds(), u.PromptTokens, u.CompletionTokens
		return c.JSON(http.StatusOK, final)
	}
	w := c.Response()
	enc := json.NewEncoder(w)
	st := &chatStream{start: func() {
		w.Header().Set(echo.HeaderContentType, "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
	}, send: func(p string, _ bool) {
		_ = enc.Encode(reply{Model: body.Model, CreatedAt: now(), Message: message{Role: "assistant", Content: p}})
		w.Flush()
	}}
	ans, err := h.relayChat(c, req, st)
	if err != nil {
		return err
	}
	u := usageOf(req, ans.Text)
	final.CreatedAt, final.TotalDuration, final.PromptCount, final.EvalCount = now(), time.Since(start).Nanoseconds(), u.PromptTokens, u.CompletionTokens
	_ = enc.Encode(final)
	w.Flush()
	return nil
}

// ollamaTags answers Ollama's GET /api/tags: the finished versions.
func (h *Handler) ollamaTags(c echo.Context) error {
	models, err := h.appOf(c).Queries.ChatModels(c.Request().Context())
	if err != nil {
		return err
	}
	type details struct {
		Format            string `json:"format"`
		Family            string `json:"family"`
		ParameterSize     string `json:"parameter_size"`
		QuantizationLevel string `json:"quantization_level"`
	}
	type model struct {
		Name       string  `json:"name"`
		Model      string  `json:"model"`
		ModifiedAt string  `json:"modified_at"`
		Size       int64   `json:"size"`
		Digest     string  `json:"digest"`
		Details    details `json:"details"`
	}
	out := struct {
		Models []model `json:"models"`
	}{Models: []model{}}
	for _, v := range models {
		when := v.CreatedAt
		if v.FinishedAt != nil {
			when = *v.FinishedAt
		}
		sum := sha256.Sum256(fmt.Appendf(nil, "%s %d", v.Label(), v.ID))
		out.Models = append(out.Models, model{Name: v.Label(), Model: v.Label(), ModifiedAt: when.UTC().Format(time.RFC3339Nano),
			Digest: hex.EncodeToString(sum[:]), Details: details{Format: "kgstudio", Family: string(v.Config.Strategy)}})
	}
	return c.JSON(http.StatusOK, out)
}

// ollamaVersion answers Ollama's GET /api/version.
func (h *Handler) ollamaVersion(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"version": chatVersion})
}

// openAIModel answers GET /v1/models/{id}: the finished version the id
// names, as a model.
func (h *Handler) openAIModel(c echo.Context) error {
	v, err := h.appOf(c).Queries.ChatModel(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"id": c.Param("id"), "object": "model", "created": v.CreatedAt.Unix(), "owned_by": "kgstudio"})
}

// ollamaShow answers Ollama's POST /api/show {"model": NAME}: what the
// model is (the version, its strategy and size) and what it can do.
func (h *Handler) ollamaShow(c echo.Context) error {
	var body struct {
		Model string `json:"model"`
		Name  string `json:"name"` // older clients
	}
	if err := json.NewDecoder(c.Request().Body).Decode(&body); err != nil {
		return extract.Errorf(extract.KindInvalid, "the body must be JSON naming a model: %v", err)
	}
	v, err := h.appOf(c).Queries.ChatModel(c.Request().Context(), cmp.Or(body.Model, body.Name))
	if err != nil {
		return err
	}
	when := v.CreatedAt
	if v.FinishedAt != nil {
		when = *v.FinishedAt
	}
	return c.JSON(http.StatusOK, map[string]any{
		"modelfile":  "# kgstudio extraction " + v.Label(),
		"parameters": "",
		"template":   "{{ .Prompt }}",
		"details": map[string]any{"format": "kgstudio", "family": string(v.Config.Strategy), "families": []string{string(v.Config.Strategy)},
			"parameter_size": "", "quantization_level": ""},
		"model_info": map[string]any{"general.architecture": "kgstudio", "kgstudio.version": v.Label(),
			"kgstudio.nodes": v.Nodes, "kgstudio.edges": v.Edges, "kgstudio.context_length": 32768},
		"capabilities": []string{"completion"},
		"modified_at":  when.UTC().Format(time.RFC3339Nano),
	})
}

// ollamaPS answers Ollama's GET /api/ps: no model is held in memory the
// way Ollama loads one, so the list is empty.
func (h *Handler) ollamaPS(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"models": []any{}})
}

// openAIModels answers GET /v1/models: the finished versions.
func (h *Handler) openAIModels(c echo.Context) error {
	models, err := h.appOf(c).Queries.ChatModels(c.Request().Context())
	if err != nil {
		return err
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, v := range models {
		out.Data = append(out.Data, model{ID: v.Label(), Object: "model", Created: v.CreatedAt.Unix(), OwnedBy: "kgstudio"})
	}
	return c.JSON(http.StatusOK, out)
}
