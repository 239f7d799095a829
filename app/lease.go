package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Runs are leased: the process that runs a version records itself as the
// version's owner and refreshes a heartbeat while it works. Another process
// (a second server on the same PostgreSQL, or this one after a restart)
// takes a version over only when its owner is known dead — same host, the
// process is gone — or its heartbeat is older than leaseStale. So any
// number of instances can share one database, and a killed run resumes at
// once on restart.
const (
	leaseStale = 30 * time.Second
	leaseBeat  = 5 * time.Second
)

// ErrRunElsewhere is returned by App.Run when another live process runs
// the version.
var ErrRunElsewhere = errors.New("the version is being run by another process")

// newOwner names this process: host, pid and a nonce.
func newOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", strings.ReplaceAll(host, "/", "_"), os.Getpid(), hex.EncodeToString(b))
}

// ownerDead reports whether the process named by owner is known to be gone:
// it ran on this host and no process has its pid any more.
func ownerDead(owner string) bool {
	parts := strings.Split(owner, "/")
	if len(parts) != 3 {
		return false
	}
	host, _ := os.Hostname()
	pid, err := strconv.Atoi(parts[1])
	if err != nil || parts[0] != strings.ReplaceAll(host, "/", "_") || pid == os.Getpid() {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	err = p.Signal(syscall.Signal(0))
	return errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH)
}

// lease claims a version for this process and keeps its heartbeat fresh
// until the returned stop is called.
func (a *App) lease(ctx context.Context, id int) (stop func(), err error) {
	ok, err := a.store.ClaimVersion(ctx, id, a.owner, leaseStale, ownerDead)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrRunElsewhere
	}
	beatCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(leaseBeat)
		defer t.Stop()
		for {
			select {
			case <-beatCtx.Done():
				return
			case <-t.C:
				if err := a.store.Heartbeat(beatCtx, id); err != nil && beatCtx.Err() == nil {
					a.log.Warn("heartbeat", "version_id", id, "error", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }, nil
}

// Watch resumes, every interval until ctx is done, the versions whose
// owner died or went silent (e.g. another instance that was killed).
func (a *App) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := a.Resume(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("resume", "error", err)
			}
		}
	}
}
