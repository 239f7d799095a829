package testkit

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
)

// PostgresDB creates a database of its own on the test server
// (PostgresURL), named prefix and a random suffix, and returns its URL;
// the database is dropped at cleanup. It calls PostgresURL, so without a
// server it returns "" (and fails under CI=true).
func PostgresDB(tb testing.TB, prefix string) string {
	tb.Helper()
	admin := PostgresURL(tb)
	if admin == "" {
		return ""
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "kgstudio_" + prefix + "_" + hex.EncodeToString(b)
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	tb.Cleanup(func() {
		db, err := sql.Open("pgx", admin)
		if err == nil {
			_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			db.Close()
		}
	})
	return u.String()
}
