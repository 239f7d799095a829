// Package tuple is the LightRAG-style open extraction strategy: the model
// lists entities and relations as delimited lines, optionally continues in
// further "gleaning" rounds of the same conversation, and long piles of
// description fragments are merged by a summary call.
//
// Choices: relations are undirected (edges are stored with Source <=
// Target and the label "related"; the meaning is in Keywords and
// Description); repeated descriptions within a chunk are joined with
// newlines (see Fragments); relation endpoints without an entity line
// become nodes of type "unknown" marked Properties["implicit"]. Every node
// and edge records in Properties["round"] the round that first produced it.
package tuple

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// Options tune an Extractor beyond extract.Config.
type Options struct {
	// SummaryMaxTokens bounds merged descriptions, in tokens (default 200,
	// some 150 English words).
	SummaryMaxTokens int
}

// Extractor runs the tuple strategy on chunks. It is safe for concurrent
// use.
type Extractor struct {
	client   llm.Client
	cfg      extract.Config
	opts     Options
	prompts  *Prompts
	types    string
	typeList []string // the same, one by one: answers take their spelling
	lang     string
	// domain is the run's domain graph (see WithDomain), nil without one.
	domain *extract.Domain
}

// WithDomain returns a copy of x whose first user message lists the
// domain graph's entities a chunk names (at most extract.MaxDomainList),
// with their types, for the model to use, as KAG gives its NER step the
// external graph's entities.
func (x *Extractor) WithDomain(d *extract.Domain) extract.Extractor {
	c := *x
	c.domain = d
	return &c
}

var _ extract.DomainAware = (*Extractor)(nil)

// New builds an Extractor. cfg.Prompts may override any tuple_* template;
// cfg.EntityTypes defaults to DefaultEntityTypes and cfg.Language to the
// language of each text (Chinese for Chinese text, DefaultLanguage
// otherwise); cfg.MaxGleaning is the number of continue rounds
// (negative means none); cfg.MaxFragments is the summary threshold (default
// 8). Templates that do not parse give a KindInvalid error.
func New(client llm.Client, cfg extract.Config, opts Options) (*Extractor, error) {
	if client == nil {
		return nil, extract.Errorf(extract.KindInvalid, "tuple: a model client is required")
	}
	p, err := ParsePrompts(cfg.Prompts)
	if err != nil {
		return nil, err
	}
	if opts.SummaryMaxTokens <= 0 {
		opts.SummaryMaxTokens = defaultSummaryTokens
	}
	if cfg.MaxFragments <= 0 {
		cfg.MaxFragments = 8
	}
	types := cfg.EntityTypes
	if len(types) == 0 {
		types = DefaultEntityTypes
	}
	lang := languageName(cfg.Language)
	return &Extractor{client: client, cfg: cfg, opts: opts, prompts: p, types: strings.Join(types, ", "), typeList: types, lang: lang}, nil
}

// languageName turns a config language (a code or a name) into the name
// written in prompts; empty when the config names none (the text's
// language is then used, see textLanguage).
func languageName(l string) string {
	switch strings.ToLower(strings.TrimSpace(l)) {
	case "":
		return ""
	case "en", "english":
		return DefaultLanguage
	case "zh", "zh-cn", "zh-tw", "cn", "chinese", "中文":
		return "Chinese"
	}
	return l
}

// textLanguage is the output language for a text when the config names
// none: Chinese for Chinese text, DefaultLanguage otherwise.
func textLanguage(text string) string {
	if extract.MostlyHan(text) {
		return "Chinese"
	}
	return DefaultLanguage
}

func (x *Extractor) data(text string) PromptData {
	lang := x.lang
	if lang == "" {
		lang = textLanguage(text)
	}
	return PromptData{TupleDelimiter: TupleDelimiter, CompletionDelimiter: CompletionDelimiter, EntityTypes: x.types,
		Language: lang, InputText: text, MaxTokens: x.opts.SummaryMaxTokens, Known: x.domain.In(text, extract.MaxDomainList)}
}

// Messages returns the opening conversation for a chunk text (system and
// first user message), as sent to the model.
func (x *Extractor) Messages(text string) ([]llm.Message, error) {
	d := x.data(text)
	sys, err := x.prompts.Render(PromptSystem, d)
	if err != nil {
		return nil, err
	}
	user, err := x.prompts.Render(PromptUser, d)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}, nil
}

// ContinuePrompt is the user message of a gleaning round.
func (x *Extractor) ContinuePrompt() (string, error) {
	return x.prompts.Render(PromptContinue, x.data(""))
}

// Extract runs one extraction call and up to cfg.MaxGleaning continue
// rounds on chunk. Each call's record is kept in Calls (Purpose "extract",
// "glean-1", ...); lines that could not be parsed are in Failures with their
// round. Gleaning stops early when a round adds nothing. Model failures are
// returned as errors (KindUnavailable or KindInvalid); malformed output is
// never an error.
func (x *Extractor) Extract(ctx context.Context, doc extract.Document, chunk extract.Chunk) (extract.ChunkResult, error) {
	start := time.Now()
	res := extract.ChunkResult{Chunk: chunk.Ref()}
	if strings.TrimSpace(chunk.Text) == "" {
		res.Elapsed = time.Since(start)
		return res, nil
	}
	msgs, err := x.Messages(chunk.Text)
	if err != nil {
		return res, err
	}
	cont, err := x.prompts.Render(PromptContinue, x.data(chunk.Text))
	if err != nil {
		return res, err
	}
	c := newCollector(x.typeList)
	for round := 0; round <= max(0, x.cfg.MaxGleaning); round++ {
		purpose := "extract"
		if round > 0 {
			purpose = fmt.Sprintf("glean-%d", round)
		}
		resp, err := x.client.Complete(ctx, llm.Request{Messages: msgs, Temperature: x.cfg.Temperature, Purpose: purpose})
		if err != nil {
			return res, fmt.Errorf("tuple %s of chunk %d: %w", purpose, chunk.Index, err)
		}
		resp.Record.Purpose = purpose
		res.Calls = append(res.Calls, resp.Record)
		before := len(c.nodes) + len(c.edges)
		c.parse(resp.Text, round)
		if round > 0 && len(c.nodes)+len(c.edges) == before {
			break
		}
		msgs = append(msgs[:len(msgs):len(msgs)],
			llm.Message{Role: "assistant", Content: resp.Text},
			llm.Message{Role: "user", Content: cont})
	}
	res.Graph = c.graph()
	res.Failures = c.failures
	addMentions(&res.Graph, chunk)
	res.Elapsed = time.Since(start)
	return res, nil
}

// addMentions ties every node and edge to the chunk; a node whose name
// occurs in the chunk gets the byte offsets of its first occurrence.
func addMentions(g *extract.Graph, chunk extract.Chunk) {
	lower := strings.ToLower(chunk.Text)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		m := extract.Mention{DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index}
		if at := strings.Index(chunk.Text, n.Name); at >= 0 {
			m.Start, m.End, m.Text = chunk.Start+at, chunk.Start+at+len(n.Name), n.Name
		} else if at := strings.Index(lower, strings.ToLower(n.Name)); at >= 0 && len(lower) == len(chunk.Text) {
			m.Start, m.End, m.Text = chunk.Start+at, chunk.Start+at+len(n.Name), chunk.Text[at:at+len(n.Name)]
		}
		n.Mentions = append(n.Mentions, m)
	}
	for i := range g.Edges {
		g.Edges[i].Mentions = append(g.Edges[i].Mentions, extract.Mention{DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index})
	}
}

// defaultSummaryTokens is Options.SummaryMaxTokens when unset.
const defaultSummaryTokens = 200

// MergeDescriptions is MergeDescriptionsOf without saying whether name is
// an entity or a relation.
func (x *Extractor) MergeDescriptions(ctx context.Context, name string, fragments []string) (string, extract.CallRecord, error) {
	return x.MergeDescriptionsOf(ctx, "", name, fragments)
}

// MergeDescriptionsOf returns one description for the node or edge called
// name; descType is DescriptionEntity or DescriptionRelation, named in the
// summary prompt. Up to cfg.MaxFragments fragments are joined with newlines
// without a call; more are summarised by the model, and the call's record
// is returned (zero otherwise).
func (x *Extractor) MergeDescriptionsOf(ctx context.Context, descType DescriptionKind, name string, fragments []string) (string, extract.CallRecord, error) {
	frags := dedupe(fragments)
	if len(frags) <= x.cfg.MaxFragments {
		return strings.Join(frags, "\n"), extract.CallRecord{}, nil
	}
	lang := x.lang
	if lang == "" {
		lang = textLanguage(name + " " + strings.Join(frags, " "))
	}
	return summarize(ctx, x.client, x.prompts, PromptData{Language: lang, MaxTokens: x.opts.SummaryMaxTokens,
		DescriptionType: descType, Name: name, Fragments: frags}, x.cfg.Temperature)
}

// Summarize asks client to merge description fragments of the named node
// or edge with the default summary prompt in English. Empty fragments are
// ignored; with none left it returns "" without a call.
func Summarize(ctx context.Context, client llm.Client, name string, fragments []string) (string, error) {
	p, err := ParsePrompts(nil)
	if err != nil {
		return "", err
	}
	s, _, err := summarize(ctx, client, p, PromptData{Language: DefaultLanguage, MaxTokens: defaultSummaryTokens,
		Name: name, Fragments: dedupe(fragments)}, 0)
	return s, err
}

// summarize renders the summary prompt with d and asks client for it.
func summarize(ctx context.Context, client llm.Client, p *Prompts, d PromptData, temp float64) (string, extract.CallRecord, error) {
	if len(d.Fragments) == 0 {
		return "", extract.CallRecord{}, nil
	}
	d.TupleDelimiter, d.CompletionDelimiter = TupleDelimiter, CompletionDelimiter
	text, err := p.Render(PromptSummary, d)
	if err != nil {
		return "", extract.CallRecord{}, err
	}
	resp, err := client.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: text}}, Temperature: temp, Purpose: "summary"})
	if err != nil {
		return "", extract.CallRecord{}, fmt.Errorf("summarize %q: %w", d.Name, err)
	}
	resp.Record.Purpose = "summary"
	out := strings.TrimSpace(resp.Text)
	if out == "" {
		return "", resp.Record, extract.Errorf(extract.KindUnavailable, "summary of %q came back empty", d.Name)
	}
	return out, resp.Record, nil
}

func dedupe(frags []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range frags {
		for _, part := range Fragments(f) {
			if !seen[part] {
				seen[part] = true
				out = append(out, part)
			}
		}
	}
	return out
}

var _ extract.Extractor = (*Extractor)(nil)
