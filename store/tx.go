package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/extract"
)

// Every write transaction of the store goes through inTx. SQLite has one
// writer at a time: the store serialises its own writers with writeMu, and
// the connection string begins transactions IMMEDIATE (see sqliteDSN), so
// a transaction holds the write lock from its first statement and other
// processes wait for it. PostgreSQL runs transactions side by side at READ
// COMMITTED.

// writeTx is one write transaction: raw statements through Tx, and an Ent
// client over the same transaction for everything else.
type writeTx struct {
	*sql.Tx
	dialect string
	client  *ent.Client
	// stmts holds the store's prepared statements (SQLite only).
	stmts *stmtCache
	// conn is the transaction's connection (PostgreSQL only), and copy
	// lets large batches try COPY first (see bulk_copy.go).
	conn *sql.Conn
	copy bool
	// allNew says that no row the transaction writes exists yet (the
	// rows are unique and their version was empty once the transaction
	// held its lock), so SQLite inserts them without ON CONFLICT.
	allNew bool
	// unprepared are the statements the transaction ran that the store
	// prepares once it has ended (SQLite, see execCached).
	unprepared []string
}

// Client returns an Ent client that runs inside the transaction.
func (tx *writeTx) Client() *ent.Client {
	if tx.client == nil {
		tx.client = ent.NewClient(ent.Driver(txConn{Conn: entsql.Conn{ExecQuerier: tx.Tx}, dialect: tx.dialect}))
	}
	return tx.client
}

// txConn is an Ent driver over an open transaction: the builders that ask
// for a transaction of their own get a no-op one, as with ent.Tx.
type txConn struct {
	entsql.Conn
	dialect string
}

func (c txConn) Dialect() string                        { return c.dialect }
func (c txConn) Close() error                           { return nil }
func (c txConn) Tx(context.Context) (dialect.Tx, error) { return dialect.NopTx(c), nil }

// inTx runs fn in one write transaction and commits when fn succeeds; when
// fn fails, or the commit is never reached, the transaction rolls back. A
// transient failure (a terminated connection, a serialization failure, a
// locked SQLite file) runs fn again in a fresh transaction, a few times.
func (s *Store) inTx(ctx context.Context, fn func(tx *writeTx) error) error {
	return retryWrite(ctx, func() error { return s.inTxOnce(ctx, 0, 0, fn) })
}

// inTxBulk is inTx for a write of one version's graph rows, which checks
// first that the version exists. On SQLite a transaction with cacheKiB
// above the default (a large batch) runs on a connection of its own with a
// page cache of cacheKiB, so that the batch rewrites its index pages in
// memory and writes each once at commit instead of spilling them to the
// WAL; the connection returns to SQLite's default cache afterwards. That
// connection also stops enforcing foreign keys until the transaction ends,
// and the version check stands in for them: the version reference is the
// only foreign key of the graph tables, and SQLite's write lock keeps the
// version from being deleted before the commit. An immediate foreign key makes SQLite keep a
// statement journal (a copy of every page a statement changes, written to
// a temporary file) for each multi-row INSERT, so that a violation found
// at the statement's end can undo it; with random keys a 2,000-row
// statement changes up to as many index pages, and writing their copies
// grew faster than the data (a quarter of a 100k-node build's time).
// Together with INSERT OR ROLLBACK for new rows (see bulkTable.exec) no
// statement needs that journal.
func (s *Store) inTxBulk(ctx context.Context, cacheKiB, versionID int, fn func(tx *writeTx) error) error {
	return retryWrite(ctx, func() error { return s.inTxOnce(ctx, cacheKiB, versionID, fn) })
}

// sqliteDefaultCacheKiB is SQLite's default page cache (cache_size -2000).
const sqliteDefaultCacheKiB = 2000

// write runs fn on an Ent client inside one write transaction (see inTx),
// so single-statement writes take the same write lock as the others.
func (s *Store) write(ctx context.Context, fn func(c *ent.Client) error) error {
	return s.inTx(ctx, func(tx *writeTx) error { return fn(tx.Client()) })
}

// inTxOnce runs one attempt of inTx or inTxBulk (bulkVersion > 0).
func (s *Store) inTxOnce(ctx context.Context, cacheKiB, bulkVersion int, fn func(tx *writeTx) error) error {
	tx := &writeTx{dialect: s.Dialect, stmts: s.stmts}
	if s.stmts != nil {
		// Deferred first, so it runs last: with no lock held.
		defer func() { s.stmts.prepare(context.WithoutCancel(ctx), tx.unprepared) }()
	}
	if s.Dialect == dialect.SQLite {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
	}
	var err error
	if s.Dialect == dialect.Postgres {
		// A connection of its own, so that COPY can reach the driver.
		if tx.conn, err = s.db.Conn(ctx); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer tx.conn.Close()
		tx.Tx, err = tx.conn.BeginTx(ctx, nil)
	} else if cacheKiB > sqliteDefaultCacheKiB {
		var conn *sql.Conn
		if conn, err = s.db.Conn(ctx); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", cacheKiB)); err != nil {
			return fmt.Errorf("size page cache: %w", err)
		}
		// Back to the default before the connection returns to the pool
		// (after the commit: deferred calls run last first).
		defer restorePragma(ctx, conn, fmt.Sprintf("PRAGMA cache_size = -%d", sqliteDefaultCacheKiB))
		if bulkVersion > 0 {
			// Outside a transaction: SQLite ignores the pragma inside one.
			if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
				return fmt.Errorf("begin: %w", err)
			}
			defer restorePragma(ctx, conn, "PRAGMA foreign_keys = ON")
		}
		tx.Tx, err = conn.BeginTx(ctx, nil)
	} else {
		tx.Tx, err = s.db.BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() // a no-op after Commit
	if bulkVersion > 0 {
		if err := versionExists(ctx, tx, bulkVersion); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// versionExists checks, within a transaction, that a version exists.
func versionExists(ctx context.Context, tx *writeTx, versionID int) error {
	var one int
	switch err := tx.QueryRowContext(ctx, tx.rebind(`SELECT 1 FROM extraction_versions WHERE id = ?`), versionID).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return extract.Errorf(extract.KindNotFound, "version %d not found", versionID)
	case err != nil:
		return fmt.Errorf("check version: %w", err)
	}
	return nil
}

// restorePragma sets a connection back to the store's settings once a
// transaction that changed them has ended (deferred calls run last first,
// so after the commit or rollback). A connection that cannot be set back
// is closed rather than returned to the pool.
func restorePragma(ctx context.Context, conn *sql.Conn, pragma string) {
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), pragma); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
