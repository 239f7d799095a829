package store_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kgstudio/kgstudio/store"
)

// A full disk reads as such: SQLite's own error when its file may grow no
// more (a page limit stands in for the disk), PostgreSQL's disk_full, the
// system's ENOSPC; other errors do not.
func TestIsDiskFull(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "full.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (x TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA max_page_count = 8`); err != nil {
		t.Fatal(err)
	}
	var full error
	for i := 0; i < 100 && full == nil; i++ {
		_, full = db.Exec(`INSERT INTO t VALUES (?)`, strings.Repeat("x", 4000))
	}
	if full == nil {
		t.Fatal("the page limit did not fill the file")
	}
	for _, err := range []error{full, &pgconn.PgError{Code: "53100", Message: "could not extend file"}, fmt.Errorf("write: %w", syscall.ENOSPC)} {
		if !store.IsDiskFull(err) {
			t.Errorf("%v (%T) does not read as a full disk", err, err)
		}
	}
	for _, err := range []error{fmt.Errorf("UNIQUE constraint failed"), &pgconn.PgError{Code: "23505"}, syscall.EACCES} {
		if store.IsDiskFull(err) {
			t.Errorf("%v reads as a full disk", err)
		}
	}
}
