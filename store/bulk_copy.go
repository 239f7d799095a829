package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// On PostgreSQL, a large batch of rows that are new (the usual case when a
// whole graph is written into a fresh version) goes in with COPY, which the
// server loads faster than INSERT ... ON CONFLICT. COPY cannot upsert, so
// it runs under a savepoint: when a row already exists the COPY fails with
// a unique violation, the savepoint is rolled back and the batch is upserted
// instead. Either way the batch ends as the upsert would leave it.

// copyMinRows is the smallest batch worth a COPY.
const copyMinRows = 1000

// errNoCopy reports a connection that cannot COPY (not pgx).
var errNoCopy = errors.New("connection does not support COPY")

// tryCopy writes the batch with COPY and reports whether it did; false with
// a nil error means some row exists already and nothing was written.
func (t bulkTable) tryCopy(ctx context.Context, b *writeTx, versionID, rows int, cols columns) (bool, error) {
	if _, err := b.ExecContext(ctx, "SAVEPOINT kg_bulk_copy"); err != nil {
		return false, err
	}
	names := make([]string, 0, len(t.cols)+1)
	names = append(names, "version_id")
	for _, c := range t.cols {
		names = append(names, strings.Trim(c, `"`))
	}
	err := b.conn.Raw(func(dc any) error {
		pc, ok := dc.(*stdlib.Conn)
		if !ok {
			return errNoCopy
		}
		_, err := pc.Conn().CopyFrom(ctx, pgx.Identifier{t.name}, names,
			&columnSource{versionID: int64(versionID), rows: rows, cols: cols, row: -1})
		return err
	})
	if err == nil {
		_, err = b.ExecContext(ctx, "RELEASE SAVEPOINT kg_bulk_copy")
		return err == nil, err
	}
	var pgErr *pgconn.PgError
	if !errors.Is(err, errNoCopy) && !(errors.As(err, &pgErr) && pgErr.Code == "23505") {
		return false, fmt.Errorf("copy: %w", err)
	}
	if _, rerr := b.ExecContext(ctx, "ROLLBACK TO SAVEPOINT kg_bulk_copy"); rerr != nil {
		return false, rerr
	}
	return false, nil
}

// columnSource feeds a batch to COPY row by row.
type columnSource struct {
	versionID int64
	rows      int
	cols      columns
	row       int
	buf       []any
}

func (s *columnSource) Next() bool {
	s.row++
	return s.row < s.rows
}

func (s *columnSource) Values() ([]any, error) {
	s.buf = append(s.buf[:0], s.versionID)
	for c := range s.cols {
		s.buf = append(s.buf, s.cols.value(c, s.row))
	}
	return s.buf, nil
}

func (s *columnSource) Err() error { return nil }
