package extract

import (
	"github.com/kgstudio/kgstudio/internal/testdata"
	"testing"
)

// mustReadShared reads a file of the shared data folder (../shared/data
// relative to the directory holding go.mod).
func mustReadShared(tb testing.TB, rel string) []byte {
	tb.Helper()
	return testdata.Read(tb, rel)
}
