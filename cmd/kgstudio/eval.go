package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/extract/query"
)

// evalLoCoMo scores evidence recall@k of the query modes on a LoCoMo
// conversation, with BM25 over the same chunks beside them, offline.
func evalLoCoMo(ctx context.Context, file, mode, embedder string, k int, asJSON bool, stdout io.Writer) error {
	modes, data, err := locomoInput(file, mode, k)
	if err != nil {
		return err
	}
	emb, err := evalEmbedder(embedder)
	if err != nil {
		return err
	}
	rep, err := eval.LoCoMo(ctx, data, emb, extract.Names(modes), k)
	if err != nil {
		return err
	}
	if asJSON {
		return printIndented(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s (locomo): %s, %d turns in %d chunks, graph %d nodes / %d edges, %d questions, embedder %s\n",
		file, rep.Title, rep.Turns, rep.Chunks, rep.Nodes, rep.Edges, rep.Questions, rep.Embedder)
	fmt.Fprintf(stdout, "evidence recall@%d:\n", k)
	for _, m := range append([]string{eval.BM25Baseline}, extract.Names(modes)...) {
		fmt.Fprintf(stdout, "  %-7s %.3f (%d of %d)\n", m, rep.Recall[m], rep.Found[m], rep.Questions)
	}
	return nil
}

// locomoInput checks a LoCoMo evaluation's mode and depth and reads its
// file.
func locomoInput(file, mode string, k int) ([]query.Mode, []byte, error) {
	modes, err := evalModes(mode)
	if err != nil {
		return nil, nil, err
	}
	if k < 1 || k > query.MaxTopK {
		return nil, nil, fmt.Errorf("--top-k must be a number from 1 to %d", query.MaxTopK)
	}
	data, err := os.ReadFile(file)
	return modes, data, err
}

// evalLoCoMoVersion scores a stored version (a LoCoMo conversation run as
// a dialogue) on the conversation's questions with the scoreboard's
// scorer (app.Scores.EvidenceRecall): what the extraction's scoreboard
// shows as recall@k once the file is its question set.
func evalLoCoMoVersion(ctx context.Context, cfg *Config, file, ref, mode string, k int, asJSON bool, stdout, stderr io.Writer) error {
	modes, data, err := locomoInput(file, mode, k)
	if err != nil {
		return err
	}
	set, err := eval.ReadQuestions(filepath.Base(file), data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	a, v, err := cfg.openVersion(ctx, ref, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	recall, found, n, err := a.Scores.EvidenceRecall(ctx, v, set, modes, k)
	if err != nil {
		return err
	}
	if asJSON {
		return printIndented(stdout, map[string]any{"version": v.Label(), "questions": n, "k": k, "recall": recall, "found": found})
	}
	fmt.Fprintf(stdout, "%s (locomo) on %s: %d questions\nevidence recall@%d:\n", file, v.Label(), n, k)
	for _, m := range modes {
		fmt.Fprintf(stdout, "  %-7s %.3f (%d of %d)\n", m, recall[m], found[m], n)
	}
	return nil
}

// cmdEval extracts every entry of a gold file in memory and scores the
// graphs against the gold. The offline strategy uses no database; the
// tuple and schema strategies ask the configured provider, through the
// store's call cache, so a second evaluation costs nothing.
func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("eval", stderr)
	format := fs.String("format", "", "file format: webnlg, docred, locomo, multihop or longmemeval")
	strategy := fs.String("strategy", string(extract.StrategyNLP), "extraction strategy: nlp, tuple or schema")
	provider := fs.String("provider", "", "gemini or openai (tuple and schema)")
	model := fs.String("model", "", "model name (default per provider)")
	schemaRef := fs.String("schema", "", "schema NAME[@VERSION] for the schema strategy (default: the built-in one)")
	limit := fs.Int("limit", 0, "score only the first N entries")
	relations := fs.String("relations", "", "DocRED rel_info.json naming the relation codes")
	ec := extract.DefaultConfig()
	fs.IntVar(&ec.ChunkSize, "chunk-size", ec.ChunkSize, "chunk length in characters")
	fs.IntVar(&ec.Overlap, "overlap", ec.Overlap, "overlap window in characters")
	fs.IntVar(&ec.Concurrency, "concurrency", ec.Concurrency, "entries extracted at once (tuple and schema)")
	fs.IntVar(&ec.MaxGleaning, "max-gleaning", ec.MaxGleaning, "continue-extraction rounds (tuple strategy)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	mode := fs.String("mode", "", "locomo, multihop, longmemeval: one query mode (default: all)")
	topK := fs.Int("top-k", query.DefaultTopK, "locomo: chunks counted per question")
	corpus := fs.String("corpus", "", "multihop: the passages, a JSON list of {title, text} or an object title -> [sentences]")
	embedder := fs.String("embedder", string(app.DefaultEmbedder), "locomo, multihop, longmemeval: the offline embedder to rank with (use-lite or offline)")
	distractors := fs.Int("distractors", eval.DefaultDistractors, "longmemeval: other questions' sessions added to each haystack")
	version := fs.String("version", "", "locomo: score this stored version (the conversation uploaded and extracted as a dialogue) with the scoreboard's scorer, instead of extracting the file in memory")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *format == "multihop" {
		if len(files) != 1 || *corpus == "" {
			return errors.New("usage: kgstudio eval --format multihop QUESTIONS.json --corpus CORPUS.json [--mode M] [--embedder E] [--json]")
		}
		return evalMultiHop(ctx, files[0], *corpus, *mode, *embedder, *asJSON, stdout)
	}
	if *format == "longmemeval" {
		if len(files) != 1 {
			return errors.New("usage: kgstudio eval --format longmemeval FILE [--distractors N] [--limit N] [--mode M] [--json]")
		}
		return evalLongMemEval(ctx, files[0], *mode, *embedder, *distractors, *limit, *asJSON, stdout)
	}
	if *format == "locomo" {
		if len(files) != 1 {
			return errors.New("usage: kgstudio eval --format locomo FILE [--version NAME@V] [--mode M] [--top-k N] [--json]")
		}
		if *version != "" {
			return evalLoCoMoVersion(ctx, cfg, files[0], *version, *mode, *topK, *asJSON, stdout, stderr)
		}
		return evalLoCoMo(ctx, files[0], *mode, *embedder, *topK, *asJSON, stdout)
	}
	if len(files) != 1 {
		return errors.New("usage: kgstudio eval --format webnlg|docred|locomo|multihop|longmemeval FILE [--strategy nlp|tuple|schema] [--provider P] [--limit N] [--json]")
	}
	switch extract.Strategy(*strategy) {
	case extract.StrategyNLP, extract.StrategyTuple, extract.StrategySchema:
	default:
		return fmt.Errorf("eval: strategy %q cannot be evaluated; use nlp, tuple or schema", *strategy)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return err
	}
	var rel []byte
	if *relations != "" {
		if rel, err = os.ReadFile(*relations); err != nil {
			return err
		}
	}
	entries, err := app.ReadGold(app.GoldFormat(*format), data, rel, *limit)
	if err != nil {
		return err
	}
	var ex extract.Extractor
	workers := runtime.GOMAXPROCS(0)
	if extract.Strategy(*strategy) == extract.StrategyNLP {
		if ex, err = nlp.New(nlp.Options{}); err != nil {
			return err
		}
	} else {
		if err := cfg.Validate(); err != nil {
			return err
		}
		runner, err := cfg.openApp(ctx, cfg.logger(stderr))
		if err != nil {
			return err
		}
		defer runner.Close()
		ec.Strategy, ec.Provider, ec.Model = extract.Strategy(*strategy), extract.Provider(*provider), *model
		if err := runner.Runs.Prepare(ctx, &ec, *schemaRef); err != nil {
			return err
		}
		if ex, err = runner.Models.Extractor(ctx, ec); err != nil {
			return err
		}
		workers = ec.Concurrency
	}
	start := time.Now()
	graphs, bytes, err := extractEntries(ctx, ex, entries, ec, workers)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	var typeMap map[string]string
	if app.GoldFormat(*format) == app.GoldDocRED {
		typeMap = eval.DocREDTypes
	}
	rep := eval.Score(entries, graphs, typeMap)
	if *asJSON {
		return printIndented(stdout, rep)
	}
	printEval(stdout, files[0], *format, *strategy, rep, bytes, elapsed)
	return nil
}

// extractEntries extracts each entry's text as its own document: split,
// extract every chunk, merge the chunk graphs. Entries run in parallel; the
// extractor is built once and shared.
func extractEntries(ctx context.Context, ex extract.Extractor, entries []eval.Entry, cfg extract.Config, workers int) ([]extract.Graph, int, error) {
	graphs := make([]extract.Graph, len(entries))
	errs := make([]error, len(entries))
	total := 0
	for _, e := range entries {
		total += len(e.Text)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(workers, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				graphs[i], errs[i] = extractEntry(ctx, ex, i, entries[i], cfg)
			}
		}()
	}
	for i := range entries {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	return graphs, total, errors.Join(errs...)
}

func extractEntry(ctx context.Context, ex extract.Extractor, i int, e eval.Entry, cfg extract.Config) (extract.Graph, error) {
	var g extract.Graph
	doc, err := extract.ReadDocument(e.ID+".txt", []byte(e.Text), len(e.Text)+1)
	if err != nil {
		return g, fmt.Errorf("entry %s: %w", e.ID, err)
	}
	doc.ID = i + 1
	for _, c := range extract.Split(doc, cfg.ChunkSize, cfg.Overlap, cfg.Strict) {
		res, err := ex.Extract(ctx, doc, c)
		if err != nil {
			return g, fmt.Errorf("entry %s: %w", e.ID, err)
		}
		extract.MergeGraph(&g, res.Graph, cfg.MaxFragments)
	}
	return g, nil
}

// printEval writes the report for a terminal.
func printEval(w io.Writer, file, format, strategy string, rep eval.Report, bytes int, elapsed time.Duration) {
	fmt.Fprintf(w, "%s (%s): %d entries, %d KB of text, %s strategy, %.1f s (%.0f KB/s)\n", file, format, rep.Entries,
		bytes/1024, strategy, elapsed.Seconds(), float64(bytes)/1024/max(elapsed.Seconds(), 1e-9))
	en := rep.Entities
	fmt.Fprintf(w, "entities:  P %.3f  R %.3f  F1 %.3f  (found %d of %d gold; %d of %d scored nodes correct)\n",
		en.Precision, en.Recall, en.F1, en.Found, en.Gold, en.Correct, en.Scored)
	if en.Typed != nil {
		fmt.Fprintf(w, "  typed:   P %.3f  R %.3f  F1 %.3f\n", en.Typed.Precision, en.Typed.Recall, en.Typed.F1)
	}
	fmt.Fprintf(w, "  one-to-one (each gold entity credits one node): P %.3f  R %.3f  F1 %.3f\n",
		en.OneToOne.Precision, en.OneToOne.Recall, en.OneToOne.F1)
	if t1 := en.TypedOneToOne; t1 != nil {
		fmt.Fprintf(w, "  one-to-one typed:                               P %.3f  R %.3f  F1 %.3f\n", t1.Precision, t1.Recall, t1.F1)
	}
	types := make([]string, 0, len(en.ByType))
	for t := range en.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		tr := en.ByType[t]
		if tr.TypedRecall != nil {
			fmt.Fprintf(w, "  %-8s recall %.3f (%d of %d), typed %.3f (%d)\n", t, tr.Recall, tr.Found, tr.Gold, *tr.TypedRecall, tr.TypedFound)
			continue
		}
		fmt.Fprintf(w, "  %-8s recall %.3f (%d of %d)\n", t, tr.Recall, tr.Found, tr.Gold)
	}
	r := rep.Relations
	fmt.Fprintf(w, "relations unlabelled: P %.3f  R %.3f  F1 %.3f  (%d gold pairs, %d extracted)\n",
		r.Unlabelled.Precision, r.Unlabelled.Recall, r.Unlabelled.F1, r.GoldPairs, r.ExtractedPairs)
	if r.LabelsComparable {
		fmt.Fprintf(w, "relations labelled:   P %.3f  R %.3f  F1 %.3f  (%d gold triples)\n",
			r.Labelled.Precision, r.Labelled.Recall, r.Labelled.F1, r.GoldTriples)
		printLabels(w, r.ByLabel)
	} else {
		fmt.Fprintln(w, "relations labelled:   not comparable (the nlp strategy labels edges with verb phrases)")
	}
}

// evalLongMemEval scores turn and session recall of BM25 and the query
// modes on a LongMemEval file, each question over its own sessions and
// distractors, offline.
func evalLongMemEval(ctx context.Context, file, mode, embedder string, distractors, limit int, asJSON bool, stdout io.Writer) error {
	modes, err := evalModes(mode)
	if err != nil {
		return err
	}
	emb, err := evalEmbedder(embedder)
	if err != nil {
		return err
	}
	if distractors < 0 || limit < 0 {
		return errors.New("--distractors and --limit must be 0 or more")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	qs, err := eval.ReadLongMemEval(data)
	if err != nil {
		return err
	}
	start := time.Now()
	rep, err := eval.LongMemEval(ctx, qs, emb, eval.LongMemOptions{Distractors: distractors, Limit: limit, Modes: extract.Names(modes)})
	if err != nil {
		return err
	}
	if asJSON {
		return printIndented(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s (longmemeval): %d questions, up to %d distractor sessions each (%.1f sessions a haystack), %d rounds in all, embedder %s, %.1f s\n",
		file, rep.Questions, rep.Distractors, rep.Sessions, rep.Rounds, rep.Embedder, time.Since(start).Seconds())
	fmt.Fprintf(stdout, "evidence-turn recall@%d / session recall@%d:\n", eval.LongMemTurnK, eval.LongMemSessionK)
	fmt.Fprintf(stdout, "  %-26s %4s", "type", "n")
	for _, m := range rep.Methods {
		fmt.Fprintf(stdout, " %13s", m)
	}
	fmt.Fprintln(stdout)
	row := func(name string, n int, r eval.LongMemRecalls) {
		fmt.Fprintf(stdout, "  %-26s %4d", name, n)
		for _, m := range rep.Methods {
			fmt.Fprintf(stdout, "   %s/%s", score(r.TurnRecall, m), score(r.SessionRecall, m))
		}
		fmt.Fprintln(stdout)
	}
	types := make([]string, 0, len(rep.Types))
	for t := range rep.Types {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		row(t, rep.Types[t].Questions, rep.Types[t].LongMemRecalls)
	}
	row("overall", rep.Questions, rep.Overall)
	fmt.Fprintf(stdout, "knowledge updates, current value ranked first (%d questions):", rep.Knowledge.Questions)
	for _, m := range rep.Methods {
		fmt.Fprintf(stdout, " %s %.3f", m, rep.Knowledge.CurrentFirst[m])
	}
	fmt.Fprintln(stdout)
	for _, t := range rep.Types {
		if len(t.TurnRecall) == 0 {
			fmt.Fprintln(stdout, "n/a: no question of the type has evidence turns (abstention questions have none); they count for sessions only")
			break
		}
	}
	return nil
}

// score prints a recall, or n/a when none was measured.
func score(m map[string]float64, k string) string {
	if v, ok := m[k]; ok {
		return fmt.Sprintf("%.3f", v)
	}
	return "  n/a"
}

// printLabels prints the labelled score's biggest labels (by gold and
// extracted triples, at most 12): gold, found, extracted, correct.
func printLabels(w io.Writer, by map[string]eval.LabelCount) {
	labels := make([]string, 0, len(by))
	for l := range by {
		labels = append(labels, l)
	}
	size := func(l string) int { return max(by[l].Gold, by[l].Extracted) }
	sort.Slice(labels, func(i, j int) bool {
		if a, b := size(labels[i]), size(labels[j]); a != b {
			return a > b
		}
		return labels[i] < labels[j]
	})
	for _, l := range labels[:min(len(labels), 12)] {
		c := by[l]
		fmt.Fprintf(w, "  %-24s gold %4d found %4d  extracted %4d correct %4d\n", l, c.Gold, c.Found, c.Extracted, c.Correct)
	}
}
