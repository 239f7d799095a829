//go:build !unix

package store

import "context"

// lockFile locks nothing here: processes that migrate a new SQLite file at
// once rely on raceRetry.
func lockFile(context.Context, string) (func(), error) { return func() {}, nil }
