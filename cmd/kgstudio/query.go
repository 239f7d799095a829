package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/query"
)

// cmdQuery asks a version a question: kgstudio query NAME@V QUESTION.
func cmdQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("query", stderr)
	mode := fs.String("mode", string(query.ModeMix), strings.Join(query.ModeNames(), ", ")+" (ppr: a walk from the entities the question names, for questions that link them)")
	topK := fs.Int("top-k", query.DefaultTopK, "entities, relations and chunks to retrieve")
	provider := fs.String("provider", string(extract.ProviderNone), "answer with gemini or openai; none quotes the best sentences (an extractive answer)")
	answerOnly := fs.Bool("answer", false, "print only the answer (a model's, or extractive without a provider) with its references")
	asJSON := fs.Bool("json", false, "print the result as JSON (the same as GET /api/versions/ID/query)")
	keywords := fs.String("keywords", "", "who splits the question into keywords: model (the default when --provider answers, as LightRAG) or offline")
	responseType := fs.String("response-type", "", "the shape of a model's answer, as LightRAG's response_type: Multiple Paragraphs (the default), Single Paragraph, Bullet Points ...")
	asOf := fs.String("as-of", "", "ask of the graph as it stood on DATE (YYYY-MM-DD or RFC 3339); default: the facts that hold now")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if len(pos) < 2 {
		return errors.New("usage: kgstudio query NAME@V QUESTION [--mode M] [--top-k N] [--as-of DATE] [--answer] [--json]")
	}
	if *topK < 1 || *topK > query.MaxTopK {
		return fmt.Errorf("--top-k must be a number from 1 to %d", query.MaxTopK)
	}
	ap, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer ap.Close()
	v, err := cfg.versionByRef(ctx, ap, pos[0])
	if err != nil {
		return err
	}
	question := strings.Join(pos[1:], " ")
	if strings.TrimSpace(question) == "" {
		return errors.New("query: a question is required after NAME@V")
	}
	res, err := ap.Queries.Ask(ctx, v, app.QueryInput{Question: question, Provider: extract.Provider(*provider), Mode: query.Mode(*mode), TopK: *topK, AsOf: *asOf,
		ResponseType: *responseType, Keywords: app.KeywordSource(*keywords)})
	if err != nil {
		return err
	}
	if *answerOnly && !*asJSON {
		if res.Answer == nil {
			return errors.New("query: no answer: " + res.Note)
		}
		if res.Note != "" {
			// Why the answer is not the model's (no provider configured).
			fmt.Fprintln(stderr, "note:", res.Note)
		}
		fmt.Fprintln(stdout, res.Answer.Text)
		return nil
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(stdout, "mode %s, top %d, keywords: high %v, low %v\n", res.Mode, res.TopK, res.Keywords.High, res.Keywords.Low)
	if res.AsOf != "" {
		fmt.Fprintf(stdout, "as of %s\n", res.AsOf)
	}
	for _, e := range res.Entities {
		fmt.Fprintf(stdout, "[%s] %s (%s) %.2f\n", e.Ref, e.Name, e.Type, e.Score)
	}
	for _, r := range res.Relations {
		fmt.Fprintf(stdout, "[%s] %s -%s-> %s %.2f\n", r.Ref, r.Source, r.Label, r.Target, r.Score)
	}
	for _, c := range res.Chunks {
		text := strings.Join(strings.Fields(c.Text), " ")
		if r := []rune(text); len(r) > 160 {
			text = string(r[:160]) + "…"
		}
		fmt.Fprintf(stdout, "[%s] %s, chunk %d (%.2f): %s\n", c.Ref, c.Document, c.Index, c.Score, text)
	}
	if res.Answer != nil {
		fmt.Fprintf(stdout, "\n%s\n", res.Answer.Text)
	} else if res.Note != "" {
		fmt.Fprintln(stdout, res.Note)
	}
	return nil
}
