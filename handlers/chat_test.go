package handlers_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/handlers"
)

// TestChat_OpenAIClient: OpenAI's own Go client asks an extraction through
// POST /v1/chat/completions, whole and streamed; with no provider the
// answer is extractive, cites the passages' documents and ends with its
// references, and the stream carries the same text.
func TestChat_OpenAIClient(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)
	client := openai.NewClient(option.WithBaseURL(a.Server.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
	params := openai.ChatCompletionNewParams{
		Model: v.Label(),
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Be brief."),
			openai.UserMessage("Who is Scrooge?"),
			openai.AssistantMessage("A miser of the counting-house."),
			openai.UserMessage("/mix " + partnerQuestion),
		},
	}
	resp, err := client.Chat.Completions.New(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].FinishReason != "stop" || resp.Model != v.Label() {
		t.Fatalf("completion %+v", resp)
	}
	text := resp.Choices[0].Message.Content
	for _, want := range []string{"Extractive answer", "Marley", "[1]", "### References", "- [1] christmas_carol_stave_one.txt (document ", "/documents/"} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer lacks %q:\n%s", want, text)
		}
	}

	stream := client.Chat.Completions.NewStreaming(t.Context(), params)
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		chunks++
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if chunks < 3 || len(acc.Choices) != 1 || acc.Choices[0].Message.Content != text {
		t.Fatalf("%d chunks streamed %q, want the answer in pieces:\n%s", chunks, acc.Choices[0].Message.Content, text)
	}

	// An unknown extraction and a conversation without a question are
	// clear errors.
	bad := params
	bad.Model = "nosuch"
	if _, err := client.Chat.Completions.New(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown model: %v", err)
	}
	bad = params
	bad.Messages = []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("x")}
	if _, err := client.Chat.Completions.New(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("no user message: %v", err)
	}
	models, err := client.Models.List(t.Context())
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != v.Label() {
		t.Fatalf("models %+v (%v)", models, err)
	}
}

// TestChat_Ollama: Open WebUI's Ollama requests: the tags list the finished
// versions, a chat streams newline-delimited JSON ending with done, the
// same text as the unstreamed answer; the version is asked with a tag.
func TestChat_Ollama(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)

	var tags struct {
		Models []struct {
			Name    string `json:"name"`
			Model   string `json:"model"`
			Digest  string `json:"digest"`
			Details struct {
				Family string `json:"family"`
			} `json:"details"`
		} `json:"models"`
	}
	if code := getJSON(t, a, "/api/tags", &tags); code != http.StatusOK {
		t.Fatalf("tags: status %d", code)
	}
	if len(tags.Models) != 1 || tags.Models[0].Name != v.Label() || tags.Models[0].Digest == "" || tags.Models[0].Details.Family != "nlp" {
		t.Fatalf("tags %+v", tags)
	}
	var ver struct{ Version string }
	if code := getJSON(t, a, "/api/version", &ver); code != http.StatusOK {
		t.Fatalf("version: status %d", code)
	}
	if ver.Version == "" {
		t.Fatal("no version")
	}

	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type reply struct {
		Model      string  `json:"model"`
		CreatedAt  string  `json:"created_at"`
		Message    message `json:"message"`
		Done       bool    `json:"done"`
		DoneReason string  `json:"done_reason"`
	}
	body := func(stream string) string {
		return `{"model":"` + v.Label() + `:latest","messages":[{"role":"user","content":"Who is Scrooge?"},` +
			`{"role":"assistant","content":"A miser."},{"role":"user","content":"/naive ` + partnerQuestion + `"}]` + stream + `}`
	}
	resp := post(t, a.Server.URL+"/api/chat", body(`,"stream":false`))
	var whole reply
	if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !whole.Done || whole.DoneReason != "stop" || whole.Message.Role != "assistant" || !strings.Contains(whole.Message.Content, "### References") {
		t.Fatalf("unstreamed reply %+v", whole)
	}

	// Ollama streams unless told not to.
	resp = post(t, a.Server.URL+"/api/chat", body(""))
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") {
		t.Fatalf("content type %q", ct)
	}
	var got strings.Builder
	var last reply
	lines := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("line %d is not JSON: %q", lines, sc.Text())
		}
		if last.CreatedAt == "" || last.Model != v.Label()+":latest" {
			t.Fatalf("line %d: %+v", lines, last)
		}
		got.WriteString(last.Message.Content)
		lines++
	}
	if !last.Done || lines < 3 || got.String() != whole.Message.Content {
		t.Fatalf("%d lines, last %+v, text %q, want %q", lines, last, got.String(), whole.Message.Content)
	}
}

// TestChat_Security: the chat routes take the token beyond loopback and
// refuse another site's writes, as every route does.
func TestChat_Security(t *testing.T) {
	t.Parallel()
	const token = "chat-token-never-shown-1234"
	srv := tokenServer(t, handlers.Config{Token: token})
	body := `{"model":"x","messages":[{"role":"user","content":"q"}]}`
	for _, p := range []string{"/v1/chat/completions", "/api/chat"} {
		if resp := do(t, "POST", srv.URL+p, body, map[string]string{"Content-Type": "application/json"}); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without a token: status %d", p, resp.StatusCode)
		}
		h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + token, "Sec-Fetch-Site": "cross-site"}
		if resp := do(t, "POST", srv.URL+p, body, h); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s from another site: status %d", p, resp.StatusCode)
		}
		delete(h, "Sec-Fetch-Site")
		if resp := do(t, "POST", srv.URL+p, body, h); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s with the token, an unknown model: status %d", p, resp.StatusCode)
		}
	}
	for _, p := range []string{"/api/tags", "/v1/models"} {
		if resp := do(t, "GET", srv.URL+p, "", nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without a token: status %d", p, resp.StatusCode)
		}
	}
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("POST %s: status %d", url, resp.StatusCode)
	}
	return resp
}

// A streamed chat with a model relays the model's answer as it comes: the
// first chunk reaches the client while the provider still holds the rest
// of its answer (the fake waits until the test has read it), for the
// OpenAI and the Ollama API alike, through the openai client library;
// the chunks add up to the answer.
func TestChat_StreamRelaysTheModel(t *testing.T) {
	t.Parallel()
	const answer = "Marley was Scrooge's partner [1].\n\n### References\n- [1] christmas_carol_stave_one.txt"
	gate := make(chan struct{})
	fake := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Anywhere: "Marley", Text: answer}, {Text: "ok"}}, StreamGate: gate})
	a := mustAppConfig(t, app.Providers{OpenAIBaseURL: fake.OpenAIURL(), OpenAIModel: "m"}, handlers.Config{})
	v := mustCarol(t, a)
	client := openai.NewClient(option.WithBaseURL(a.Server.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
	stream := client.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
		Model:    v.Label(),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("/naive " + partnerQuestion)},
	})
	var acc openai.ChatCompletionAccumulator
	first := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		for stream.Next() {
			c := stream.Current()
			acc.AddChunk(c)
			if len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
				select {
				case first <- c.Choices[0].Delta.Content:
				default:
				}
			}
		}
		done <- stream.Err()
	}()
	select {
	case p := <-first:
		if !strings.HasPrefix(answer, p) {
			t.Fatalf("first chunk %q is not the model's first piece", p)
		}
	case err := <-done:
		t.Fatalf("the stream ended (%v) before the model finished", err)
	case <-time.After(time.Minute):
		t.Fatal("no chunk in a minute while the model held its answer")
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The model's words as it wrote them, then the link its reference
	// gets (the document's id and page).
	if got := acc.Choices[0].Message.Content; !strings.HasPrefix(got, answer) || !strings.HasSuffix(got, fmt.Sprintf("(document %d, /documents/%d)", v.DocumentIDs[0], v.DocumentIDs[0])) {
		t.Fatalf("streamed %q, want %q with its reference linked", got, answer)
	}
	streamed := 0
	for _, c := range fake.Calls() {
		if c.Stream {
			streamed++
		}
	}
	if streamed != 1 {
		t.Fatalf("%d streamed calls to the provider, want the answer's", streamed)
	}
}

// The calls an Ollama client makes when it connects (VS Code's provider
// needs a version of 0.6.4 or more and /api/show), then a chat with its
// token counts; OpenAI's models.retrieve through the openai library.
func TestChat_ClientConnectSequence(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)
	get := func(path string, out any) {
		t.Helper()
		resp, err := http.Get(a.Server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	var ver struct{ Version string }
	get("/api/version", &ver)
	var major, minor, patch int
	if _, err := fmt.Sscanf(ver.Version, "%d.%d.%d", &major, &minor, &patch); err != nil || major == 0 && (minor < 6 || minor == 6 && patch < 4) {
		t.Fatalf("version %q, want 0.6.4 or later", ver.Version)
	}
	var tags struct{ Models []struct{ Name string } }
	get("/api/tags", &tags)
	if len(tags.Models) != 1 || tags.Models[0].Name != v.Label() {
		t.Fatalf("tags %+v", tags)
	}
	var show struct {
		Capabilities []string       `json:"capabilities"`
		ModelInfo    map[string]any `json:"model_info"`
	}
	resp := post(t, a.Server.URL+"/api/show", `{"model":"carol:latest"}`)
	if err := json.NewDecoder(resp.Body).Decode(&show); err != nil || len(show.Capabilities) == 0 || show.ModelInfo["kgstudio.version"] != v.Label() {
		t.Fatalf("show %+v (%v)", show, err)
	}
	resp.Body.Close()
	if r, _ := http.Post(a.Server.URL+"/api/show", "application/json", strings.NewReader(`{"model":"nosuch"}`)); r.StatusCode != http.StatusNotFound {
		t.Fatalf("show of an unknown model: %d", r.StatusCode)
	}
	var ps struct{ Models []any }
	get("/api/ps", &ps)
	if ps.Models == nil {
		t.Fatal("ps has no model list")
	}
	var reply struct {
		Message     struct{ Content string }
		Done        bool
		PromptCount int `json:"prompt_eval_count"`
		EvalCount   int `json:"eval_count"`
	}
	resp = post(t, a.Server.URL+"/api/chat", `{"model":"carol","stream":false,"messages":[{"role":"user","content":"`+partnerQuestion+`"}]}`)
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || !reply.Done || reply.PromptCount == 0 || reply.EvalCount == 0 {
		t.Fatalf("chat %+v (%v)", reply, err)
	}
	resp.Body.Close()

	client := openai.NewClient(option.WithBaseURL(a.Server.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
	m, err := client.Models.Get(t.Context(), v.Label())
	if err != nil || m.ID != v.Label() {
		t.Fatalf("models.retrieve: %+v, %v", m, err)
	}
	done, err := client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: v.Label(),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(partnerQuestion)}})
	if err != nil || done.Usage.PromptTokens == 0 || done.Usage.CompletionTokens == 0 {
		t.Fatalf("usage %+v (%v)", done.Usage, err)
	}
}
