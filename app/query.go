package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
)

// MaxQuestion bounds a question's length in bytes.
const MaxQuestion = 2000

// QueryKeywords are a question's keywords.
type QueryKeywords struct {
	High   []string      `json:"high"`
	Low    []string      `json:"low"`
	Source KeywordSource `json:"source"`
}

// QueryAnswer is the model's answer with the references it cites.
type QueryAnswer struct {
	Text     string           `json:"text"`
	Cited    []string         `json:"cited"`
	Provider extract.Provider `json:"provider"`
	Model    string           `json:"model"`
	// Extractive marks an answer built without a model: the sentences of
	// the retrieved passages that best match the question, cited.
	Extractive bool `json:"extractive,omitempty"`
	// Points are the key points a global answer was reduced from (the
	// map step over the ranked reports), and Communities the ids of the
	// communities it cites; both only in global mode with a model.
	Points      []query.GlobalPoint `json:"points,omitempty"`
	Communities []int               `json:"communities,omitempty"`
}

// QueryResult is the answer of the query API.
type QueryResult struct {
	Question string `json:"question"`
	// Provider is the provider asked for an answer ("none": no model).
	Provider extract.Provider `json:"provider"`
	// Mode is the query mode used (one of query.Modes).
	Mode query.Mode `json:"mode"`
	// TopK is the number of items asked of each part.
	TopK int `json:"top_k"`
	// AsOf is the date the graph was asked as of; empty for now.
	AsOf string `json:"as_of,omitempty"`
	// Embedder is the model of the vectors the search used (a split
	// embedder's fallback for a question its model does not serve); empty
	// when the version has none (it ran before the vectorizer) and ranking
	// is lexical.
	Embedder  string           `json:"embedder"`
	Keywords  QueryKeywords    `json:"keywords"`
	Entities  []query.Entity   `json:"entities"`
	Relations []query.Relation `json:"relations"`
	Chunks    []query.ChunkHit `json:"chunks"`
	// FollowUpOf is the earlier question a follow-up was searched with
	// ("Who bought it?" after "What did Babbage design?"), empty for a
	// question read on its own.
	FollowUpOf string `json:"follow_up_of,omitempty"`
	// References are the documents of the chunks, numbered as an answer
	// cites them ([1], [2] ...), each with its chunks' ids.
	References []query.Reference `json:"references"`
	// Reports are the community reports global mode read, best first.
	Reports []query.ReportHit `json:"reports,omitempty"`
	Answer  *QueryAnswer      `json:"answer,omitempty"`
	// Note says why there is no answer (no provider, a failed call).
	Note string `json:"note,omitempty"`

	context query.Context
}

// Context is the retrieved context the answer was asked from.
func (r QueryResult) Context() query.Context { return r.context }

// QueryInput is what a query asks for.
type QueryInput struct {
	Question string
	Provider extract.Provider // "none", "gemini" or "openai"
	// Keywords picks who splits the question into high- and low-level
	// keywords: "model" or "" (the default) asks the model that answers,
	// as LightRAG does before every graph query (a call cached like any
	// other); "offline" splits it into words. Without a model answering
	// (no provider, a GET) the split is offline.
	Keywords KeywordSource
	// Mode is a query mode (query.Modes); empty means mix.
	Mode query.Mode
	// TopK is the number of entities, relations and chunks; zero means
	// query.DefaultTopK.
	TopK int
	// RetrievalOnly makes no model call at all (a GET shows retrieval only;
	// answers, which cost money, need a POST): the answer is extractive.
	RetrievalOnly bool
	// History is the conversation before the question, oldest first
	// (chat clients send it); ResponseType and UserPrompt shape a model's
	// answer (see query.AnswerRequest).
	History      []llm.Message
	ResponseType string
	UserPrompt   string
	// Stream, when set, receives a model's answer piece by piece as the
	// provider sends it (a chat client's streamed reply); the result still
	// holds the whole answer. Offline and global answers are not streamed.
	Stream func(string) `json:"-"`
	// AsOf asks of the graph as it stood then: a date (YYYY-MM-DD, that
	// whole day) or an RFC 3339 time; empty asks of the facts that hold
	// now.
	AsOf string
}

// Queries answers questions over a finished version (its context, and an
// answer when a provider is set) and describes its nodes and vectors.
type Queries struct {
	store       *store.Store
	log         *slog.Logger
	models      *Models
	vectors     *vectorizer
	versions    *Versions
	communities *Communities
	// corpora holds the query corpora of the versions asked last (see
	// corpusOf); indexes their vector indexes (see vectorIndex).
	corpora *lru.Cache[corpusKey, *queryCorpus]
	indexes *lru.Cache[indexKey, *query.VectorIndex]
}

// checked is the input as Ask reads it, its one check: the question
// trimmed and at most MaxQuestion bytes; the provider named, or the first
// configured, or none; a known mode (mix when empty); top_k from 1 to
// query.MaxTopK (query.DefaultTopK when 0); a readable as_of.
func (q *Queries) checked(in QueryInput) (QueryInput, error) {
	in.Question, in.AsOf = strings.TrimSpace(in.Question), strings.TrimSpace(in.AsOf)
	if len(in.Question) > MaxQuestion {
		return in, extract.Errorf(extract.KindInvalid, "the question is longer than %d bytes", MaxQuestion)
	}
	in.Provider = cmp.Or(in.Provider, q.models.providers.Default())
	if !slices.Contains(extract.Providers, in.Provider) {
		return in, extract.Errorf(extract.KindInvalid, "unknown provider %q (use gemini, openai or none)", in.Provider)
	}
	if _, err := ParseAsOf(in.AsOf); err != nil {
		return in, err
	}
	var err error
	if in.Mode, err = query.ParseMode(in.Mode); err != nil {
		return in, err
	}
	if in.TopK < 0 || in.TopK > query.MaxTopK {
		return in, extract.Errorf(extract.KindInvalid, "top_k must be a number from 1 to %d", query.MaxTopK)
	}
	in.TopK = cmp.Or(in.TopK, query.DefaultTopK)
	switch in.Keywords {
	case "", KeywordsModel, KeywordsOffline:
	default:
		return in, extract.Errorf(extract.KindInvalid, "keywords %q: use model or offline", in.Keywords)
	}
	in.ResponseType = strings.TrimSpace(in.ResponseType)
	if len(in.ResponseType) > MaxResponseType {
		return in, extract.Errorf(extract.KindInvalid, "response_type is longer than %d bytes: name a shape (Multiple Paragraphs, Single Paragraph, Bullet Points ...)", MaxResponseType)
	}
	return in, nil
}

// KeywordSource is who splits a question into keywords: the model that
// answers, or the offline splitter (QueryInput.Keywords,
// QueryKeywords.Source).
type KeywordSource string

// The keyword sources.
const (
	KeywordsModel   KeywordSource = "model"
	KeywordsOffline KeywordSource = "offline"
)

// MaxResponseType bounds a query's response_type.
const MaxResponseType = 200

// Ask retrieves the context of a question from a version's graph and,
// with a provider, asks the model to answer from it. It checks the input
// (an invalid error says what is wrong; an empty question is refused with
// ErrEmptyQuestion) and answers with the input as it read it: the
// question trimmed, the provider, mode and top_k it used. The
// conversation before the question and the instructions are bounded
// before any provider sees them (see boundConversation): the oldest turns
// are left out, and the result's note says how many.
func (q *Queries) Ask(ctx context.Context, v record.Version, in QueryInput) (QueryResult, error) {
	if strings.TrimSpace(in.Question) == "" {
		return QueryResult{}, ErrEmptyQuestion
	}
	var dropped int
	in.History, in.UserPrompt, dropped = boundConversation(in.History, in.UserPrompt)
	res, err := q.ask(ctx, v, in)
	if dropped > 0 {
		res.Note = strings.TrimSpace(res.Note + fmt.Sprintf(" The %d oldest messages of the conversation were left out (the model reads the newest %d messages, at most %d KB).", dropped, MaxHistoryMessages, MaxHistoryBytes>>10))
	}
	return res, err
}

// ErrEmptyQuestion is what every way of asking (the API, MCP, the chat
// APIs) answers to a question with nothing in it.
var ErrEmptyQuestion = extract.Errorf(extract.KindInvalid, "the question is empty: ask something")

// Blank checks a query's input as Ask does and answers with it as it was
// read and nothing found: the Ask page before a question is asked.
func (q *Queries) Blank(in QueryInput) (QueryResult, error) {
	in.Question = ""
	in, err := q.checked(in)
	if err != nil {
		return QueryResult{}, err
	}
	return QueryResult{Provider: in.Provider, Mode: in.Mode, TopK: in.TopK, AsOf: in.AsOf,
		Entities: []query.Entity{}, Relations: []query.Relation{}, Chunks: []query.ChunkHit{}}, nil
}

// Bounds of what a question carries to a model besides itself: the
// conversation before it (the newest MaxHistoryMessages messages within
// MaxHistoryBytes) and the instructions (MaxInstructionBytes).
const (
	MaxHistoryMessages  = 32
	MaxHistoryBytes     = 256 << 10
	MaxInstructionBytes = 16 << 10
)

// boundConversation keeps the newest messages of history that fit the
// bounds (one message longer than MaxHistoryBytes alone is cut to it) and
// cuts the instructions to MaxInstructionBytes; dropped counts the
// messages left out.
func boundConversation(history []llm.Message, instructions string) (kept []llm.Message, prompt string, dropped int) {
	size, first := 0, len(history)
	for first > 0 && len(history)-first < MaxHistoryMessages {
		n := len(history[first-1].Content)
		if size+n > MaxHistoryBytes && first < len(history) {
			break
		}
		size += n
		first--
	}
	kept = slices.Clone(history[first:])
	for i := range kept {
		kept[i].Content = extract.Clip(kept[i].Content, MaxHistoryBytes)
	}
	return kept, extract.Clip(instructions, MaxInstructionBytes), first
}

func (q *Queries) ask(ctx context.Context, v record.Version, in QueryInput) (QueryResult, error) {

	in, err := q.checked(in)
	if err != nil {
		return QueryResult{}, err
	}
	res := QueryResult{Question: in.Question, Provider: in.Provider, Mode: in.Mode, TopK: in.TopK, AsOf: in.AsOf,
		Entities: []query.Entity{}, Relations: []query.Relation{}, Chunks: []query.ChunkHit{}}
	cfg := v.Config
	if cfg.Provider != in.Provider {
		cfg.Model = ""
	}
	cfg.Provider = in.Provider
	var llmClient llm.Client
	var model string
	if in.RetrievalOnly && !extract.Offline(in.Provider) {
		res.Note = "Retrieval only: ask with a POST (the Ask button) for the model's answer."
	} else {
		llmClient, model = q.models.queryClient(ctx, cfg, &res)
	}

	// A follow-up ("Who bought it?") is searched with the question it
	// follows, as LightRAG reads a conversation's history; the answer
	// answers the follow-up.
	sin := in
	if prev := followedQuestion(in.Question, in.History); prev != "" {
		sin.Question = prev + "\n" + in.Question
		res.FollowUpOf = prev
	}
	res.Keywords = QueryKeywords{Source: KeywordsOffline}
	res.Keywords.High, res.Keywords.Low = query.Keywords(sin.Question)
	if in.Keywords != KeywordsOffline && llmClient != nil {
		high, low, _, err := query.KeywordsLLM(ctx, llmClient, in.Question)
		if err != nil {
			q.log.
				Warn("query keywords", "version", v.ID, "err", err)
			res.Note = "The model's keywords failed (" + extract.MessageOf(err) + "); offline keywords are used."
		} else {
			res.Keywords = QueryKeywords{High: high, Low: low, Source: KeywordsModel}
		}
	}
	if res.Keywords.High == nil {
		res.Keywords.High = []string{}
	}
	if res.Keywords.Low == nil {
		res.Keywords.Low = []string{}
	}

	qc, err := q.search(ctx, v, sin, res.Keywords, &res)
	if err != nil {
		return res, err
	}
	res.context = qc
	if qc.Entities != nil {
		res.Entities = qc.Entities
	}
	if qc.Relations != nil {
		res.Relations = qc.Relations
	}
	if qc.Chunks != nil {
		res.Chunks = qc.Chunks
	}
	res.References = qc.References()
	if res.References == nil {
		res.References = []query.Reference{}
	}
	if llmClient == nil {
		// Offline, an answer is quoted from the evidence.
		text := query.Extractive(sin.Question, qc, 0)
		res.Answer = &QueryAnswer{Text: text, Cited: qc.Cited(text), Provider: extract.ProviderNone, Model: "extractive", Extractive: true}
		if res.Answer.Cited == nil {
			res.Answer.Cited = []string{}
		}
		return res, nil
	}
	areq := query.AnswerRequest{Question: in.Question, History: in.History, ResponseType: in.ResponseType, UserPrompt: in.UserPrompt, Mode: res.Mode}
	if res.Mode == query.ModeGlobal && len(res.Reports) > 0 {
		// GraphRAG's map-reduce over the ranked reports.
		ga, err := query.GlobalAnswer(ctx, llmClient, areq, res.Reports)
		if err != nil {
			q.log.
				Warn("global answer", "version", v.ID, "err", err)
			res.Note = "The model did not answer: " + extract.MessageOf(err)
			return res, nil
		}
		if ga.Unreadable > 0 {
			res.Note = fmt.Sprintf("%d of the model's key-point answers could not be read; their reports were left out.", ga.Unreadable)
		}
		res.Answer = &QueryAnswer{Text: ga.Text, Cited: citedChunks(qc, res.Reports, ga.Cited), Provider: in.Provider, Model: model,
			Points: ga.Points, Communities: ga.Cited}
		return res, nil
	}
	if qc.Empty() {
		// LightRAG's fail response, without a call.
		res.Note = "Nothing in the graph matches the question, so the model was not asked."
		res.Answer = &QueryAnswer{Text: query.FailResponse(in.Question), Cited: []string{}, Provider: in.Provider, Model: model}
		return res, nil
	}
	actx := ctx
	if in.Stream != nil {
		// Only the answer streams, not the keyword calls before it.
		actx = llm.WithStream(ctx, in.Stream)
	}
	text, _, err := query.Answer(actx, llmClient, areq, qc)
	if err != nil {
		q.log.
			Warn("query answer", "version", v.ID, "err", err)
		res.Note = "The model did not answer: " + extract.MessageOf(err)
		return res, nil
	}
	res.Answer = &QueryAnswer{Text: text, Cited: qc.Cited(text), Provider: in.Provider, Model: model}
	if res.Answer.Cited == nil {
		res.Answer.Cited = []string{}
	}
	return res, nil
}

// citedChunks lists the references (C1, ...) of the context's passages
// that the cited communities' report findings point at, in the order
// they rank; never nil.
func citedChunks(qc query.Context, reports []query.ReportHit, cited []int) []string {
	in := map[extract.ChunkRef]bool{}
	for _, r := range reports {
		if slices.Contains(cited, r.Community) {
			for _, f := range r.Findings {
				for _, ref := range f.Chunks {
					in[ref] = true
				}
			}
		}
	}
	out := []string{}
	for _, ch := range qc.Chunks {
		if in[extract.ChunkRef{DocumentID: ch.DocumentID, Index: ch.Index}] {
			out = append(out, ch.Ref)
		}
	}
	return out
}

// search is the retrieval half of a query: it ranks the version's
// chunks, entities and relations in the input's mode over the version's
// query corpus (built once per finished version, see corpusOf). It
// changes nothing and calls no chat model (only the embedder, for the
// question).
func (q *Queries) search(ctx context.Context, v record.Version, in QueryInput, kw QueryKeywords, res *QueryResult) (query.Context, error) {
	asOf, err := ParseAsOf(in.AsOf)
	if err != nil {
		return query.Context{}, err
	}
	var qc *queryCorpus
	if asOf.IsZero() {
		qc, err = q.corpusOf(ctx, v, in.Question)
	} else {
		qc, err = q.buildCorpus(ctx, v, asOf) // not cached: one per date
	}
	if err != nil {
		return query.Context{}, err
	}
	if in.Mode == query.ModeGlobal {
		if err := qc.communities(ctx); err != nil {
			return query.Context{}, err
		}
	}
	var emb extract.Embedder
	if qc.stats != nil {
		cfg := v.Config
		cfg.Embedder = qc.stats.Embedder
		if emb, err = q.models.embedder(ctx, cfg); err != nil {
			return query.Context{}, err
		}
		res.Embedder = qc.stats.Model
		if se, ok := emb.(extract.SplitEmbedder); ok && !se.Serves(in.Question) {
			// Searched among the fallback's vectors (see query.Search).
			res.Embedder = se.Fallback().Model()
		}
	}
	// A GET spends nothing: a provider's vectors of the question are
	// taken from the embedding cache (a question asked before) or the
	// search goes without vectors.
	if in.RetrievalOnly && emb != nil && extract.PaidEmbedder(qc.stats.Embedder) {
		emb = embed.CacheOnly(emb, q.store)
	}
	// Spans of time in the question are read against as_of, else against
	// the newest dated chunk (the conversation's last day).
	req := query.Request{Question: in.Question, Mode: in.Mode, High: kw.High, Low: kw.Low, TopK: in.TopK, Now: asOf}
	out, err := qc.corpus.Search(ctx, emb, req)
	if errors.Is(err, embed.ErrNotCached) {
		out, err = qc.corpus.Search(ctx, nil, req)
		res.Embedder = ""
		res.Note = strings.TrimSpace(res.Note + " Ranked without vectors: the question was never embedded, and a GET makes no paid embedding call (ask with a POST to rank by meaning too).")
	}
	if err != nil {
		return out, err
	}
	for i := range out.Chunks {
		out.Chunks[i].Document = qc.titles[out.Chunks[i].DocumentID]
	}
	if in.Mode == query.ModeGlobal {
		// The reports the communities' ranking read (a GET ranks them
		// without vectors when the question was never embedded).
		n := min(in.TopK, query.MaxGlobalReports)
		res.Reports, err = qc.corpus.GlobalReports(ctx, emb, in.Question, n)
		if errors.Is(err, embed.ErrNotCached) {
			res.Reports, err = qc.corpus.GlobalReports(ctx, nil, in.Question, n)
		}
	}
	return out, err
}

// warmEncoder embeds the question first when the version's vectors (st)
// are the sentence encoder's: loading the encoder (a transient of some
// 30 MB) then happens before the version's corpus is read, not on top of
// it, and the search finds the question's vector in the encoder's cache.
// A failure is the search's to report.
func (q *Queries) warmEncoder(ctx context.Context, v record.Version, st record.VectorStats, question string) {
	if st.Embedder != extract.EmbedderUSELite {
		return
	}
	cfg := v.Config
	cfg.Embedder = st.Embedder
	if emb, err := q.models.embedder(ctx, cfg); err == nil {
		_, _, _ = emb.Embed(ctx, []string{question})
	}
}

// queryClient builds the model client of the picked provider; without one
// (or when it is not configured) it notes why and returns nil.
func (m *Models) queryClient(ctx context.Context, cfg extract.Config, res *QueryResult) (llm.Client, string) {
	if extract.Offline(cfg.Provider) {
		if len(m.providers.Configured()) == 0 {
			res.Note = "No model provider is configured (set GEMINI_API_KEY or OPENAI_BASE_URL): the answer is quoted from the retrieved passages."
		} else {
			res.Note = "Provider none: the answer is quoted from the retrieved passages."
		}
		return nil, ""
	}
	client, model, err := m.client(ctx, cfg)
	if err != nil {
		res.Note = "No answer: " + extract.MessageOf(err)
		return nil, ""
	}
	return client, model
}

// ParseAsOf reads an as-of date: empty for now, a date (YYYY-MM-DD, read
// as the end of that day) or an RFC 3339 time. Anything else is an
// invalid error.
func ParseAsOf(s string) (time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return time.Time{}, nil
	}
	t, ok := extract.ParseFactTime(s, true)
	if !ok {
		return time.Time{}, extract.Errorf(extract.KindInvalid, "as-of date %q is not a date (YYYY-MM-DD) or an RFC 3339 time (2023-05-01T10:00:00Z; in a URL write + as %%2B)", extract.Clip(s, 40))
	}
	return t, nil
}

// followedQuestion returns the user's previous question when question
// reads as a follow-up of it: it refers back ("it", "he", "there", "that
// one" ...) and names nothing of its own (no capitalised word past its
// first). Empty otherwise, or without a previous question.
func followedQuestion(question string, history []llm.Message) string {
	prev := ""
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == "user" && strings.TrimSpace(history[i].Content) != "" {
			prev = strings.TrimSpace(history[i].Content)
			break
		}
	}
	if prev == "" {
		return ""
	}
	words := strings.FieldsFunc(question, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	refers := false
	for i, w := range words {
		if i > 0 && unicode.IsUpper([]rune(w)[0]) && w != "I" {
			return "" // names something of its own
		}
		if anaphors[strings.ToLower(w)] {
			refers = true
		}
	}
	if !refers {
		return ""
	}
	return extract.Clip(prev, maxFollowedBytes)
}

// maxFollowedBytes bounds the earlier question a follow-up is searched
// with.
const maxFollowedBytes = 2000

// anaphors are the words a follow-up refers back with.
var anaphors = map[string]bool{"it": true, "its": true, "it's": true, "he": true, "him": true, "his": true, "she": true,
	"her": true, "hers": true, "they": true, "them": true, "their": true, "theirs": true, "this": true, "that": true,
	"these": true, "those": true, "there": true, "then": true, "one": true}
