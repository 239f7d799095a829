package store

import (
	"context"
	"database/sql"
	"sync"
)

// SQLite prepares a statement again on every execution, and parsing a
// multi-row insert costs about as much as a fifth of running it. The
// statements the bulk writes run most (full batches, the sink's fixed
// statements) are therefore prepared once per store and reused in each
// transaction. PostgreSQL's driver keeps prepared statements by text on its
// own.

// stmtCache holds the prepared statements of one store.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}}
}

// get returns the statement prepared for q, if it is.
func (c *stmtCache) get(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[q]
}

// prepare prepares the statements of qs not prepared yet. It takes a
// connection of the pool, so it runs outside any transaction: a
// transaction that waited for a connection while it held SQLite's write
// lock would wait for the connections waiting for that lock.
func (c *stmtCache) prepare(ctx context.Context, qs []string) {
	for _, q := range qs {
		c.mu.Lock()
		_, ok := c.m[q]
		c.mu.Unlock()
		if ok {
			continue
		}
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			continue // prepared on its connection at each use, as before
		}
		c.mu.Lock()
		if _, ok := c.m[q]; ok {
			_ = st.Close()
		} else {
			c.m[q] = st
		}
		c.mu.Unlock()
	}
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		_ = st.Close()
		delete(c.m, q)
	}
}

// execCached runs q in the transaction through the store's prepared
// statement on SQLite, and as it is on PostgreSQL. A statement not
// prepared yet runs as it is and is prepared once the transaction has
// ended (see stmtCache.prepare).
func (b *writeTx) execCached(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := b.cached(q); st != nil {
		return b.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return b.ExecContext(ctx, q, args...)
}

// queryRowCached is QueryRowContext through the store's prepared
// statement on SQLite (see execCached).
func (b *writeTx) queryRowCached(ctx context.Context, q string, args ...any) *sql.Row {
	if st := b.cached(q); st != nil {
		return b.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return b.QueryRowContext(ctx, q, args...)
}

// queryCached is QueryContext through the store's prepared statement on
// SQLite (see execCached).
func (b *writeTx) queryCached(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := b.cached(q); st != nil {
		return b.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return b.QueryContext(ctx, q, args...)
}

// cached returns the store's prepared statement for q, or nil (PostgreSQL,
// or not prepared yet: then it is once the transaction has ended).
func (b *writeTx) cached(q string) *sql.Stmt {
	if b.stmts == nil {
		return nil
	}
	if st := b.stmts.get(q); st != nil {
		return st
	}
	b.unprepared = append(b.unprepared, q)
	return nil
}
