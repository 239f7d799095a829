package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

// goneID names a River client of this machine whose process has ended.
func goneID(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s%s_%d_%s", clientPrefix, thisHost, cmd.Process.Pid, "20260101T000000.000000000")
}

func TestClientPID(t *testing.T) {
	id := newClientID()
	if again := newClientID(); again == id {
		t.Fatalf("two clients of this process are both named %q", id)
	}
	if got := clientPID(id); got != os.Getpid() {
		t.Fatalf("clientPID(%q) = %d, want this process %d", id, got, os.Getpid())
	}
	if clientGone(id) {
		t.Fatalf("this process's own client %q is taken for gone", id)
	}
	for _, id := range []string{
		"kgstudio_another-host_1234_20260101T000000.000000000", // another machine
		"somehost_2026_01_01T00_00_00_000000",                  // River's own naming
		clientPrefix + thisHost + "_x_1",
		"",
	} {
		if got := clientPID(id); got != 0 {
			t.Errorf("clientPID(%q) = %d, want 0", id, got)
		}
	}
	gone := goneID(t)
	if !clientGone(gone) {
		t.Fatalf("%q: the ended process is not taken for gone", gone)
	}
	// The same host name in another PID namespace (another container):
	// its process numbers are not this machine's.
	if ns := pidNamespace(); ns != "" {
		other := strings.Replace(gone, "_ns"+ns+"_", "_ns1_", 1)
		if other == gone || clientPID(other) != 0 || clientGone(other) {
			t.Fatalf("%q, a client of another PID namespace, is read as this one's", other)
		}
	}
}

// TestTakeOverGone puts running jobs in River's table as processes left
// them and checks which a starting worker takes over: only those of a
// gone process of this machine; the leadership of a gone process ends.
func TestTakeOverGone(t *testing.T) {
	dbs := map[string]func() Options{"sqlite": func() Options { return Options{DataDir: t.TempDir()} }}
	if testkit.PostgresURL(t) != "" {
		dbs["postgres"] = func() Options { return Options{URL: testkit.PostgresDB(t, "takeover")} }
	}
	for name, opts := range dbs {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, opts())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			exec := s.riverDriver().GetExecutor()
			gone, live := goneID(t), newClientID()
			other := "kgstudio_another-host_1_20260101T000000.000000000"
			at := time.Now().Add(-time.Second).UTC()
			insert := func(by string, attempt int, meta string) int64 {
				t.Helper()
				j, err := exec.JobInsertFull(ctx, &riverdriver.JobInsertFullParams{
					Attempt: attempt, AttemptedAt: &at, AttemptedBy: []string{by}, EncodedArgs: []byte(`{}`),
					Kind: "kgstudio_test", MaxAttempts: 3, Metadata: []byte(meta), Priority: 1, Queue: "default",
					State: rivertype.JobStateRunning, ScheduledAt: &at,
				})
				if err != nil {
					t.Fatal(err)
				}
				return j.ID
			}
			want := map[int64]rivertype.JobState{
				insert(gone, 1, `{}`): rivertype.JobStateAvailable,
				insert(gone, 3, `{}`): rivertype.JobStateDiscarded, // its last attempt
				insert(gone, 1, fmt.Sprintf(`{"cancel_attempted_at":%q}`, at.Format(time.RFC3339Nano))): rivertype.JobStateCancelled,
				insert(live, 1, `{}`):  rivertype.JobStateRunning,
				insert(other, 1, `{}`): rivertype.JobStateRunning,
			}
			if _, err := exec.LeaderInsert(ctx, &riverdriver.LeaderInsertParams{LeaderID: gone, TTL: time.Minute}); err != nil {
				t.Fatal(err)
			}

			n, err := s.TakeOverGone(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n != 3 {
				t.Errorf("took over %d jobs, want the gone process's 3", n)
			}
			for id, state := range want {
				j, err := exec.JobGetByID(ctx, &riverdriver.JobGetByIDParams{ID: id})
				if err != nil {
					t.Fatal(err)
				}
				if j.State != state {
					t.Errorf("job %d of %s: %s, want %s", id, j.AttemptedBy, j.State, state)
				}
				if state == rivertype.JobStateAvailable && (len(j.Errors) != 1 || j.ScheduledAt.After(time.Now())) {
					t.Errorf("job %d taken over: errors %v, scheduled %s, want one error and now", id, j.Errors, j.ScheduledAt)
				}
			}
			if l, err := exec.LeaderGetElectedLeader(ctx, &riverdriver.LeaderGetElectedLeaderParams{}); !errors.Is(err, rivertype.ErrNotFound) {
				t.Fatalf("the gone process still leads: %+v, %v", l, err)
			}

			// A live leader keeps its lease.
			if _, err := exec.LeaderInsert(ctx, &riverdriver.LeaderInsertParams{LeaderID: live, TTL: time.Minute}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.TakeOverGone(ctx); err != nil {
				t.Fatal(err)
			}
			if l, err := exec.LeaderGetElectedLeader(ctx, &riverdriver.LeaderGetElectedLeaderParams{}); err != nil || l.LeaderID != live {
				t.Fatalf("leader after a second take-over: %+v, %v; want %s", l, err, live)
			}
		})
	}
}

func TestPreviousAttemptGone(t *testing.T) {
	gone, live := goneID(t), newClientID()
	for _, c := range []struct {
		by   []string
		want bool
	}{
		{[]string{gone, live}, true},
		{[]string{live, live}, false},
		{[]string{live}, false},
		{[]string{"kgstudio_another-host_1_x", live}, false},
		{nil, false},
	} {
		if got := PreviousAttemptGone(c.by); got != c.want {
			t.Errorf("PreviousAttemptGone(%v) = %v, want %v", c.by, got, c.want)
		}
	}
}
