package store

import (
	"context"
	"database/sql"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
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
	return retryWrite(ctx, func() error { return s.inTxOnce(ctx, 0, fn) })
}

// inTxCache is inTx with, on SQLite, a page cache of cacheKiB for the
// transaction's connection, so that a large batch rewrites its index pages
// in memory and writes each once at commit instead of spilling them to the
// WAL. The connection returns to SQLite's default cache afterwards.
func (s *Store) inTxCache(ctx context.Context, cacheKiB int, fn func(tx *writeTx) error) error {
	return retryWrite(ctx, func() error { return s.inTxOnce(ctx, cacheKiB, fn) })
}

// sqliteDefaultCacheKiB is SQLite's default page cache (cache_size -2000).
const sqliteDefaultCacheKiB = 2000

// write runs fn on an Ent client inside one write transaction (see inTx),
// so single-statement writes take the same write lock as the others.
func (s *Store) write(ctx context.Context, fn func(c *ent.Client) error) error {
	return s.inTx(ctx, func(tx *writeTx) error { return fn(tx.Client()) })
}

func (s *Store) inTxOnce(ctx context.Context, cacheKiB int, fn func(tx *writeTx) error) error {
	if s.Dialect == dialect.SQLite {
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
	}
	tx := &writeTx{dialect: s.Dialect, stmts: s.stmts}
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
		defer func() {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA cache_size = -%d", sqliteDefaultCacheKiB))
		}()
		tx.Tx, err = conn.BeginTx(ctx, nil)
	} else {
		tx.Tx, err = s.db.BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
