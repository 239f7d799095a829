package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// cmdExtract runs one extraction version in the foreground.
func cmdExtract(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("extract", stderr)
	name := fs.String("name", "", "extraction name (required)")
	ec := extract.DefaultConfig()
	schemaRef := fs.String("schema", "", "schema NAME[@VERSION] to constrain types")
	fs.StringVar((*string)(&ec.Strategy), "strategy", string(ec.Strategy), "nlp, tuple, schema or dialogue")
	fs.StringVar((*string)(&ec.Provider), "provider", "", "gemini or openai (LLM strategies)")
	fs.StringVar(&ec.Model, "model", "", "model name (default per provider)")
	fs.StringVar((*string)(&ec.Embedder), "embedder", "", "vectorizer: use-lite (sentence encoder, offline; the default unless KGSTUDIO_EMBEDDER names another), offline (hashed n-grams), gemini or openai")
	fs.IntVar(&ec.ChunkSize, "chunk-size", ec.ChunkSize, "chunk length in characters")
	fs.IntVar(&ec.Overlap, "overlap", ec.Overlap, "overlap window in characters")
	fs.BoolVar(&ec.Strict, "strict", false, "never exceed the chunk size")
	fs.IntVar(&ec.Concurrency, "concurrency", ec.Concurrency, "chunks processed at once")
	fs.IntVar(&ec.MaxGleaning, "max-gleaning", ec.MaxGleaning, "continue-extraction rounds (tuple strategy)")
	fs.StringVar(&ec.Language, "language", "", "output language for LLM strategies (default: the text's)")
	fs.BoolVar(&ec.NoCache, "no-cache", false, "ask the model anew instead of answering from the call cache")
	fs.StringVar(&ec.Reference, "reference", "", "NAME@V of a domain graph: extracted names matching its names or aliases become its nodes")
	fs.StringVar((*string)(&ec.Reports), "reports", string(extract.ReportsOffline), "community reports: offline (from the graph's text) or model (the provider writes them)")
	fs.IntVar(&ec.MaxReports, "max-reports", extract.DefaultMaxReports, "with --reports model: the most report calls a run makes")
	fs.StringVar((*string)(&ec.OfficialNames), "official-names", "", "schema strategy: what standardisation makes of an official name: rename (the default: the node takes it, the text's name stays an alias) or node (KAG's shape: an official-name node and an OfficialName edge)")
	fs.IntVar(&ec.TableRows, "table-rows", extract.DefaultTableRows, "rows of a CSV table mapped and merged as one chunk")
	fs.BoolVar(&ec.ChunkNodes, "chunk-nodes", false, "put KAG's chunk layer into the graph: a Chunk node per chunk, entities or not, and a source edge from each node to its chunks")
	asJSON := fs.Bool("json", false, "print a JSON summary")
	estimate := fs.Bool("estimate", false, "count the chunks, model calls, tokens and cost the run would take, calling no model and storing nothing")
	detach := fs.Bool("detach", false, "queue the run and return at once; workers (kgstudio worker, serve) run it")
	noIndex := fs.Bool("no-index", false, "return once the graph is stored, leaving the query indexes to the first question")
	from := fs.String("from", "", "NAME@V: grow that finished version by the files named (a new version of its extraction, its settings, extracting only the new files' chunks)")
	var without []string
	fs.Func("without", "with --from: a document of the version (name or id) the new version leaves out, with what only it contributed (repeatable)", func(s string) error {
		without = append(without, s)
		return nil
	})
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *from != "" {
		// A grown version keeps its parent's settings: a setting given
		// with --from would be ignored, so it is refused.
		var ignored []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "from", "without", "detach", "json", "data", "db", "log-level", "log-format":
			default:
				ignored = append(ignored, "--"+f.Name)
			}
		})
		if len(ignored) > 0 {
			return fmt.Errorf("extract --from: %s cannot apply: a version grown from %s keeps its settings (strategy, model, chunking, gleaning); run a new extraction with them instead (kgstudio extract --name NAME ... FILE...)", strings.Join(ignored, ", "), *from)
		}
	}
	switch {
	case *from != "" && len(without) > 0 && len(files) > 0:
		return errors.New("extract: --from either adds files or, with --without, takes documents out; not both at once")
	case *from != "" && (len(files) > 0 || len(without) > 0):
		return changeExtraction(ctx, cfg, *from, files, without, *detach, *asJSON, stdout, stderr)
	case *from != "":
		return errors.New("extract: --from needs the files to add, or --without DOC")
	case len(without) > 0:
		return errors.New("extract: --without needs --from NAME@V")
	}
	if *name == "" && !*estimate {
		return errors.New("extract: --name is required")
	}
	if len(files) == 0 {
		return errors.New("extract: name at least one file")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := cfg.logger(stderr)
	runner, err := cfg.openApp(ctx, log)
	if err != nil {
		return err
	}
	defer runner.Close()
	// Refuse bad settings before any file is stored.
	if err := runner.Runs.Prepare(ctx, &ec, *schemaRef); err != nil {
		return err
	}
	if *estimate {
		return estimateRun(ctx, runner, ec, files, cfg.MaxUpload, *asJSON, stdout)
	}
	info := io.Discard
	if !*asJSON {
		info = stdout
	}
	docs, err := addFiles(ctx, runner.Documents, files, cfg.MaxUpload, info)
	if err != nil {
		return err
	}
	ids := make([]int, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	v, _, err := runner.Runs.NewRun(ctx, app.RunRequest{Extraction: *name, Config: ec, SchemaRef: *schemaRef, DocumentIDs: ids})
	if err != nil {
		return err
	}
	return startRun(ctx, runner, v, runMode{detach: *detach, json: *asJSON, index: !*noIndex}, stdout, stderr)
}

// runMode is how a command runs a version: queued for workers (detach)
// or in the foreground, reported as JSON or text, with its query indexes
// stored before the command returns (index).
type runMode struct{ detach, json, index bool }

// startRun queues a new version and returns (detach), or runs it in the
// foreground and reports it.
func startRun(ctx context.Context, runner *app.App, v record.Version, mode runMode, stdout, stderr io.Writer) error {
	asJSON := mode.json
	if !mode.detach {
		return runAndReport(ctx, runner, v, mode, stdout, stderr)
	}
	v, err := runner.Runs.Enqueue(ctx, v)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(app.VersionJSONOf(v))
	}
	fmt.Fprintf(stdout, "%s@%d %s: %d chunks; follow it with kgstudio version show %s@%d\n", v.Extraction, v.Number, v.Status, v.ChunksTotal, v.Extraction, v.Number)
	return nil
}

// runAndReport runs a version in the foreground with progress on stderr,
// then prints its summary (JSON with mode.json), stores its query indexes
// (mode.index: the first question of any process then reads them instead
// of building them) and returns the run's error.
func runAndReport(ctx context.Context, runner *app.App, v record.Version, mode runMode, stdout, stderr io.Writer) error {
	asJSON := mode.json
	last, lastPhase := -1, extract.Phase("")
	// Phases are shown in their order: a late report of an earlier phase
	// (a chunk job's, read after the final job began) is not printed.
	rank := map[extract.Phase]int{extract.PhaseQueued: 0, "": 1, extract.PhaseExtracting: 1, extract.PhaseMerging: 2}
	runErr := runner.Runs.Run(ctx, v, func(p extract.Progress) {
		if asJSON || p.ChunksTotal == 0 {
			return
		}
		if r, ok := rank[p.Phase]; ok && lastPhase != "" && r < rank[lastPhase] {
			return
		}
		// One line per tenth of the chunks in each phase (extracting,
		// then merging); node and edge totals come at the end.
		if tenth := p.ChunksDone * 10 / p.ChunksTotal; tenth != last || p.Phase != lastPhase {
			last, lastPhase = tenth, p.Phase
			phase := p.Phase
			if phase == "" {
				phase = extract.PhaseExtracting
			}
			fmt.Fprintf(stderr, "%s@%d: %s %d/%d chunks\n", v.Extraction, v.Number, phase, p.ChunksDone, p.ChunksTotal)
		}
	})
	v, err := runner.Versions.Get(context.WithoutCancel(ctx), v.ID)
	if err != nil {
		return errors.Join(runErr, err)
	}
	if asJSON {
		out := app.VersionJSONOf(v)
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		unread := ""
		if v.ParseFailures > 0 {
			unread = fmt.Sprintf("; %d model answers could not be read (kgstudio version show %s lists them)", v.ParseFailures, v.Label())
		}
		fmt.Fprintf(stdout, "%s@%d %s: %d nodes, %d edges in %s%s\n", v.Extraction, v.Number, v.Status, v.Nodes, v.Edges, v.Elapsed, unread)
	}
	if runErr == nil && mode.index && v.Status == record.StatusDone {
		storeIndexes(ctx, runner, v, asJSON, stderr)
	}
	if errors.Is(runErr, app.ErrInterrupted) {
		return fmt.Errorf("interrupted: %s stays %s with %d of %d chunks done; workers (kgstudio worker, kgstudio serve) finish it, or kgstudio version cancel %s stops it",
			v.Label(), v.Status, v.ChunksDone, v.ChunksTotal, v.Label())
	}
	if runErr != nil {
		return fmt.Errorf("%s@%d: %s", v.Extraction, v.Number, strings.TrimSpace(extract.MessageOf(runErr)))
	}
	return nil
}

// storeIndexes stores a finished version's query indexes before a
// command returns, so that the first question of any process reads them
// instead of building them; a failure is reported and leaves them to
// that question. The command's garbage goes back first, and the
// collector runs twice as often while the indexes are built: their
// garbage is most of what they allocate, and a process's peak is what a
// user meets.
func storeIndexes(ctx context.Context, a *app.App, v record.Version, quiet bool, stderr io.Writer) {
	start := time.Now()
	debug.FreeOSMemory()
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	if err := a.Queries.StoreIndexes(ctx, v.ID); err != nil {
		fmt.Fprintf(stderr, "%s: query indexes not stored (the first question builds them): %s\n", v.Label(), extract.MessageOf(err))
	} else if !quiet {
		fmt.Fprintf(stderr, "%s: query indexes stored in %s\n", v.Label(), time.Since(start).Round(time.Millisecond))
	}
}

// changeExtraction makes the next version of a finished one: with files,
// grown by them, extracting only their chunks (app.Grow); with without,
// leaving those documents out (app.Without). It runs or queues it.
func changeExtraction(ctx context.Context, cfg *Config, ref string, files, without []string, detach, asJSON bool, stdout, stderr io.Writer) error {
	runner, v, err := cfg.openVersion(ctx, ref, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer runner.Close()
	var nv record.Version
	if len(without) > 0 {
		nv, err = runner.Runs.Without(ctx, v, without)
	} else {
		info := io.Discard
		if !asJSON {
			info = stdout
		}
		var docs []extract.Document
		if docs, err = addFiles(ctx, runner.Documents, files, cfg.MaxUpload, info); err != nil {
			return err
		}
		ids := make([]int, len(docs))
		for i, d := range docs {
			ids[i] = d.ID
		}
		nv, err = runner.Runs.Grow(ctx, v, ids)
	}
	if err != nil {
		return err
	}
	return startRun(ctx, runner, nv, runMode{detach: detach, json: asJSON, index: true}, stdout, stderr)
}

// estimateRun prints what a run of ec over files would ask of its model
// (app.EstimateRun): the files are read, not stored, and no model is
// called.
func estimateRun(ctx context.Context, runner *app.App, ec extract.Config, files []string, maxBytes int, asJSON bool, stdout io.Writer) error {
	var docs []extract.Document
	for _, f := range files {
		read := func(fd app.FileDocuments) error {
			for _, p := range fd.Refused {
				return fmt.Errorf("%s: %s", p.Name, p.Error)
			}
			docs = append(docs, fd.Docs...)
			return nil
		}
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			if err := app.ReadFolder(ctx, f, maxBytes, read); err != nil {
				return err
			}
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		fd, err := app.ReadDocuments(ctx, filepath.Base(f), data, maxBytes)
		if err != nil {
			return err
		}
		if err := read(fd); err != nil {
			return err
		}
	}
	est, err := runner.Runs.EstimateRun(ctx, ec, docs)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(est)
	}
	model := est.Model
	if model == "" {
		model = "no model"
	}
	fmt.Fprintf(stdout, "estimate of a %s run of %s with %s (no model was called, nothing stored):\n", est.Strategy, plural(len(docs), "document"), model)
	fmt.Fprintf(stdout, "  chunks          %d\n  calls           %d\n  input tokens    %d\n  output tokens   %d\n", est.Chunks, est.Calls, est.InputTokens, est.OutputTokens)
	if est.Priced {
		fmt.Fprintf(stdout, "  cost            $%.4f (%s at $%.2f in, $%.2f out a million tokens)\n", est.Cost, est.Model, est.Price.Input, est.Price.Output)
	} else {
		fmt.Fprintf(stdout, "  cost            unknown\n")
	}
	for _, n := range est.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	return nil
}
