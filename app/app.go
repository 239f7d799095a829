// Package app is kgstudio's application layer: queuing, resuming and
// canceling extraction runs as jobs any worker process takes (jobs.go);
// model providers, limits and prices; gold imports; comparisons; schema references; the first-start
// sample. The web handlers and the CLI both call it: a handler binds,
// calls the app and renders; a command parses flags, calls the app and
// prints. It builds on extract (the domain and the pipeline) and store
// (persistence), and knows nothing of HTTP.
package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
)

// App is what the product does, for the web server and the CLI alike:
// the composition root of one workspace. It opens the workspace's
// database, builds the services over it and hands them out as its
// fields (Runs runs extractions, Queries answers questions, Comparisons
// compares versions ...); its own methods are about the App itself
// (workspaces, health, the first-start sample, closing).
type App struct {
	// Versions, Graphs, Documents and Schemas read, add and remove what
	// the store holds (catalog.go).
	Versions  *Versions
	Graphs    *Graphs
	Documents *Documents
	Schemas   *Schemas
	// Curation finds duplicates, merges, edits and imports graphs;
	// Queries answers questions over a version (query.go, node.go).
	Curation *Curation
	Queries  *Queries
	// Comparisons compares two versions (compare.go); Memory reads a
	// dialogue run's timeline and fact times (timeline.go, times.go).
	Comparisons *Comparisons
	Memory      *Memory
	// Scores scores an extraction's versions on its question set and
	// their graphs (scores.go).
	Scores *Scores
	// Accounts holds the people who may sign in, their tokens and
	// sessions, and the audit log (accounts.go).
	Accounts *Accounts
	// Layouts reads and makes versions' stored layouts (layout.go).
	Layouts *Layouts

	// Runs queues, runs and waits for extraction runs (services.go);
	// Models builds the model clients, extractors and embedders.
	Runs   *Runs
	Models *Models

	store *store.Store
	log   *slog.Logger
	// site is what the Apps of every workspace share; workspace is the
	// one this App works in (workspaces.go).
	site      *site
	workspace string
	// heavy admits the requests that load whole graphs (comparisons,
	// exports, imports) a few at a time (limits_heavy.go).
	heavy *Gate
	// Communities detects, stores and reads versions' communities.
	Communities *Communities
	// vectors is the part of a run that queries and curation read too.
	vectors *vectorizer
}

// newApp builds the main application over a store (Open opens one).
func newApp(st *store.Store, log *slog.Logger, p Providers) *App {
	return newAppIn(st, log, p, nil, "")
}

// newAppIn builds the application over a store: the main App when main
// is nil, else the App of workspace name, which shares main's site,
// accounts and model providers.
func newAppIn(st *store.Store, log *slog.Logger, p Providers, main *App, name string) *App {
	a := &App{store: st, log: log, heavy: newHeavyGate(),
		Versions: &Versions{st: st}, Graphs: &Graphs{st}, Documents: &Documents{st}, Schemas: &Schemas{st: st}}
	shared, gates := newModels(), st
	if main == nil {
		a.site, a.workspace = &site{main: a, apps: map[string]*App{}}, record.DefaultWorkspace
		a.Accounts = &Accounts{st: st, now: time.Now}
	} else {
		a.site, a.workspace, a.Accounts = main.site, name, main.Accounts
		shared, gates = main.Models.models, main.store
	}
	a.Queries = &Queries{store: st, log: log, corpora: lru.New[corpusKey, *queryCorpus](corpusCacheSize),
		indexes: lru.New[indexKey, *query.VectorIndex](vectorCacheSize)}
	a.Comparisons = &Comparisons{store: st, heavy: a.heavy,
		cache: lru.NewWeighted[compareKey, Comparison](compareCacheEntries, compareCacheElements, comparisonSize)}
	a.Memory = &Memory{store: st, keepsTimes: lru.New[timesKey, bool](maxTimesCache)}
	a.Scores = &Scores{store: st, log: log, cache: lru.New[scoreKey, VersionScores](scoreCacheSize)}
	a.Layouts = &Layouts{store: st, log: log, busy: map[int]bool{}}
	a.newServices(p, shared, gates)
	return a
}

// Options say where the application's database is.
type Options struct {
	// URL is a database URL (postgres://... or sqlite:PATH); empty for the
	// SQLite file in DataDir.
	URL     string
	DataDir string
	// Workspace is the workspace to work in ("" for the default).
	Workspace string
}

// Open opens the database o names (creating and migrating it as needed)
// and builds the application over it, in the workspace o names; Close
// closes it.
func Open(ctx context.Context, o Options, log *slog.Logger, p Providers) (*App, error) {
	st, err := store.Open(ctx, store.Options{URL: o.URL, DataDir: o.DataDir})
	if err != nil {
		return nil, err
	}
	a := newApp(st, log, p)
	a.site.opts = o
	if o.Workspace == "" || o.Workspace == record.DefaultWorkspace {
		return a, nil
	}
	w, err := a.Workspace(ctx, o.Workspace)
	if err != nil {
		a.Close()
		return nil, err
	}
	return w, nil
}

// Close stops the workers StartWorker started in every workspace, if
// Shutdown has not (their running jobs are canceled, see Shutdown), and
// closes every workspace's database: workers left polling a closed
// database only fail.
func (a *App) Close() error {
	err := a.site.close()
	return errors.Join(err, a.site.main.closeOwn())
}

// closeOwn stops this App's workers and closes its database alone.
func (a *App) closeOwn() error {
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
	a.Runs.Shutdown(ctx)
	return a.store.Close()
}

// Database names the database the application runs on: sqlite3 or
// postgres.
func (a *App) Database() string { return a.store.Dialect }

// Health pings the database and names it.
func (a *App) Health(ctx context.Context) (string, error) {
	return a.Database(), a.store.Ping(ctx)
}

// Workers is how many job workers StartWorker runs in this process (0
// under serve --no-worker: the process only queues runs).
func (rs *Runs) Workers() int { return rs.runs.workerCount() }

// workerCount is how many sets of job workers run in this process.
func (s *runs) workerCount() int {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return s.workers
}

// IsDiskFull reports whether err says the database's disk is full.
func IsDiskFull(err error) bool { return store.IsDiskFull(err) }

// IsUnavailable reports whether err says the database cannot be reached.
func IsUnavailable(err error) bool { return store.IsUnavailable(err) }

// Providers returns the model-provider settings (keys included: never
// render them).
func (a *App) Providers() Providers { return a.Models.providers }
