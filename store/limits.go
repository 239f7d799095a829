package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// Provider limits across processes
//
// On PostgreSQL every process that calls a model (servers, workers) shares
// one set of limits per provider and model, kept in the database:
//
//   - Requests and tokens per minute are two token buckets kept as
//     theoretical arrival times (GCRA) in one row of kgstudio_rate_limits
//     per provider and model, read and advanced under the row's lock with
//     the database's clock, so processes on several machines agree. The
//     buckets hold what the in-process limiter's do: a second's requests
//     and a minute's tokens.
//   - Calls in flight hold one of N session advisory locks (the key's
//     class, slots 0..N-1), each on a connection of its own; a process that
//     dies drops its connections and so its slots.
//
// On SQLite one process runs the jobs, and its own limiters hold.

// rateLimitsTable is created with River's tables (see migrateRiver).
const rateLimitsTable = `CREATE TABLE IF NOT EXISTS kgstudio_rate_limits (
	key text PRIMARY KEY,
	req_tat double precision NOT NULL DEFAULT 0,
	tok_tat double precision NOT NULL DEFAULT 0
)`

// ProviderGate returns the limits shared by every process on the database
// for one provider and model (key), or nil on SQLite, where the process's
// own limiters apply. Zero limits are unlimited.
func (s *Store) ProviderGate(key string, requestsPerMinute, tokensPerMinute, concurrency int) llm.Gate {
	if s.pgPool == nil || (requestsPerMinute <= 0 && tokensPerMinute <= 0 && concurrency <= 0) {
		return nil
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return &pgGate{pool: s.pgPool, key: key, rpm: requestsPerMinute, tpm: tokensPerMinute, conc: concurrency, class: int32(h.Sum32())}
}

type pgGate struct {
	pool     *pgxpool.Pool
	key      string
	rpm, tpm int
	conc     int
	class    int32
}

var _ llm.Gate = (*pgGate)(nil)

// slotPoll is how often a call waiting for a slot looks again.
const slotPoll = 5 * time.Millisecond

// Admit implements llm.Gate.
func (g *pgGate) Admit(ctx context.Context, tokens int) (func(), error) {
	if g.rpm > 0 || g.tpm > 0 {
		for {
			wait, err := g.take(ctx, tokens)
			if err != nil {
				return nil, err
			}
			if wait <= 0 {
				break
			}
			if err := pause(ctx, wait); err != nil {
				return nil, err
			}
		}
	}
	if g.conc <= 0 {
		return func() {}, nil
	}
	for {
		done, err := g.slot(ctx)
		if err != nil || done != nil {
			return done, err
		}
		if err := pause(ctx, slotPoll); err != nil {
			return nil, err
		}
	}
}

// slot takes a free in-flight slot, or returns nil when all are taken.
func (g *pgGate) slot(ctx context.Context) (func(), error) {
	conn, err := g.pool.Acquire(ctx)
	if err != nil {
		return nil, extract.Wrap(extract.KindUnavailable, err, "provider limit")
	}
	for i := range g.conc {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", g.class, int32(i)).Scan(&ok); err != nil {
			conn.Release()
			return nil, extract.Wrap(extract.KindUnavailable, err, "provider limit")
		}
		if ok {
			return func() {
				if _, err := conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1, $2)", g.class, int32(i)); err != nil {
					// The session may still hold the lock: drop it.
					_ = conn.Conn().Close(context.Background())
				}
				conn.Release()
			}, nil
		}
	}
	conn.Release()
	return nil, nil
}

// take advances the buckets for one call of tokens, or returns how long to
// wait before trying again (nothing taken).
func (g *pgGate) take(ctx context.Context, tokens int) (time.Duration, error) {
	var wait float64
	err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO kgstudio_rate_limits (key) VALUES ($1) ON CONFLICT (key) DO NOTHING", g.key); err != nil {
			return err
		}
		var reqTat, tokTat, now float64
		if err := tx.QueryRow(ctx, "SELECT req_tat, tok_tat, extract(epoch from clock_timestamp())::double precision FROM kgstudio_rate_limits WHERE key = $1 FOR UPDATE", g.key).
			Scan(&reqTat, &tokTat, &now); err != nil {
			return err
		}
		newReq, newTok := reqTat, tokTat
		if g.rpm > 0 {
			t := 60 / float64(g.rpm)
			burst := float64(max(1, g.rpm/60))
			newReq = math.Max(reqTat, now) + t
			wait = math.Max(wait, newReq-burst*t-now)
		}
		if g.tpm > 0 {
			t := 60 / float64(g.tpm)
			n := float64(min(max(tokens, 1), g.tpm))
			newTok = math.Max(tokTat, now) + n*t
			wait = math.Max(wait, newTok-float64(g.tpm)*t-now)
		}
		if wait > 0 {
			return nil // nothing taken; the transaction ends unchanged
		}
		_, err := tx.Exec(ctx, "UPDATE kgstudio_rate_limits SET req_tat = $2, tok_tat = $3 WHERE key = $1", g.key, newReq, newTok)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, extract.Wrap(extract.KindUnavailable, err, "provider limit")
	}
	return time.Duration(wait * float64(time.Second)), nil
}

func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// poolSize is the PostgreSQL pool River and the provider limits share: a
// connection per call in flight, River's own, and room.
const poolSize = 48

// newPGPool opens the pool for River and the provider limits.
func newPGPool(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	cfg.MaxConns = poolSize
	return pgxpool.NewWithConfig(ctx, cfg)
}
