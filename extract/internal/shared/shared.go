// Package shared locates the shared test data (../shared/data relative to
// the repository root) for the tests of the extract packages.
package shared

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns the path of rel under the shared data folder: it walks up
// from the working directory to the folder holding go.mod.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "data", rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Read returns the contents of rel under the shared data folder.
func Read(tb testing.TB, rel string) []byte {
	tb.Helper()
	data, err := os.ReadFile(Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
