package app

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// Workspaces keep one team's documents, schemas, extractions, jobs and
// everything derived from them (vectors, communities, indexes) apart
// from every other team's. Each workspace is an App over a database of
// its own (store.Options.Workspace: an SQLite file under workspaces/, or
// a PostgreSQL schema), so scoping is the store's, not each query's: a
// request, command or job that holds one workspace's App cannot name a
// row of another. The main database is the default workspace; it also
// holds the people, their tokens, sessions and memberships, the list of
// workspaces and the audit log, which every workspace's App shares
// (Accounts).

// site is what every App of one server shares: the main App (the
// default workspace), the other workspaces' Apps opened so far, and the
// job workers each of them runs.
type site struct {
	opts Options
	main *App

	mu   sync.Mutex
	apps map[string]*App
	// workerCtx and worker, once StartWorker ran on the main App, start
	// the same workers on every workspace opened since.
	workerCtx context.Context
	worker    *WorkerOptions
	closed    bool
}

// Name is the workspace the App works in.
func (a *App) Name() string { return a.workspace }

// Workspace returns the App of workspace name ("" or "default": the main
// App), opening its database on first use. A name that was never added
// is not found.
func (a *App) Workspace(ctx context.Context, name string) (*App, error) {
	s := a.site
	if name == "" || name == record.DefaultWorkspace {
		return s.main, nil
	}
	s.mu.Lock()
	w, ok := s.apps[name]
	s.mu.Unlock()
	if ok {
		return w, nil
	}
	known, err := s.main.store.HasWorkspace(ctx, name)
	if err != nil {
		return nil, err
	}
	if !known {
		return nil, extract.Errorf(extract.KindNotFound, "workspace %s not found", name)
	}
	return s.open(ctx, name)
}

// open opens a known workspace's App once; a second caller waits for
// the first's.
func (s *site) open(ctx context.Context, name string) (*App, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.apps[name]; ok {
		return w, nil
	}
	if s.closed {
		return nil, extract.Errorf(extract.KindUnavailable, "the server is shutting down")
	}
	st, err := store.Open(ctx, store.Options{URL: s.opts.URL, DataDir: s.opts.DataDir, Workspace: name})
	if err != nil {
		return nil, err
	}
	main := s.main
	// Accounts and the model providers' clients, limits and loaded
	// models are the server's, shared by every workspace.
	w := newAppIn(st, main.log.With("workspace", name), main.Providers(), main, name)
	if err := w.EnsureDefaults(ctx); err != nil {
		st.Close()
		return nil, err
	}
	if s.worker != nil {
		if _, err := w.Runs.StartWorker(s.workerCtx, *s.worker); err != nil {
			st.Close()
			return nil, err
		}
		// Not the request's: its end must not stop the resuming.
		if err := w.Runs.Resume(context.WithoutCancel(ctx)); err != nil {
			w.log.Error("resume unfinished extractions", "error", err)
		}
	}
	s.apps[name] = w
	return w, nil
}

// OpenWorkspaces opens every workspace's App, so a serving or worker
// process runs (and resumes) the jobs of each.
func (a *App) OpenWorkspaces(ctx context.Context) error {
	names, err := a.site.main.store.Workspaces(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		if _, err := a.site.open(ctx, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// WatchWorkspaces opens, every period until ctx ends, the workspaces
// added since (by another process: kgstudio workspace add, another
// replica's admin page), so their jobs run here too.
func (a *App) WatchWorkspaces(ctx context.Context, period time.Duration) {
	every(ctx, period, func() {
		if err := a.OpenWorkspaces(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("open workspaces", "error", err)
		}
	})
}

// workersStarted records that the main App runs job workers, and starts
// the same on every workspace opened so far (and, through open, on every
// one opened later).
func (s *site) workersStarted(ctx context.Context, o WorkerOptions) error {
	s.mu.Lock()
	s.workerCtx, s.worker = ctx, &o
	// Those opened from now on start their own (open).
	apps := make([]*App, 0, len(s.apps))
	for _, w := range s.apps {
		apps = append(apps, w)
	}
	s.mu.Unlock()
	var errs []error
	for _, w := range apps {
		if _, err := w.Runs.StartWorker(ctx, o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// close stops and closes every workspace's App (the main one is its
// caller's to close).
func (s *site) close() error {
	s.mu.Lock()
	s.closed = true
	apps := s.apps
	s.apps = map[string]*App{}
	s.mu.Unlock()
	var errs []error
	for _, w := range apps {
		errs = append(errs, w.closeOwn())
	}
	return errors.Join(errs...)
}

// AddWorkspace adds a workspace (its database is made on first use).
func (s *Accounts) AddWorkspace(ctx context.Context, name string) error {
	if err := record.CheckWorkspaceName(name); err != nil {
		return extract.Wrap(extract.KindInvalid, err, "add workspace")
	}
	if name == record.DefaultWorkspace {
		return extract.Errorf(extract.KindConflict, "workspace %s exists: it is the main database's", name)
	}
	err := s.st.AddWorkspace(ctx, name)
	s.changed()
	return err
}

// Workspaces lists every workspace, the default first and the rest by
// name (as read within anyTTL).
func (s *Accounts) Workspaces(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	if !s.spacesAt.IsZero() && s.now().Sub(s.spacesAt) < anyTTL {
		out := slices.Clone(s.spaces)
		s.mu.Unlock()
		return out, nil
	}
	s.mu.Unlock()
	names, err := s.st.Workspaces(ctx)
	if err != nil {
		return nil, err
	}
	all := append([]string{record.DefaultWorkspace}, names...)
	s.mu.Lock()
	s.spaces, s.spacesAt = all, s.now()
	s.mu.Unlock()
	return slices.Clone(all), nil
}

// SetMember makes a person a member of a workspace with a role there
// (no higher than their own), or, with role "", ends their membership.
// Their sessions and tokens act with it from their next request.
func (s *Accounts) SetMember(ctx context.Context, name, ws string, role record.Role) error {
	if err := s.known(ctx, ws); err != nil {
		return err
	}
	if role != "" {
		if _, err := record.ParseRole(string(role)); err != nil {
			return extract.Wrap(extract.KindInvalid, err, "membership of %s", name)
		}
	}
	return s.st.SetMembership(ctx, name, ws, role)
}

// known is nil for the default workspace and every workspace added, a
// not-found error for others.
func (s *Accounts) known(ctx context.Context, ws string) error {
	if ws == record.DefaultWorkspace {
		return nil
	}
	ok, err := s.st.HasWorkspace(ctx, ws)
	if err == nil && !ok {
		err = extract.Errorf(extract.KindNotFound, "workspace %s not found", ws)
	}
	return err
}
