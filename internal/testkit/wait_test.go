package testkit

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// fakeTB records what Eventually fails it with instead of failing.
type fakeTB struct {
	testing.TB
	fatal []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = append(f.fatal, fmt.Sprintf(format, args...))
}

func TestEventually(t *testing.T) {
	t.Parallel()
	t.Run("ReturnsOnceTrue", func(t *testing.T) {
		t.Parallel()
		var tb fakeTB
		calls := 0
		start := time.Now()
		Eventually(&tb, time.Minute, func() error {
			if calls++; calls < 3 {
				return errors.New("not yet")
			}
			return nil
		})
		// Two pauses, 5 and 7.5 ms; a loaded machine may stretch them.
		if took := time.Since(start); calls != 3 || len(tb.fatal) != 0 || took > time.Second {
			t.Errorf("%d calls in %s, failed %q; want 3 calls, soon, no failure", calls, took, tb.fatal)
		}
	})
	t.Run("FailsWithTheLastError", func(t *testing.T) {
		t.Parallel()
		var tb fakeTB
		calls := 0
		start := time.Now()
		Eventually(&tb, 200*time.Millisecond, func() error {
			calls++
			return fmt.Errorf("%d calls", calls)
		})
		took := time.Since(start)
		want := fmt.Sprintf("after 200ms: %d calls", calls)
		if len(tb.fatal) != 1 || tb.fatal[0] != want {
			t.Errorf("failed %q, want once %q", tb.fatal, want)
		}
		if took < 200*time.Millisecond || took > 2*time.Second {
			t.Errorf("gave up after %s, want 200ms", took)
		}
		// Pauses of 5 ms, growing by half to 50 ms: calls at 0, 5, 12.5,
		// 24, 41, 66, 104, 154 and 200 ms (a fixed 5 ms would make 41).
		if calls < 4 || calls > 14 {
			t.Errorf("%d calls in 200 ms", calls)
		}
	})
	t.Run("CallsOnceWithNoTime", func(t *testing.T) {
		t.Parallel()
		var tb fakeTB
		calls := 0
		Eventually(&tb, 0, func() error { calls++; return errors.New("no") })
		if calls != 1 || len(tb.fatal) != 1 || tb.fatal[0] != "after 0s: no" {
			t.Errorf("%d calls, failed %q", calls, tb.fatal)
		}
	})
	t.Run("PollReturnsTheLastError", func(t *testing.T) {
		t.Parallel()
		calls := 0
		last := errors.New("")
		err := Poll(20*time.Millisecond, func() error {
			calls++
			last = fmt.Errorf("call %d", calls)
			return last
		})
		if err != last || calls < 2 {
			t.Errorf("Poll returned %v after %d calls, want the last error", err, calls)
		}
		if err := Poll(time.Minute, func() error { return nil }); err != nil {
			t.Errorf("Poll of a check that holds: %v", err)
		}
	})
}
