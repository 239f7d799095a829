package lru

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Concurrent gets of one key run one load; the least recently used value
// goes first; failed loads and values over the weight bound are not kept.
func TestCache(t *testing.T) {
	ctx := context.Background()
	c := NewWeighted[string, int](2, 10, func(v int) int { return v })
	var loads atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]int, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = c.Get(ctx, "a", func() (int, error) {
				loads.Add(1)
				<-release
				return 1, nil
			})
		}()
	}
	for c.Len() == 0 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if loads.Load() != 1 {
		t.Fatalf("%d loads for one key", loads.Load())
	}
	for _, v := range got {
		if v != 1 {
			t.Fatalf("a caller got %d", v)
		}
	}
	load := func(v int) func() (int, error) {
		return func() (int, error) { loads.Add(1); return v, nil }
	}
	c.Get(ctx, "b", load(2))
	c.Get(ctx, "a", load(1)) // a is now used after b
	c.Get(ctx, "c", load(3)) // three entries: b, the least recently used, goes
	if c.Has("b") || !c.Has("a") || !c.Has("c") {
		t.Fatalf("after c: has a %v, b %v, c %v; want a and c", c.Has("a"), c.Has("b"), c.Has("c"))
	}
	c.Get(ctx, "d", load(9)) // weights 3+9 > 10: c (older than d) goes, then a
	if c.Has("a") || c.Has("c") || !c.Has("d") {
		t.Fatalf("after d: has a %v, c %v, d %v; want d only", c.Has("a"), c.Has("c"), c.Has("d"))
	}
	if v, _ := c.Get(ctx, "heavy", load(11)); v != 11 || c.Has("heavy") {
		t.Fatalf("a value over the bound: got %d, kept %v", v, c.Has("heavy"))
	}
	boom := errors.New("boom")
	if _, err := c.Get(ctx, "e", func() (int, error) { return 0, boom }); err != boom || c.Has("e") {
		t.Fatalf("failed load: %v, kept %v", err, c.Has("e"))
	}
	c.DeleteFunc(func(k string) bool { return k == "d" })
	if c.Has("d") {
		t.Fatal("DeleteFunc kept d")
	}
}

// A caller that goes away while another's load runs gets its context's
// error; the load goes on and its value is kept.
func TestCache_CallerGoesAway(t *testing.T) {
	c := New[int, string](4)
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Get(context.Background(), 1, func() (string, error) { <-release; return "x", nil })
	}()
	for !c.Has(1) {
		runtime.Gosched()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Get(ctx, 1, func() (string, error) { t.Error("a second load"); return "", nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting caller gone: %v", err)
	}
	close(release)
	<-done
	if v, err := c.Get(context.Background(), 1, nil); v != "x" || err != nil {
		t.Fatalf("after the load: %q, %v", v, err)
	}
}
