package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// writeAttempts bounds how often a write transaction is tried when the
// database reports a transient failure.
const writeAttempts = 4

// transient reports whether err is a database failure that a fresh
// transaction can get past: a terminated or broken connection, a
// serialization failure or deadlock (PostgreSQL), a busy or locked
// database (SQLite).
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "40001", pgErr.Code == "40P01": // serialization failure, deadlock
			return true
		case strings.HasPrefix(pgErr.Code, "08"): // connection exception
			return true
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03": // shutdown, crash, cannot connect now
			return true
		}
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"database is locked", "sqlite_busy", "conn closed", "connection reset", "broken pipe",
		"terminating connection", "unexpected eof", "server closed the connection"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// retryWrite runs one write up to writeAttempts times while it fails with
// a transient error, waiting a little longer each time.
func retryWrite(ctx context.Context, write func() error) error {
	var err error
	for attempt := 0; attempt < writeAttempts; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(time.Duration(25<<(2*attempt)) * time.Millisecond) // 100ms, 400ms, 1.6s
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-t.C:
			}
		}
		if err = write(); err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}
