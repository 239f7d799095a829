package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/eval"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/extract/query"
)

// evalEmbedder is the embedder an offline evaluation ranks with.
func evalEmbedder(name string) (extract.Embedder, error) {
	switch extract.EmbedderName(name) {
	case "", extract.EmbedderUSELite:
		return embed.USELite{}, nil
	case extract.EmbedderOffline:
		return embed.Offline{}, nil
	case extract.EmbedderGemini, extract.EmbedderOpenAI:
		// A provider's: not offline.
	}
	return nil, fmt.Errorf("eval: embedder %q cannot be used offline (use use-lite or offline)", name)
}

// evalModes is every query mode, or the one named.
func evalModes(mode string) ([]query.Mode, error) {
	if mode == "" {
		return query.Modes, nil
	}
	m, err := query.ParseMode(mode)
	if err != nil {
		return nil, err
	}
	return []query.Mode{m}, nil
}

// evalMultiHop scores passage recall@2 and @5 of the query modes on a
// multi-hop question set over its passage corpus, each passage its own
// chunk, extracted offline, with BM25 over the same passages beside them.
func evalMultiHop(ctx context.Context, questionsFile, corpusFile, mode, embedder string, asJSON bool, stdout io.Writer) error {
	modes, err := evalModes(mode)
	if err != nil {
		return err
	}
	emb, err := evalEmbedder(embedder)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(questionsFile)
	if err != nil {
		return err
	}
	questions, err := eval.ReadMultiHop(data)
	if err != nil {
		return fmt.Errorf("%s: %w", questionsFile, err)
	}
	f, err := os.Open(corpusFile)
	if err != nil {
		return err
	}
	passages, err := extract.ReadCorpus(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", corpusFile, err)
	}
	ex, err := nlp.New(nlp.Options{})
	if err != nil {
		return err
	}
	start := time.Now()
	rep, err := eval.MultiHop(ctx, questions, passages, ex, emb, extract.Names(modes))
	if err != nil {
		return err
	}
	if asJSON {
		return printIndented(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s (multihop): %d questions over %d passages, graph %d nodes / %d edges, embedder %s, %.1f s\n",
		questionsFile, rep.Questions, rep.Passages, rep.Nodes, rep.Edges, rep.Embedder, time.Since(start).Seconds())
	if rep.Unmatched > 0 {
		fmt.Fprintf(stdout, "%d gold passages are not in the corpus (counted as missed)\n", rep.Unmatched)
	}
	fmt.Fprintf(stdout, "  %-7s %8s %8s\n", "mode", "R@2", "R@5")
	for _, m := range append([]string{eval.BM25Baseline}, extract.Names(modes)...) {
		fmt.Fprintf(stdout, "  %-7s %8.3f %8.3f\n", m, rep.RecallAt2[m], rep.RecallAt5[m])
	}
	return nil
}

// printIndented writes v as indented JSON (the --json output of eval).
func printIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
