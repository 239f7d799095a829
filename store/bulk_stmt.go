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

// get returns the statement for q, preparing it the first time.
func (c *stmtCache) get(ctx context.Context, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.m[q] = st
	return st, nil
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
// statement on SQLite, and as it is on PostgreSQL.
func (b *writeTx) execCached(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if b.stmts == nil {
		return b.ExecContext(ctx, q, args...)
	}
	st, err := b.stmts.get(ctx, q)
	if err != nil {
		return nil, err
	}
	return b.StmtContext(ctx, st).ExecContext(ctx, args...)
}
