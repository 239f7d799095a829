package testkit

import (
	"testing"
	"time"
)

// Pauses between two calls of a check: the first is short, so a condition
// that holds soon is seen soon; they grow by half each time up to the
// longest, so a long wait does not load the machine, while a wait timed by
// a benchmark (a run of a second or more) is over at most 50 ms late.
const (
	firstPause = 5 * time.Millisecond
	lastPause  = 50 * time.Millisecond
)

// Eventually calls check until it returns nil: at once, then after pauses
// growing from 5 ms to 50 ms, and once more at the timeout. Once timeout
// has passed it fails tb with check's last error ("after 30s: version 3
// still running"), so that error should say what was awaited and what was
// seen instead. check runs on the calling goroutine: it may fail tb itself
// when what it waits for can no longer happen (a run that failed, a
// process that ended).
func Eventually(tb testing.TB, timeout time.Duration, check func() error) {
	tb.Helper()
	if err := Poll(timeout, check); err != nil {
		tb.Fatalf("after %s: %v", timeout, err)
	}
}

// Poll calls check as Eventually does, and returns nil as soon as check
// does, or check's last error once timeout has passed: for a caller with
// something to do before it fails (stop a process, show its output).
func Poll(timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	pause := firstPause
	for {
		err := check()
		if err == nil {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return err
		}
		time.Sleep(min(pause, left))
		pause = min(pause*3/2, lastPause)
	}
}
