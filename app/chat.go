package app

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
)

// ChatRequest is a chat client's turn (an OpenAI or Ollama chat request):
// the model names the extraction ("NAME" for its latest version, or
// "NAME@V"; an Ollama tag such as ":latest" is ignored), the messages are
// the conversation, the last user message the question. A leading
// "/local", "/global", "/hybrid", "/naive", "/mix" or "/ppr" in the
// question picks the query mode (LightRAG's convention); the earlier
// messages are the history, and system messages add instructions.
type ChatRequest struct {
	Model    string
	Messages []llm.Message
	// ResponseType shapes a model's answer ("Bullet Points"; see
	// QueryInput.ResponseType).
	ResponseType string
	// Stream, when set, receives a model's answer piece by piece as the
	// provider sends it (see QueryInput.Stream); the answer's Text is
	// still whole, and a caller sends what Stream did not.
	Stream func(string)
}

// ChatAnswer is the answer of a chat turn: the text ends with its
// references.
type ChatAnswer struct {
	// Model is the version that answered, NAME@V.
	Model string
	Text  string
	Mode  query.Mode
	// Extractive says no model wrote the answer (see query.Extractive).
	Extractive bool
	Result     QueryResult
}

// MaxChatMessages bounds the messages of one chat request; a long chat
// under it is answered, its oldest turns left out (see boundConversation).
const MaxChatMessages = 100_000

// Chat answers a chat client's turn from the extraction its model names,
// as Ask does (an extractive answer without a provider).
func (q *Queries) Chat(ctx context.Context, req ChatRequest) (ChatAnswer, error) {

	v, err := q.ChatModel(ctx, req.Model)
	if err != nil {
		return ChatAnswer{}, err
	}
	if len(req.Messages) > MaxChatMessages {
		return ChatAnswer{}, extract.Errorf(extract.KindInvalid, "at most %d messages in a request", MaxChatMessages)
	}
	last := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			last = i
			break
		}
	}
	if last < 0 {
		return ChatAnswer{}, extract.Errorf(extract.KindInvalid, "no user message: the last user message is the question")
	}
	mode, question := ChatMode(req.Messages[last].Content)
	if len(question) > MaxQuestion {
		// A chat client's long message (a pasted text, its own request
		// for a title) is read up to the limit, cut at a word.
		cut := strings.LastIndexByte(question[:MaxQuestion], ' ')
		if cut <= 0 {
			cut = MaxQuestion
			for cut > 0 && !utf8.RuneStart(question[cut]) {
				cut--
			}
		}
		question = question[:cut]
	}
	if question == "" {
		return ChatAnswer{}, ErrEmptyQuestion
	}
	var history []llm.Message
	var instructions []string
	for _, m := range req.Messages[:last] {
		switch m.Role {
		case "user", "assistant":
			history = append(history, m)
		case "system":
			instructions = append(instructions, strings.TrimSpace(m.Content))
		}
	}
	in := QueryInput{Question: question, Mode: mode, History: history, UserPrompt: strings.Join(instructions, "\n"), Stream: req.Stream,
		ResponseType: req.ResponseType}
	res, err := q.Ask(ctx, v, in)
	if err != nil {
		return ChatAnswer{}, err
	}
	out := ChatAnswer{Model: v.Label(), Mode: res.Mode, Result: res}
	switch {
	case res.Answer != nil:
		out.Text, out.Extractive = res.Answer.Text, res.Answer.Extractive
	default:
		q.log.
			// The model failed or was not asked: the evidence still answers.
			Info("chat answered from the evidence", "version", v.ID, "note", res.Note)
		out.Text, out.Extractive = res.Note+"\n\n"+query.Extractive(question, res.Context(), 0), true
	}
	out.Text = linkReferences(out.Text, res.Context())
	return out, nil
}

// referenceLine is a line of an answer's references: "- [n] Title".
var referenceLine = regexp.MustCompile(`(?m)^(\s*[-*]\s*\[(\d+)\]\s*)(.+?)\s*$`)

// linkReferences adds to each line of an answer's references the
// document it names, by id and by its page ("- [1] marley.txt (document
// 3, /documents/3)"), so a chat client's reader can open it.
func linkReferences(text string, c query.Context) string {
	i := strings.LastIndex(text, "### References")
	if i < 0 {
		return text
	}
	docs := map[int]int{} // reference number -> document
	for _, r := range c.References() {
		for _, ch := range c.Chunks {
			if len(r.Chunks) > 0 && ch.Ref == r.Chunks[0] {
				docs[r.N] = ch.DocumentID
			}
		}
	}
	tail := referenceLine.ReplaceAllStringFunc(text[i:], func(line string) string {
		m := referenceLine.FindStringSubmatch(line)
		n, _ := strconv.Atoi(m[2])
		id, ok := docs[n]
		if !ok || strings.Contains(m[3], "/documents/") {
			return line
		}
		return fmt.Sprintf("%s%s (document %d, /documents/%d)", m[1], m[3], id, id)
	})
	return text[:i] + tail
}

// ChatMode splits a leading mode prefix ("/mix ...") off a question; the
// mode is empty (the default, mix) when there is none.
func ChatMode(question string) (mode query.Mode, rest string) {
	q := strings.TrimSpace(question)
	if strings.HasPrefix(q, "/") {
		word, after, _ := strings.Cut(q[1:], " ")
		if m, err := query.ParseMode(strings.ToLower(word)); err == nil && word != "" {
			return m, strings.TrimSpace(after)
		}
	}
	return "", q
}

// ChatModel finds the finished version a chat client's model name names:
// NAME (or NAME:latest) is the extraction's newest finished version,
// NAME@V that version when it is finished.
func (q *Queries) ChatModel(ctx context.Context, model string) (record.Version, error) {
	name := strings.TrimSpace(model)
	if name == "" {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "name an extraction as the model: NAME or NAME@V (GET /api/tags lists them)")
	}
	if i := strings.LastIndexByte(name, ':'); i > 0 && !strings.Contains(name[i:], "@") {
		name = name[:i] // an Ollama tag (":latest")
	}
	if !strings.Contains(name, "@") {
		// NAME is its newest finished version, whatever runs after it.
		return q.store.LatestDone(ctx, name)
	}
	v, err := q.versions.ByRef(ctx, name)
	if err != nil {
		return v, err
	}
	if v.Status != record.StatusDone {
		return v, extract.Errorf(extract.KindConflict, "%s is %s: only a finished version answers", v.Label(), v.Status)
	}
	return v, nil
}

// ChatModels lists the finished versions chat clients may name (as
// v.Label(), NAME@V), newest first.
func (q *Queries) ChatModels(ctx context.Context) ([]record.Version, error) {
	exs, err := q.versions.Extractions(ctx, 0)
	if err != nil {
		return nil, err
	}
	var out []record.Version
	for _, ex := range exs {
		for _, v := range ex.Versions {
			if v.Status == record.StatusDone {
				out = append(out, v)
			}
		}
	}
	return out, nil
}
