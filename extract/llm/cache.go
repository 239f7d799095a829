package llm

import (
	"context"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
)

// Store keeps model calls by cache key. The database implements it; the
// in-memory MemoryStore serves tests and one-off runs.
type Store interface {
	// GetCall returns the stored call with that key and whether it exists.
	// Errors are storage failures (KindInternal or KindUnavailable).
	GetCall(ctx context.Context, key string) (extract.CallRecord, bool, error)
	// PutCall stores a call under rec.Key, replacing any earlier one.
	PutCall(ctx context.Context, rec extract.CallRecord) error
}

// MemoryStore is a Store held in memory, safe for concurrent use.
type MemoryStore struct {
	mu    sync.Mutex
	calls map[string]extract.CallRecord
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{calls: map[string]extract.CallRecord{}}
}

// GetCall implements Store.
func (m *MemoryStore) GetCall(_ context.Context, key string) (extract.CallRecord, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.calls[key]
	return rec, ok, nil
}

// PutCall implements Store.
func (m *MemoryStore) PutCall(_ context.Context, rec extract.CallRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[rec.Key] = rec
	return nil
}

// Len returns the number of stored calls.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}

// cachedClient answers from a Store before asking the provider.
type cachedClient struct {
	next     Client
	provider extract.Provider
	model    string
	store    Store
	// fresh skips the lookup: every request goes to the provider.
	fresh bool
}

// Uncached wraps client like Cached, except that it never answers from
// store: every request is asked anew (a clean run). Answers are still
// offered to store, which keeps what it held unless that was marked bad.
func Uncached(client Client, provider extract.Provider, model string, store Store) Client {
	return &cachedClient{next: client, provider: provider, model: model, store: store, fresh: true}
}

// Cached wraps client so a request seen before (same provider, model,
// messages, temperature and schema, see Key) is answered from store with
// Record.Cached set and no provider call. New answers are stored. A store
// failure is returned as an error; on a failed PutCall the fresh Response
// is returned alongside it so the paid answer is not lost.
func Cached(client Client, provider extract.Provider, model string, store Store) Client {
	return &cachedClient{next: client, provider: provider, model: model, store: store}
}

// Complete implements Client.
func (c *cachedClient) Complete(ctx context.Context, req Request) (Response, error) {
	key := Key(c.provider, c.model, req)
	var (
		rec extract.CallRecord
		ok  bool
		err error
	)
	if !c.fresh {
		rec, ok, err = c.store.GetCall(ctx, key)
	}
	if err != nil {
		return Response{}, extract.Wrap(extract.KindOf(err), err, "read call cache")
	}
	if ok {
		rec.Cached = true
		rec.Purpose = req.Purpose
		return Response{Text: rec.Response, Record: rec}, nil
	}
	resp, err := c.next.Complete(ctx, req)
	if err != nil {
		return Response{}, err
	}
	resp.Record.Key = key
	resp.Record.Provider = c.provider
	resp.Record.Model = c.model
	resp.Record.Purpose = req.Purpose
	if resp.Record.Request == "" {
		resp.Record.Request = RequestJSON(req)
	}
	resp.Record.Response = resp.Text
	resp.Record.Cached = false
	if err := c.store.PutCall(ctx, resp.Record); err != nil {
		return resp, extract.Wrap(extract.KindOf(err), err, "write call cache")
	}
	return resp, nil
}
