package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

func TestStore_ClaimVersion(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		d := mustDoc(t, s, "c.txt", "Claim me.")
		v, err := s.NewVersion(ctx, "lease", extract.DefaultConfig(), []int{d.ID}, "")
		if err != nil {
			t.Fatal(err)
		}
		never := func(string) bool { return false }
		claim := func(owner string, dead func(string) bool) bool {
			t.Helper()
			ok, err := s.ClaimVersion(ctx, v.ID, owner, time.Minute, dead)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !claim("a", never) {
			t.Fatal("a free version must be claimable")
		}
		if !claim("a", never) {
			t.Fatal("the owner must be able to claim again")
		}
		if claim("b", never) {
			t.Fatal("b took a version whose owner is alive and fresh")
		}
		if !claim("b", func(o string) bool { return o == "a" }) {
			t.Fatal("b could not take over from a dead owner")
		}
		// A stale heartbeat frees the version.
		s.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
		if !claim("c", never) {
			t.Fatal("c could not take over a stale version")
		}
		s.Now = time.Now
		got, _ := s.Version(ctx, v.ID)
		if got.Owner != "c" {
			t.Fatalf("owner %q", got.Owner)
		}

		// Of many processes claiming a stale version at once, one wins.
		s.Now = func() time.Time { return time.Now().Add(5 * time.Minute) }
		var wg sync.WaitGroup
		wins := make(chan string, 8)
		for _, o := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if ok, err := s.ClaimVersion(ctx, v.ID, o, time.Minute, never); err == nil && ok {
					wins <- o
				}
			}()
		}
		wg.Wait()
		close(wins)
		s.Now = time.Now
		var winners []string
		for w := range wins {
			winners = append(winners, w)
		}
		// A claim is a conditional update on the owner it read: once one
		// process wins, the others either find the owner changed or see
		// its fresh heartbeat.
		got, _ = s.Version(ctx, v.ID)
		if len(winners) != 1 || winners[0] != got.Owner {
			t.Fatalf("winners %v, owner %q", winners, got.Owner)
		}
	})
}
