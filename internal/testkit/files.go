// Package testkit holds what tests share: it locates the data files they
// read (the small fixtures committed under testdata/ at the repository
// root first, then the larger shared sets in ../shared/data beside the
// repository), waits, measures and opens PostgreSQL. A test whose file is
// in neither skips with one line naming it, except under CI=true, where it
// fails: CI always has the shared data.
package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the repository root: the folder holding go.mod above the
// working directory.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Path returns the path of rel (a file or folder, "gold/x.json") in
// testdata/ or, failing that, in ../shared/data. When neither holds it the
// test is skipped, or fails under CI.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	root := Root(tb)
	for _, p := range []string{filepath.Join(root, "testdata", rel), filepath.Join(root, "..", "shared", "data", rel)} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("test data %s is missing: CI needs ../shared/data beside the repository", rel)
	}
	tb.Skipf("needs %s from ../shared/data (not in a plain clone)", rel)
	return ""
}

// Read returns the contents of rel (see Path).
func Read(tb testing.TB, rel string) []byte {
	tb.Helper()
	data, err := os.ReadFile(Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Glob returns the files of a folder (see Path) that match pattern, in
// name order; a folder with none fails the test.
func Glob(tb testing.TB, dir, pattern string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(Path(tb, dir), pattern))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no %s in %s (%v)", pattern, dir, err)
	}
	return files
}

// PostgresURL is the administrator URL of the PostgreSQL server the tests
// may use (KGSTUDIO_TEST_POSTGRES_URL), or "" when none is set: the caller
// then skips or runs on SQLite alone. Under CI=true a missing URL fails
// the test instead: CI always runs the PostgreSQL tests.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("KGSTUDIO_TEST_POSTGRES_URL")
	if u == "" && os.Getenv("CI") != "" {
		tb.Fatal("KGSTUDIO_TEST_POSTGRES_URL is not set in CI")
	}
	return u
}
