// Package store persists kgstudio's schemas, documents, extractions and
// graphs through the generated Ent client, on embedded SQLite or PostgreSQL.
// It converts between ent rows and the extract domain types.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	_ "modernc.org/sqlite"             // SQLite driver "sqlite"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Store is the persistence layer. It is safe for concurrent use.
type Store struct {
	client *ent.Client
	db     *sql.DB
	// Dialect is the database in use: "sqlite3" or "postgres".
	Dialect string
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// stmts holds statements prepared once per store (SQLite only).
	stmts *stmtCache
	// writeMu serialises write transactions on SQLite, which has one
	// writer at a time; on PostgreSQL it is unused.
	writeMu sync.Mutex
	// pgPool (PostgreSQL) holds the connections of the provider limits
	// and run locks, which keep a session each (limits.go, jobs.go); the
	// job queue runs on db.
	pgPool *pgxpool.Pool
	// runLocks holds a mutex per version on SQLite (see LockVersion).
	runLocks sync.Map
	// merged counts the rows merged since the last reclaim.
	merged atomic.Int64
	// lockClass is the class of the version run locks' advisory keys
	// on PostgreSQL: each workspace's schema has its own, so version 1
	// of one workspace and version 1 of another lock apart.
	lockClass int32
}

// Options configure Open.
type Options struct {
	// URL is a database URL. Empty means an SQLite file in DataDir;
	// postgres:// or postgresql:// selects PostgreSQL; sqlite:PATH or
	// file:PATH selects an explicit SQLite file.
	URL string
	// DataDir holds the default SQLite file.
	DataDir string
	// Workspace, when set and not the default, opens that workspace's
	// database beside the main one: on SQLite the file of the same
	// name under workspaces/NAME/ next to the main file, on PostgreSQL
	// the schema kgs_ws_NAME of the same database (created as needed).
	// A workspace's rows live there alone, so no query of another
	// workspace's store can reach them.
	Workspace string
}

// DefaultSQLiteFile is the name of the SQLite database in the data dir.
const DefaultSQLiteFile = "kgstudio.db"

// Open connects, pings and migrates the database. Errors name the problem
// with any password masked.
func Open(ctx context.Context, opts Options) (*Store, error) {
	drv, dsn, dia, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open(drv, dsn)
	if err != nil {
		return nil, extract.Wrap(extract.KindUnavailable, err, "open database %s", MaskURL(opts.URL))
	}
	if dia == dialect.SQLite {
		// One writer at a time; readers go on in WAL mode. The job
		// queue's own work (fetching, completing, electing a leader)
		// takes a few connections too.
		db.SetMaxOpenConns(12)
	} else {
		db.SetMaxOpenConns(16)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ping(pctx, db, dia); err != nil {
		db.Close()
		return nil, extract.Wrap(extract.KindUnavailable, errors.New(maskErr(rootCause(err).Error(), opts.URL)), "cannot reach database %s", MaskURL(describe(opts, dsn)))
	}
	if dia == dialect.Postgres && opts.Workspace != "" && opts.Workspace != record.DefaultWorkspace {
		if err := createSchema(ctx, db, pgSchema(opts.Workspace)); err != nil {
			db.Close()
			return nil, err
		}
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dia, db)))
	s := &Store{client: client, db: db, Dialect: dia, Now: time.Now, lockClass: versionLockClass(opts.Workspace)}
	if dia == dialect.SQLite {
		s.stmts = newStmtCache(db)
	}
	// Processes that open one SQLite file at once migrate it one after
	// the other (PostgreSQL's migrations take an advisory lock instead).
	unlock := func() {}
	if path := sqlitePath(dsn); dia == dialect.SQLite && path != ":memory:" {
		lctx, cancel := context.WithTimeout(ctx, time.Minute)
		unlock, err = lockFile(lctx, path+".lock")
		cancel()
		if err != nil {
			client.Close()
			return nil, extract.Wrap(extract.KindUnavailable, err, "lock %s to migrate it", path)
		}
	}
	err = s.Migrate(ctx)
	if err == nil {
		if err = s.openRiver(ctx, dsn); err != nil {
			s.closeRiver()
		}
	}
	unlock()
	if err != nil {
		client.Close()
		return nil, err
	}
	return s, nil
}

// migrateMu serialises migrations within the process: Ent's migration
// fills in its package-level table descriptions as it goes, so two stores
// opened at once (tests, several databases) must not migrate together.
var migrateMu sync.Mutex

// Migrate brings the schema up to date. Ent's automatic migration only adds
// tables, columns and indexes; it never drops data. Two processes opening
// a new SQLite file at once (an extract and a version show started
// together) take turns (Open locks the file's NAME.lock); where the
// system has no such lock, both plan the same tables, and the one whose
// plan the other's commit made stale tries again with the schema as it
// now stands.
func (s *Store) Migrate(ctx context.Context) error {
	migrateMu.Lock()
	defer migrateMu.Unlock()
	if err := raceRetry(ctx, func() error { return s.client.Schema.Create(ctx) }); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "migrate database")
	}
	if err := s.migrateMentions(ctx); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "migrate database: mentions")
	}
	return s.backfillDegrees(ctx)
}

// raceRetry runs a migration again while it fails because another
// process created the same table or index first (SQLite has no lock
// around a schema change's plan), a few times.
func raceRetry(ctx context.Context, migrate func() error) error {
	var err error
	for range 8 {
		if err = migrate(); err == nil || !lostRace(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// lostRace says a migration failed because another process made the same
// change first: a table or index that already exists, River's record of a
// migration step that the other process wrote, or an index the other
// process's later step dropped before this one could.
func lostRace(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "already exists") || strings.Contains(msg, "constraint failed: river_migration") ||
		strings.Contains(msg, "no such index")
}

// Close releases the prepared statements and the database.
func (s *Store) Close() error {
	if s.stmts != nil {
		s.stmts.close()
	}
	s.closeRiver()
	return s.client.Close()
}

// Ping checks the database connection.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "database unreachable")
	}
	return nil
}

func resolve(opts Options) (driver, dsn, dia string, err error) {
	driver, dsn, dia, err = resolveMain(opts)
	if err != nil || opts.Workspace == "" || opts.Workspace == record.DefaultWorkspace {
		return driver, dsn, dia, err
	}
	if err := record.CheckWorkspaceName(opts.Workspace); err != nil {
		return "", "", "", extract.Wrap(extract.KindInvalid, err, "open workspace")
	}
	if dia == dialect.Postgres {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", "", "", extract.Errorf(extract.KindInvalid, "malformed database URL %s", MaskURL(dsn))
		}
		q := u.Query()
		q.Set("search_path", pgSchema(opts.Workspace))
		u.RawQuery = q.Encode()
		return driver, u.String(), dia, nil
	}
	main := sqlitePath(dsn)
	if main == ":memory:" {
		return "", "", "", extract.Errorf(extract.KindInvalid, "an in-memory database has no workspaces")
	}
	dir := filepath.Join(filepath.Dir(main), "workspaces", opts.Workspace)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", "", extract.Wrap(extract.KindInvalid, err, "cannot create directory %s", dir)
	}
	return driver, sqliteDSN(filepath.Join(dir, filepath.Base(main))), dia, nil
}

// pgSchema is the PostgreSQL schema of a workspace.
func pgSchema(ws string) string { return "kgs_ws_" + ws }

// createSchema creates a workspace's PostgreSQL schema unless it exists
// (two processes may create it at once: the loser finds it there).
func createSchema(ctx context.Context, db *sql.DB, name string) error {
	_, err := db.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS "`+name+`"`)
	if err != nil {
		var exists bool
		if qerr := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", name).Scan(&exists); qerr == nil && exists {
			return nil
		}
		return extract.Wrap(extract.KindUnavailable, err, "create schema %s", name)
	}
	return nil
}

// versionLockClass is the advisory lock class of a workspace's version
// run locks: "kg" for the default workspace (as before workspaces),
// another class per workspace.
func versionLockClass(ws string) int32 {
	if ws == "" || ws == record.DefaultWorkspace {
		return 0x6b67 // "kg"
	}
	h := fnv.New32a()
	h.Write([]byte("kgstudio workspace " + ws))
	return int32(h.Sum32() | 1<<16) // never "kg"
}

func resolveMain(opts Options) (driver, dsn, dia string, err error) {
	u := strings.TrimSpace(opts.URL)
	switch {
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		if _, perr := url.Parse(u); perr != nil {
			return "", "", "", extract.Errorf(extract.KindInvalid, "malformed database URL %s", MaskURL(u))
		}
		return "pgx", u, dialect.Postgres, nil
	case u == "":
		if opts.DataDir == "" {
			return "", "", "", extract.Errorf(extract.KindInvalid, "no database URL and no data dir")
		}
		if err := os.MkdirAll(opts.DataDir, 0o755); err != nil {
			return "", "", "", extract.Wrap(extract.KindInvalid, err, "cannot create data dir %s", opts.DataDir)
		}
		return "sqlite", sqliteDSN(filepath.Join(opts.DataDir, DefaultSQLiteFile)), dialect.SQLite, nil
	case strings.HasPrefix(u, "sqlite:"), strings.HasPrefix(u, "file:"):
		p := strings.TrimPrefix(strings.TrimPrefix(u, "sqlite:"), "file:")
		p = strings.TrimPrefix(p, "//")
		if i := strings.IndexByte(p, '?'); i >= 0 {
			p = p[:i]
		}
		if p != ":memory:" {
			if dir := filepath.Dir(p); dir != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return "", "", "", extract.Wrap(extract.KindInvalid, err, "cannot create directory %s", dir)
				}
			}
		}
		return "sqlite", sqliteDSN(p), dialect.SQLite, nil
	default:
		return "", "", "", extract.Errorf(extract.KindInvalid, "unsupported database URL %s (use postgres://... or sqlite:PATH)", MaskURL(u))
	}
}

// ping checks the connection. On SQLite a connection's first statements
// switch the file to WAL, which fails at once (no busy wait) while another
// process creates the file's tables: the ping is tried again until ctx
// ends.
func ping(ctx context.Context, db *sql.DB, dia string) error {
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || dia != dialect.SQLite || !strings.Contains(err.Error(), "SQLITE_BUSY") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// sqliteDSN is the DSN of a SQLite file. The busy timeout comes first: the
// pragmas run in order when a connection opens, and switching a new file to
// WAL while another process creates its tables must wait, not fail.
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

func describe(opts Options, dsn string) string {
	if opts.URL != "" {
		return opts.URL
	}
	return sqlitePath(dsn)
}

// sqlitePath is the file of a SQLite DSN (see sqliteDSN).
func sqlitePath(dsn string) string {
	return strings.SplitN(strings.TrimPrefix(dsn, "file:"), "?", 2)[0]
}

// userinfo matches the user:password@ part of a URL that may not parse.
var userinfo = regexp.MustCompile(`(://[^:/@\s]*):[^@\s]*@`)

// MaskURL hides the password of a database URL, even a malformed one.
func MaskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return userinfo.ReplaceAllString(raw, "$1:xxxxx@")
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// rootCause is the innermost error of a chain: drivers repeat the
// connection details at every level.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if multi, ok := err.(interface{ Unwrap() []error }); ok && len(multi.Unwrap()) > 0 {
			next = multi.Unwrap()[0]
		}
		if next == nil {
			return err
		}
		err = next
	}
}

func maskErr(msg, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return msg
	}
	if p, ok := u.User.Password(); ok && p != "" {
		msg = strings.ReplaceAll(msg, p, "xxxxx")
	}
	return msg
}

// translate maps ent errors onto domain errors.
func translate(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case ent.IsNotFound(err):
		return extract.Errorf(extract.KindNotFound, "%s not found", what)
	case ent.IsConstraintError(err):
		return extract.Wrap(extract.KindConflict, err, "%s conflicts with an existing one", what)
	case ent.IsValidationError(err):
		return extract.Wrap(extract.KindInvalid, err, "%s is invalid", what)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case IsUnavailable(err):
		return extract.Wrap(extract.KindUnavailable, err, "the database is unavailable; try again shortly")
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}
