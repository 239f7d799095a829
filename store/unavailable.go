package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err says the database cannot be reached or
// is not taking work (down, closed, restarting, out of connections), as
// opposed to a request it refused: callers answer "try again later" rather
// than blaming the input or reporting an internal failure.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exception; 57P01-57P03: shutting down or starting;
		// 53300: too many connections; 3D000: the database is gone.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P") ||
			pgErr.Code == "53300" || pgErr.Code == "3D000"
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connErr) || errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	msg := err.Error()
	// database/sql does not export its "closed" error; SQLite says "busy"
	// or "locked" when another process holds the file.
	return strings.Contains(msg, "sql: database is closed") || strings.Contains(msg, "database is locked") ||
		strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "conn closed")
}

// IsDiskFull reports whether err says the database's disk is full: SQLite's
// SQLITE_FULL, PostgreSQL's class 53100 (disk_full), or the system's
// ENOSPC. The server says so, rather than "internal error".
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "53100" {
		return true
	}
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_FULL") || strings.Contains(msg, "database or disk is full") ||
		strings.Contains(msg, "no space left on device")
}
