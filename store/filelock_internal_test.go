package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// One holder at a time: a second lock waits until the first is released
// (or its context ends).
func TestLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kgstudio.db.lock")
	unlock, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second lock while the first is held: %v, want it to wait until its context ends", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := lockFile(context.Background(), path)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("the lock after a release: %v", err)
	}
}
