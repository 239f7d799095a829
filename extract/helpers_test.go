package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// mustReadShared reads a file of the shared data folder (../shared/data
// relative to the directory holding go.mod).
func mustReadShared(tb testing.TB, rel string) []byte {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
	data, err := os.ReadFile(filepath.Join(dir, "..", "shared", "data", rel))
	if err != nil {
		tb.Fatalf("read shared data: %v", err)
	}
	return data
}
