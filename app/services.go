package app

import (
	"log/slog"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
)

// Runs queues, runs, waits for, resumes, retries and cancels a
// workspace's extraction runs, and starts the job workers that run them
// (run.go, queue.go, jobs_json.go, retry.go, grow.go, experiment.go,
// estimate.go). Its state is the runs of this process (runs); the queue
// and the pipeline a run goes through are its parts.
type Runs struct {
	store   *store.Store
	log     *slog.Logger
	models  *Models
	schemas *Schemas
	site    *site
	runs    *runs
	queue   *jobQueue
	pipe    *pipeline
}

// jobQueue puts a run's chunk and final jobs on the River queue, starts
// and stops the job workers and tells the callers of Runs.Wait how their
// versions move (queue.go).
type jobQueue struct {
	store *store.Store
	log   *slog.Logger
	runs  *runs
	pipe  *pipeline
}

// pipeline is what a run does between queuing and its end: it plans the
// tracks of a version's documents, extracts a chunk in a chunk job, and
// in the final job merges, vectorizes, detects communities, lays out and
// scores the version (run.go, tracks.go, chunkjob.go, summarize.go, rules.go,
// inject.go, chunklayer.go).
type pipeline struct {
	store       *store.Store
	log         *slog.Logger
	runs        *runs
	queue       *jobQueue
	models      *Models
	vectors     *vectorizer
	communities *Communities
	versions    *Versions
	documents   *Documents
	queries     *Queries
	layouts     *Layouts
	scores      *Scores
}

// Models builds a workspace's model clients, extractors and embedders
// over the providers the process was configured with (providers.go,
// vectorize.go). The clients, their limits and the loaded local models
// are every workspace's (models); the call and embedding caches are the
// workspace's database.
type Models struct {
	store     *store.Store
	providers Providers
	// models is what every workspace's Models share.
	models *models
	// gates is the main database, whose provider gates every
	// workspace's calls share.
	gates    *store.Store
	versions *Versions
	// mu guards embedders: one cached embedder per provider, over the
	// store's embedding cache.
	mu        sync.Mutex
	embedders map[string]extract.Embedder
}

// vectorizer embeds a version's chunks, nodes, edges and community
// reports and builds their search indexes (vectorize.go).
type vectorizer struct {
	store       *store.Store
	log         *slog.Logger
	models      *Models
	versions    *Versions
	communities *Communities
}

// Communities detects, stores and reads versions' communities, writes
// their reports and shows them (communities.go, community_members.go,
// reports.go).
type Communities struct {
	store  *store.Store
	log    *slog.Logger
	models *Models
	// heavy admits the views that load whole graphs a few at a time.
	heavy *Gate
}

// newServices builds a workspace's services over its store: p are the
// providers configured, shared what every workspace's Models share and
// gates the main database.
func (a *App) newServices(p Providers, shared *models, gates *store.Store) {
	st, log := a.store, a.log
	a.Models = &Models{store: st, providers: p, models: shared, gates: gates, versions: a.Versions}
	comm := &Communities{store: st, log: log, models: a.Models, heavy: a.heavy}
	vec := &vectorizer{store: st, log: log, models: a.Models, versions: a.Versions, communities: comm}
	state := &runs{jobDocs: lru.New[docKey, *cachedDoc](docCacheSize), jobRuns: lru.New[int, *jobRun](docCacheSize)}
	q := &jobQueue{store: st, log: log, runs: state}
	pipe := &pipeline{store: st, log: log, runs: state, queue: q, models: a.Models, vectors: vec, communities: comm,
		versions: a.Versions, documents: a.Documents, queries: a.Queries, layouts: a.Layouts, scores: a.Scores}
	q.pipe = pipe
	a.Runs = &Runs{store: st, log: log, models: a.Models, schemas: a.Schemas, site: a.site,
		runs: state, queue: q, pipe: pipe}
	a.vectors, a.Communities = vec, comm
	a.Curation = &Curation{store: st, log: log, heavy: a.heavy, vectors: vec, communities: comm,
		runs: a.Runs, layouts: a.Layouts, queries: a.Queries}
	// What the read services ask of the others.
	a.Versions.queries, a.Versions.runs = a.Queries, a.Runs
	a.Schemas.log, a.Schemas.models = log, a.Models
	qs := a.Queries
	qs.models, qs.vectors, qs.versions, qs.communities = a.Models, vec, a.Versions, comm
	a.Comparisons.communities, a.Layouts.communities = comm, comm
	sc := a.Scores
	sc.models, sc.queries, sc.comparisons, sc.curation, sc.documents, sc.communities = a.Models, a.Queries, a.Comparisons, a.Curation, a.Documents, comm
}
