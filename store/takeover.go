package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// A process killed hard (SIGKILL, a crash, the kernel's out-of-memory
// killer) leaves its River jobs running and, if it led, its leadership in
// River's tables. River hands them on by time alone: a new leader only
// once the dead one's lease runs out (15 s), and its rescuer, which runs
// on the leader every 30 s, takes only jobs running longer than the
// rescue delay. A restarted server waited most of a minute.
//
// Each River client of kgstudio is named after its process
// (kgstudio_HOST_PID_TIME_N, HOST with the process's PID namespace where
// there is one: two containers may share a host name but not their
// process numbers). A worker starting on the same machine, in the same
// namespace, sees that a named process is gone and takes over its jobs
// and leadership at once (TakeOverGone). Clients of other machines or
// namespaces, and processes that may still run, are left to River.

// clientPrefix starts the River client IDs kgstudio gives.
const clientPrefix = "kgstudio_"

// thisHost is the host part of this process's client IDs.
var thisHost = clientHost()

func clientHost() string {
	h, _ := os.Hostname()
	if h == "" {
		h = "unknown"
	}
	// River's own IDs have underscores for dots; the ID must stay under
	// 128 characters.
	h = strings.ReplaceAll(h, ".", "_")
	if len(h) > 60 {
		h = h[:60]
	}
	if ns := pidNamespace(); ns != "" {
		h += "_ns" + ns
	}
	return h
}

// clients counts the River clients this process named.
var clients atomic.Int64

// newClientID names a River client after this process; the time and a
// count tell apart clients of one process (a clock may tick coarsely).
func newClientID() string {
	return fmt.Sprintf("%s%s_%d_%s_%d", clientPrefix, thisHost, os.Getpid(), time.Now().UTC().Format("20060102T150405.000000000"), clients.Add(1))
}

// thisWriter names this process as the writer of a written version, in
// the form of its client IDs (clientGone reads it).
var thisWriter = fmt.Sprintf("%s%s_%d_writer", clientPrefix, thisHost, os.Getpid())

// clientPID is the process of a client ID given on this machine, or 0
// for another machine's or an ID kgstudio did not give.
func clientPID(id string) int {
	rest, ok := strings.CutPrefix(id, clientPrefix+thisHost+"_")
	if !ok {
		return 0
	}
	pid, _, ok := strings.Cut(rest, "_")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// clientGone reports whether the client ID names a process of this
// machine that no longer runs (this process's own clients run).
func clientGone(id string) bool {
	pid := clientPID(id)
	return pid != 0 && pid != os.Getpid() && processGone(pid)
}

// PreviousAttemptGone reports whether the process that ran a job's
// previous attempt is gone: attemptedBy is the job's list of clients, the
// last the current one.
func PreviousAttemptGone(attemptedBy []string) bool {
	return len(attemptedBy) >= 2 && clientGone(attemptedBy[len(attemptedBy)-2])
}

// TakeOverGone makes the jobs that a gone process of this machine left
// running available again now (or discarded, when that was their last
// attempt; canceled when a cancel reached them), and ends the leadership
// such a process held, so that the caller's River client, started next,
// leads at once. It returns how many jobs it took over.
func (s *Store) TakeOverGone(ctx context.Context) (int, error) {
	exec := s.riverDriver().GetExecutor()
	if leader, err := exec.LeaderGetElectedLeader(ctx, &riverdriver.LeaderGetElectedLeaderParams{}); err == nil && clientGone(leader.LeaderID) {
		if _, err := exec.LeaderResign(ctx, &riverdriver.LeaderResignParams{
			ElectedAt:       leader.ElectedAt,
			LeaderID:        leader.LeaderID,
			LeadershipTopic: "river_leadership", // River's notification topic
		}); err != nil {
			return 0, fmt.Errorf("end a gone process's leadership: %w", err)
		}
	} else if err != nil && !errors.Is(err, rivertype.ErrNotFound) {
		return 0, fmt.Errorf("read the job queue's leader: %w", err)
	}

	now := time.Now().UTC()
	p := &riverdriver.JobRescueManyParams{StuckHorizon: now.Add(time.Second)}
	var after int64
	for {
		jobs, err := exec.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{AfterID: after, Max: 500, StuckHorizon: now.Add(time.Second)})
		if err != nil {
			return 0, fmt.Errorf("list running jobs: %w", err)
		}
		for _, j := range jobs {
			if len(j.AttemptedBy) == 0 || !clientGone(j.AttemptedBy[len(j.AttemptedBy)-1]) {
				continue
			}
			e, _ := json.Marshal(rivertype.AttemptError{At: now, Attempt: max(j.Attempt, 0),
				Error: "its process (" + j.AttemptedBy[len(j.AttemptedBy)-1] + ") is gone; taken over"})
			state, finalized, at := rivertype.JobStateAvailable, (*time.Time)(nil), now
			var meta struct {
				CancelAttemptedAt time.Time `json:"cancel_attempted_at"`
			}
			_ = json.Unmarshal(j.Metadata, &meta)
			switch {
			case !meta.CancelAttemptedAt.IsZero():
				state, finalized, at = rivertype.JobStateCancelled, &now, j.ScheduledAt
			case j.Attempt >= j.MaxAttempts:
				state, finalized, at = rivertype.JobStateDiscarded, &now, j.ScheduledAt
			}
			p.ID = append(p.ID, j.ID)
			p.Error = append(p.Error, e)
			p.FinalizedAt = append(p.FinalizedAt, finalized)
			p.ScheduledAt = append(p.ScheduledAt, at)
			p.State = append(p.State, string(state))
		}
		if len(jobs) < 500 {
			break
		}
		after = jobs[len(jobs)-1].ID
	}
	if len(p.ID) == 0 {
		return 0, nil
	}
	if _, err := exec.JobRescueMany(ctx, p); err != nil {
		return 0, fmt.Errorf("take over a gone process's jobs: %w", err)
	}
	return len(p.ID), nil
}
