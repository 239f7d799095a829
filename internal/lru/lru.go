// Package lru is a least-recently-used cache whose loads are shared:
// concurrent requests for a key it does not hold run one load, and every
// one of them gets that load's result (as golang.org/x/sync/singleflight
// does, with the result then kept).
package lru

import (
	"context"
	"sync"
)

// Cache holds at most a number of values and, when it weighs them, values
// whose weights add up to at most a bound (a value heavier than the bound
// is returned but not kept). Failed loads are not kept. Loads in flight
// are neither counted nor evicted. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu        sync.Mutex
	entries   int
	maxWeight int
	weight    func(V) int
	m         map[K]*call[V]
	use       uint64 // a clock: each use of a key takes the next tick
}

// call is one load in flight or done; done is closed once v and err are
// set.
type call[V any] struct {
	done chan struct{}
	v    V
	err  error
	w    int
	used uint64
}

// New returns a cache of at most entries values.
func New[K comparable, V any](entries int) *Cache[K, V] {
	return &Cache[K, V]{entries: entries, m: map[K]*call[V]{}}
}

// NewWeighted returns a cache of at most entries values whose weights add
// up to at most maxWeight.
func NewWeighted[K comparable, V any](entries, maxWeight int, weight func(V) int) *Cache[K, V] {
	c := New[K, V](entries)
	c.maxWeight, c.weight = maxWeight, weight
	return c
}

// Get returns key's value, running load when the cache holds none and no
// load of it is in flight; otherwise it waits for the one in flight. A
// load runs to its end even when the callers waiting for it go away
// (ctx): the next caller finds its result.
func (c *Cache[K, V]) Get(ctx context.Context, key K, load func() (V, error)) (V, error) {
	c.mu.Lock()
	cl, ok := c.m[key]
	if !ok {
		cl = &call[V]{done: make(chan struct{})}
		c.m[key] = cl
	}
	c.use++
	cl.used = c.use
	c.mu.Unlock()
	if ok {
		select {
		case <-cl.done:
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
		return cl.v, cl.err
	}
	cl.v, cl.err = load()
	if cl.err == nil && c.weight != nil {
		cl.w = c.weight(cl.v)
	}
	close(cl.done)
	c.mu.Lock()
	if cl.err != nil || (c.weight != nil && cl.w > c.maxWeight) {
		if c.m[key] == cl {
			delete(c.m, key)
		}
	}
	c.evict()
	c.mu.Unlock()
	return cl.v, cl.err
}

// Has reports whether key's value is held or being loaded.
func (c *Cache[K, V]) Has(key K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[key]
	return ok
}

// DeleteFunc removes the values (not the loads in flight) whose keys drop
// says to.
func (c *Cache[K, V]) DeleteFunc(drop func(K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, cl := range c.m {
		if finished(cl) && drop(k) {
			delete(c.m, k)
		}
	}
}

// Len is how many values are held or being loaded.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func finished[V any](cl *call[V]) bool {
	select {
	case <-cl.done:
		return true
	default:
		return false
	}
}

// evict drops the least recently used values until the cache is within
// its bounds. c.mu must be held.
func (c *Cache[K, V]) evict() {
	for {
		n, total := 0, 0
		var oldest K
		var oldestUse uint64
		found := false
		for k, cl := range c.m {
			if !finished(cl) {
				continue
			}
			n++
			total += cl.w
			if !found || cl.used < oldestUse {
				oldest, oldestUse, found = k, cl.used, true
			}
		}
		if !found || (n <= c.entries && (c.weight == nil || total <= c.maxWeight)) {
			return
		}
		delete(c.m, oldest)
	}
}
