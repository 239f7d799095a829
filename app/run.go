package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
	"github.com/riverqueue/river/rivertype"
)

// Start queues a version's jobs (see queue.go) and returns: the workers of
// any process take them. A failure to queue is logged and marks the
// version failed.
func (rs *Runs) Start(v record.Version) {
	// The queuing outlives the request that asked for it.
	ctx := context.Background()
	if _, err := rs.Enqueue(ctx, v); err != nil {
		rs.log.Error("queue extraction", "version_id", v.ID, "extraction", v.Extraction, "error", err)
		_ = rs.store.FinishVersion(ctx, v.ID, record.StatusFailed, 0, errText(err))
	}
}

// cancel stops a version everywhere: it is marked canceled, which every
// job of it watches, and its River jobs are canceled. It reports whether
// the version had jobs that had not ended. CancelVersion is the way in.
func (jq *jobQueue) cancel(ctx context.Context, id int) (bool, error) {
	st, err := jq.store.VersionStatus(ctx, id)
	if err != nil {
		return false, err
	}
	if st.Active() {
		if err := jq.store.FinishVersion(ctx, id, record.StatusCanceled, 0, "canceled by the user"); err != nil {
			return false, err
		}
	}
	n, err := jq.cancelJobs(ctx, id)
	if err != nil {
		return false, err
	}
	jq.log.Info("extraction canceled", "version_id", id, "jobs_canceled", n)
	return n > 0, nil
}

// Resume marks failed the written versions a dead process left running
// (store.FailInterruptedWrites), and queues again every version left
// queued or running whose jobs are all gone (e.g. queued before the jobs were), so the workers finish
// it; the jobs of a killed worker need nothing: River's rescuer hands them
// to another.
func (rs *Runs) Resume(ctx context.Context) error {
	// A graph written whole (an import, a merge, an edit) by a process
	// that died is half written: it fails, and is never run.
	if n, err := rs.store.FailInterruptedWrites(ctx); err != nil {
		return err
	} else if n > 0 {
		rs.log.Warn("versions interrupted while written marked failed", "versions", n)
	}
	vs, err := rs.store.UnfinishedVersions(ctx)
	if err != nil {
		return err
	}
	var failed error
	for _, v := range vs {
		if v.Written {
			continue
		}
		rows, err := rs.queue.versionJobs(ctx, v.ID, store.ActiveJobStates)
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			continue
		}
		rs.log.Info("resuming extraction", "version_id", v.ID, "extraction", v.Extraction, "chunks_done", v.ChunksDone)
		if _, err := rs.Enqueue(ctx, v); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// One run that cannot be resumed keeps neither the others
			// nor the next start waiting: a run whose settings or
			// documents are refused fails with the reason, once.
			rs.log.Error("resume extraction", "version_id", v.ID, "error", err)
			if k := extract.KindOf(err); k == extract.KindInvalid {
				_ = rs.store.FinishVersion(context.WithoutCancel(ctx), v.ID, record.StatusFailed, 0, errText(err))
			}
			failed = errors.Join(failed, err)
		}
	}
	return failed
}

// WatchInterruptedWrites fails, until ctx ends, the written versions (an
// import, a merge, an edit) whose writer died: Resume fails those whose
// heartbeat was already stale at start; one whose writer died within the
// minute before the start is failed here, once its heartbeat is stale,
// instead of staying running.
func (rs *Runs) WatchInterruptedWrites(ctx context.Context) {
	every(ctx, store.WriteStale/2, func() {
		if n, err := rs.store.FailInterruptedWrites(ctx); err != nil && ctx.Err() == nil {
			rs.log.Warn("fail interrupted writes", "err", err)
		} else if n > 0 {
			rs.log.Warn("versions interrupted while written marked failed", "versions", n)
		}
	})
}

// every runs do every period until ctx ends.
func every(ctx context.Context, period time.Duration, do func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			do()
		}
	}
}

// Run queues a version's jobs and works on them in this process until
// the version has ended, reporting progress; the workers of other
// processes may share the work. Its jobs are taken before those of runs
// queued with Enqueue. It returns the run's error for a failed version,
// and an ErrInterrupted when ctx ends first (see Wait).
func (rs *Runs) Run(ctx context.Context, v record.Version, progress func(extract.Progress)) error {
	// Its jobs come before those of runs queued for the workers.
	if _, err := rs.queue.enqueue(ctx, v, priorityForeground); err != nil {
		return err
	}
	return rs.Wait(ctx, v.ID, progress, WorkerOptions{Concurrency: v.Config.Concurrency})
}

// Wait works on the queued jobs (with workers of its own when the process
// runs none) until the version has ended, reporting progress. When ctx
// ends first, the jobs this process runs go back to the queue (their
// chunks' errors untouched), the version is left queued when no other
// worker runs it, and the error is an ErrInterrupted.
func (rs *Runs) Wait(ctx context.Context, id int, progress func(extract.Progress), o WorkerOptions) error {
	w := &waiter{ctx: ctx, progress: progress}
	defer rs.queue.addWaiter(id, w)()
	release, err := rs.queue.holdWorker(ctx, o)
	if err != nil {
		return err
	}
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	begin := time.Now()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		v, err := rs.store.Version(context.WithoutCancel(ctx), id)
		if err != nil {
			return err
		}
		p := extract.Progress{ChunksDone: v.ChunksDone, ChunksTotal: v.ChunksTotal, Nodes: v.Nodes, Edges: v.Edges, Elapsed: time.Since(begin)}
		if ph, err := rs.Phase(context.WithoutCancel(ctx), v); err == nil {
			p.Phase = ph.Name
			if ph.Name == extract.PhaseMerging {
				p.ChunksDone = ph.ChunksMerged
			}
		}
		w.report(p)
		switch v.Status {
		case record.StatusDone:
			return nil
		case record.StatusCanceled:
			return context.Canceled
		case record.StatusFailed:
			return extract.Errorf(extract.KindUnavailable, "%s", v.Error)
		case record.StatusQueued, record.StatusRunning: // wait on
		}
		select {
		case <-ctx.Done():
			release()
			released = true
			return rs.queue.interrupted(context.WithoutCancel(ctx), id, ctx.Err())
		case <-t.C:
		}
	}
}

// ErrInterrupted is the error of a foreground run whose context ended
// before the version did.
var ErrInterrupted = errors.New("interrupted")

// interrupted leaves a version whose foreground run stopped for the
// workers: queued when none of its jobs runs elsewhere.
func (jq *jobQueue) interrupted(ctx context.Context, id int, cause error) error {
	running, err := jq.versionJobs(ctx, id, []rivertype.JobState{rivertype.JobStateRunning})
	if err == nil && len(running) == 0 {
		err = jq.store.MarkQueued(ctx, id)
	}
	if err != nil {
		jq.log.Warn("leave the interrupted extraction queued", "version_id", id, "error", err)
	}
	return fmt.Errorf("%w: %w", ErrInterrupted, cause)
}

// finish is a version's final job: it merges what the chunk jobs stored,
// runs the other tracks and the steps that need every chunk, and records
// the outcome. A canceled context leaves the version as it is, for the
// job to run again; other errors mark it failed.
func (pl *pipeline) finish(ctx context.Context, v record.Version, progress func(extract.Progress)) error {
	begin := time.Now()
	if v.StartedAt != nil {
		begin = *v.StartedAt
	}
	err := pl.run(ctx, v, progress)
	if err == nil {
		err = pl.checkReadable(ctx, v.ID)
	}
	if err == nil {
		// Injection of the reference graph the run names (app/inject.go).
		err = pl.inject(ctx, v)
	}
	if err == nil {
		// The duplicate decisions taken on earlier versions.
		err = pl.applyDecisions(ctx, v)
	}
	if err == nil {
		// The schema's rules, over everything the steps before wrote.
		err = pl.deriveRules(ctx, v)
	}
	if err == nil {
		// KAG's chunk nodes, when the run asks for them.
		err = pl.addChunkLayer(ctx, v)
	}
	if err == nil {
		// The graph is complete: its communities are stored with it (with
		// the model's reports when the run asks for them), and the
		// vectorizer step (after every kind of run) embeds it. They read
		// it as loaded once.
		var g extract.Graph
		if g, err = pl.finalGraph(ctx, v); err == nil {
			r := pl.communities.keepCommunities(ctx, v, &g)
			have := versionRead{graph: &g, comms: &r}
			if v.Config.ModelReports() {
				err = pl.communities.writeReports(ctx, v, r)
				have.comms = nil // read back with the model's reports
			}
			if err == nil {
				err = pl.vectors.vectorize(ctx, v, have)
			}
		}
	}
	status, msg := record.StatusDone, ""
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled), ctx.Err() != nil:
		return err
	default:
		status, msg = record.StatusFailed, errText(err)
	}
	ok, ferr := pl.store.FinishRun(context.WithoutCancel(ctx), v.ID, status, pl.store.Now().Sub(begin), msg)
	if ferr != nil {
		return errors.Join(err, ferr)
	}
	if !ok {
		return nil // canceled meanwhile
	}
	if status == record.StatusDone {
		if derr := pl.store.DropStagedResults(context.WithoutCancel(ctx), v.ID); derr != nil {
			pl.log.Warn("drop staged chunk results", "version_id", v.ID, "error", derr)
		}
		// A serving worker (serve, kgstudio worker) writes its query
		// indexes, so that its first question, in any process, reads them
		// instead of building them. A foreground extract returns with the
		// graph and leaves them to the first question.
		if pl.runs.workerCount() > 0 {
			pl.queries.storeIndexes(ctx, v.ID)
			pl.storeLayout(ctx, v.ID)
		}
		// Scored on its extraction's questions, when it has some.
		pl.scoreFinished(ctx, v)
	}
	if err != nil {
		pl.log.Error("extraction failed", "version_id", v.ID, "extraction", v.Extraction, "error", err)
	}
	return nil
}

// storeLayout lays a version its run just finished out and stores the
// layout (best effort: a version with none is laid out on its first
// whole-graph view).
func (pl *pipeline) storeLayout(ctx context.Context, versionID int) {
	v, err := pl.store.Version(ctx, versionID)
	if err != nil || v.Status != record.StatusDone || v.Nodes == 0 {
		return
	}
	if err := pl.layouts.Make(ctx, v); err != nil && ctx.Err() == nil {
		pl.log.Warn("layout not stored", "version_id", v.ID, "err", err)
	}
}

// finalGraph loads a finished run's graph for its communities and
// vectors: without mentions, and without properties unless the schema
// embeds some (a triples table's nodes each carry a map of type counts:
// 160 MB at a million rows, read for nothing).
func (pl *pipeline) finalGraph(ctx context.Context, v record.Version) (extract.Graph, error) {
	props, err := pl.vectors.vectorProps(ctx, v.Config)
	if err != nil {
		return extract.Graph{}, err
	}
	return pl.store.LoadGraphParts(ctx, v.ID, store.GraphParts{Properties: len(props) > 0, Keys: props.Keys()})
}

// checkReadable fails a run that made nothing because no model answer
// could be read (every answer failed to parse): an empty graph is then
// not a result but a failure, with its reason. A run that made something
// keeps its graph; its failures are counted on the version.
func (pl *pipeline) checkReadable(ctx context.Context, id int) error {
	cur, err := pl.store.Version(ctx, id)
	if err != nil {
		return err
	}
	if cur.Nodes == 0 && cur.Edges == 0 && cur.ParseFailures > 0 {
		return extract.Errorf(extract.KindInvalid, "no model answer could be read: %d failed to parse and nothing was extracted (the version's failures show the answers)", cur.ParseFailures)
	}
	return nil
}

func (pl *pipeline) run(ctx context.Context, v record.Version, progress func(extract.Progress)) error {
	docs, err := pl.store.Documents(ctx, v.DocumentIDs)
	if err != nil {
		return err
	}
	// Each document takes its own track (see tracks.go); text chunks were
	// merged by the chunk jobs as they settled (see chunkjob.go).
	tracks, err := pl.planTracks(ctx, v, docs)
	if err != nil {
		return err
	}
	for i := range tracks {
		if tracks[i].name == TrackText {
			tracks[i].merged = true
		}
	}
	return pl.runTracks(ctx, v, tracks, progress)
}

// mergedText finishes the text track of a final job: the chunk jobs
// merged their chunks in order as they settled; what is still staged
// (its job's process stopped before it merged the chunks after its own)
// is merged now. A chunk that failed for good stops the merge there: its
// error, and those of the other failed chunks, are recorded on the
// version and the track fails, for resume or retry to ask them again.
func (pl *pipeline) mergedText(ctx context.Context, v record.Version, r track, report func(extract.Progress)) error {
	begin := time.Now()
	if _, err := pl.store.DrainChunks(ctx, v.ID, sinkFragments(v.Config)); err != nil {
		return err
	}
	runs, err := pl.store.Sink(v.ID, 0).Finished(ctx)
	if err != nil {
		return err
	}
	merged := 0
	for _, j := range r.jobs {
		if runs[j.Chunk.Ref()] {
			merged++
		}
	}
	cur, err := pl.store.Version(ctx, v.ID)
	if err != nil {
		return err
	}
	report(extract.Progress{ChunksDone: merged, ChunksTotal: len(r.jobs), Nodes: cur.Nodes, Edges: cur.Edges, Elapsed: time.Since(begin)})
	failed, err := pl.store.FailedChunks(ctx, v.ID)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		if err := pl.store.SetChunkErrors(ctx, v.ID, failed); err != nil {
			return err
		}
		first, doc := failed[0], ""
		for _, j := range r.jobs {
			if j.Doc.ID == first.DocumentID {
				doc = j.Doc.Name
				break
			}
		}
		return extract.Errorf(extract.KindUnavailable, "%d of %d chunks failed (chunk %d of %q: %s: %s); resume or retry to ask them again",
			len(failed), len(r.jobs), first.Index, doc, first.Status, first.Message)
	}
	for _, j := range r.jobs {
		if !runs[j.Chunk.Ref()] {
			return extract.Errorf(extract.KindInternal, "chunk %d of %q was not extracted", j.Chunk.Index, j.Doc.Name)
		}
	}
	return nil
}

// chunkSettings names a splitter setting, so chunks of different settings
// are stored apart.
func chunkSettings(cfg extract.Config) string {
	return fmt.Sprintf("%d/%d/%t", cfg.ChunkSize, cfg.Overlap, cfg.Strict)
}

// DialogueChunkSet names the chunks of dialogue runs: one per turn, the same
// whatever the splitter settings.
const DialogueChunkSet = "dialogue"

// DocKinds returns a version's documents with only ID, name and kind set.
func (rs *Runs) DocKinds(ctx context.Context, v record.Version) ([]extract.Document, error) {
	return docKinds(ctx, rs.store, v)
}

// docKinds reads the name and kind of each of a version's documents.
func docKinds(ctx context.Context, st *store.Store, v record.Version) ([]extract.Document, error) {
	infos, err := st.DocumentInfos(ctx, v.DocumentIDs)
	if err != nil {
		return nil, err
	}
	docs := make([]extract.Document, 0, len(v.DocumentIDs))
	for _, id := range v.DocumentIDs {
		d, ok := infos[id]
		if !ok {
			return nil, extract.Errorf(extract.KindNotFound, "document %d not found", id)
		}
		docs = append(docs, extract.Document{ID: d.ID, Name: d.Name, Kind: d.Kind})
	}
	return docs, nil
}

// Extractor builds the strategy a config asks for, given the entities of
// the reference graph it names (app/inject.go).
func (m *Models) Extractor(ctx context.Context, cfg extract.Config) (extract.Extractor, error) {
	ex, err := m.strategy(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return m.withDomain(ctx, cfg, ex)
}

// strategy builds the extractor of the config's strategy.
func (m *Models) strategy(ctx context.Context, cfg extract.Config) (extract.Extractor, error) {
	switch cfg.Strategy {
	case extract.StrategyNLP, "":
		if cfg.SchemaName != "" {
			return m.schemaNLP(ctx, cfg)
		}
		return m.nlp(cfg)
	case extract.StrategyTuple, extract.StrategySchema:
		return m.llmExtractor(ctx, cfg)
	default:
		return nil, extract.Errorf(extract.KindInvalid, "unknown strategy %q (use nlp, tuple, schema or dialogue)", cfg.Strategy)
	}
}

// nlpCacheSize is how many entity-type lists keep their offline
// extractor.
const nlpCacheSize = 16

// nlp returns the offline extractor for the config's entity types, built
// once per type list (building one loads the NER model).
func (m *Models) nlp(cfg extract.Config) (extract.Extractor, error) {
	ex, err := m.models.nlpByTypes.Get(context.Background(), strings.Join(cfg.EntityTypes, "\x1f"), func() (*nlp.Extractor, error) {
		return nlp.New(nlp.Options{EntityTypes: cfg.EntityTypes})
	})
	if err != nil {
		return nil, err // not a nil *nlp.Extractor in an interface
	}
	return ex, nil
}

// Prepare fills and checks a config before a version is created: the
// defaults (extract.Config.WithDefaults), the provider and model, and the
// entity types of a referenced schema. Settings extract.Config.Validate
// refuses, and a provider that is not configured, are invalid errors.
func (rs *Runs) Prepare(ctx context.Context, cfg *extract.Config, schemaRef string) error {
	*cfg = cfg.WithDefaults()
	if (cfg.Strategy != extract.StrategyNLP || cfg.ModelReports()) && cfg.Provider == "" {
		cfg.Provider = rs.models.providers.Default()
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := rs.models.checkProvider(*cfg); err != nil {
		return err
	}
	if err := rs.models.checkEmbedder(*cfg); err != nil {
		return err
	}
	if cfg.Model == "" {
		cfg.Model = rs.models.providers.Model(cfg.Provider)
	}
	// The version keeps the prompts it runs with, defaults included, so a
	// later release with new defaults cannot change what it says it ran.
	if defaults := StrategyPrompts(cfg.Strategy, DefaultPrompts()); len(defaults) > 0 {
		prompts := make(map[string]string, len(defaults))
		for k, v := range defaults {
			prompts[k] = v
			if own, ok := cfg.Prompts[k]; ok && own != "" {
				prompts[k] = own
			}
		}
		cfg.Prompts = prompts
	}
	// The reference graph to inject (app/inject.go).
	if err := rs.models.checkReference(ctx, cfg); err != nil {
		return err
	}
	if schemaRef != "" {
		return rs.schemas.Resolve(ctx, cfg, schemaRef)
	}
	return nil
}

// MaxRunDocuments bounds the documents of one run.
const MaxRunDocuments = 100_000

// RunRequest is a new version to run: the extraction it belongs to, its
// settings, an optional schema reference ("NAME" or "NAME@V") and the
// documents.
type RunRequest struct {
	Extraction  string
	Config      extract.Config
	SchemaRef   string
	DocumentIDs []int
	Note        string
}

// NewRun checks a request and creates its version, queued; Start or Run
// executes it. A missing name or document and settings Prepare refuses
// are invalid errors. The returned config is the one stored, defaults
// filled in, also when the request is refused.
func (rs *Runs) NewRun(ctx context.Context, req RunRequest) (record.Version, extract.Config, error) {
	cfg := req.Config
	name := strings.TrimSpace(req.Extraction)
	if name == "" {
		return record.Version{}, cfg, extract.Errorf(extract.KindInvalid, "give the extraction a name")
	}
	// The same document twice (two identical files are stored once) runs
	// once.
	if len(req.DocumentIDs) > MaxRunDocuments {
		return record.Version{}, cfg, extract.Errorf(extract.KindInvalid,
			"%d documents in one run: at most %d (split the corpus into several extractions)", len(req.DocumentIDs), MaxRunDocuments)
	}
	var ids []int
	seen := make(map[int]bool, len(req.DocumentIDs))
	for _, id := range req.DocumentIDs {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return record.Version{}, cfg, extract.Errorf(extract.KindInvalid, "pick at least one document")
	}
	if err := rs.Prepare(ctx, &cfg, req.SchemaRef); err != nil {
		return record.Version{}, cfg, err
	}
	if err := rs.pipe.checkTables(ctx, cfg, ids); err != nil {
		return record.Version{}, cfg, err
	}
	v, err := rs.store.NewVersion(ctx, name, cfg, ids, strings.TrimSpace(req.Note))
	return v, cfg, err
}

// checkProvider refuses a config whose model provider is missing or not
// configured, before a version is created for it.
func (m *Models) checkProvider(cfg extract.Config) error {
	needsModel := cfg.Strategy == extract.StrategyTuple || cfg.Strategy == extract.StrategySchema
	switch {
	case !slices.Contains(extract.Providers, cfg.Provider) && cfg.Provider != "":
		return extract.Errorf(extract.KindInvalid, "unknown provider %q (use gemini, openai or none)", cfg.Provider)
	case extract.Offline(cfg.Provider):
		if needsModel {
			return extract.Errorf(extract.KindInvalid, "strategy %s needs a model provider: set GEMINI_API_KEY or OPENAI_BASE_URL, or use nlp offline", cfg.Strategy)
		}
		if cfg.ModelReports() {
			return extract.Errorf(extract.KindInvalid, "reports model needs a model provider: set GEMINI_API_KEY or OPENAI_BASE_URL and choose gemini or openai, or write the reports offline")
		}
	case !m.providers.Has(cfg.Provider):
		return extract.Errorf(extract.KindInvalid, "the %s provider needs %s", cfg.Provider, needs(cfg.Provider))
	}
	return nil
}
