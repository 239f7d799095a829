package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/kgstudio/kgstudio/extract"
)

// Policy bounds how a Client is used: retries, per-call timeout, rate and
// concurrency limits. Zero values select the defaults noted on each field.
type Policy struct {
	// MaxRetries is the number of extra attempts after the first (default
	// 4; negative means none).
	MaxRetries int
	// BaseDelay is the first backoff delay (default 500ms); it doubles per
	// attempt, with full jitter, up to MaxDelay (default 30s).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Timeout bounds each attempt (default 2m).
	Timeout time.Duration
	// RequestsPerMinute and TokensPerMinute limit the call rate; zero means
	// unlimited. Tokens are estimated from the prompt size.
	RequestsPerMinute int
	TokensPerMinute   int
	// Concurrency caps calls in flight; zero means unlimited.
	Concurrency int
	// Gate, when set, enforces RequestsPerMinute, TokensPerMinute and
	// Concurrency instead of this process's own limiters, e.g. across
	// every process sharing a database.
	Gate Gate
}

// Gate admits model calls under limits shared beyond one client. Admit
// waits until a call of about tokens prompt tokens may start and returns
// done, to call when the call ends; it returns ctx's error when ctx ends
// first.
type Gate interface {
	Admit(ctx context.Context, tokens int) (done func(), err error)
}

// DefaultPolicy returns the defaults used for zero fields.
func DefaultPolicy() Policy {
	return Policy{MaxRetries: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second, Timeout: 2 * time.Minute}
}

// policyClient applies a Policy around another Client.
type policyClient struct {
	next   Client
	p      Policy
	reqs   *rate.Limiter
	tokens *rate.Limiter
	sem    chan struct{}
}

// WithPolicy wraps c with bounded retries (exponential backoff with jitter
// on 408, 429, 5xx, timeouts and transport failures, honouring the
// provider's Retry-After), a per-attempt timeout, request and token rate
// limiters and a concurrency limit. After the last attempt it returns a
// KindUnavailable error; KindInvalid errors are returned at once.
func WithPolicy(c Client, p Policy) Client {
	d := DefaultPolicy()
	if p.MaxRetries == 0 {
		p.MaxRetries = d.MaxRetries
	} else if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.Timeout <= 0 {
		p.Timeout = d.Timeout
	}
	pc := &policyClient{next: c, p: p}
	if p.Gate != nil {
		return pc
	}
	if p.RequestsPerMinute > 0 {
		pc.reqs = rate.NewLimiter(rate.Limit(float64(p.RequestsPerMinute)/60), max(1, p.RequestsPerMinute/60))
	}
	if p.TokensPerMinute > 0 {
		pc.tokens = rate.NewLimiter(rate.Limit(float64(p.TokensPerMinute)/60), p.TokensPerMinute)
	}
	if p.Concurrency > 0 {
		pc.sem = make(chan struct{}, p.Concurrency)
	}
	return pc
}

// Complete runs the call under the policy.
func (pc *policyClient) Complete(ctx context.Context, req Request) (Response, error) {
	var lastErr error
	attempts := pc.p.MaxRetries + 1
	// A streamed answer is not tried again once a piece of it has gone
	// out: the listener would read it twice.
	streamed := false
	if d := streamOf(ctx); d != nil {
		ctx = WithStream(ctx, func(s string) { streamed = true; d(s) })
	}
	for attempt := 0; attempt < attempts; attempt++ {
		if streamed {
			return Response{}, extract.Wrap(extract.KindUnavailable, lastErr, "model call failed while its answer streamed")
		}
		if attempt > 0 {
			if err := sleep(ctx, pc.delay(attempt, lastErr)); err != nil {
				return Response{}, err
			}
		}
		resp, err := pc.attempt(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		if extract.KindOf(err) != extract.KindUnavailable {
			return Response{}, err
		}
		lastErr = err
		if Refused(err) && attempt >= 1 {
			// Nothing listens there: one more try (a server
			// restarting) and no backoff of a minute on a dead port.
			return Response{}, extract.Wrap(extract.KindUnavailable, lastErr, "model call failed after %d attempts", attempt+1)
		}
	}
	return Response{}, extract.Wrap(extract.KindUnavailable, lastErr, "model call failed after %d attempts", attempts)
}

// Refused reports whether a call failed because the provider's server
// refused the connection (nothing listens at its address). WithPolicy
// tries such a call twice, not MaxRetries+1 times, and a run's chunk
// job takes it as final rather than try the chunk again.
func Refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}

// attempt makes one call inside the limits.
func (pc *policyClient) attempt(ctx context.Context, req Request) (Response, error) {
	if pc.p.Gate != nil {
		done, err := pc.p.Gate.Admit(ctx, estimateTokens(req))
		if err != nil {
			return Response{}, ctxOr(ctx, err)
		}
		defer done()
	}
	if pc.reqs != nil {
		if err := pc.reqs.Wait(ctx); err != nil {
			return Response{}, ctxOr(ctx, err)
		}
	}
	if pc.tokens != nil {
		n := min(estimateTokens(req), pc.tokens.Burst())
		if err := pc.tokens.WaitN(ctx, n); err != nil {
			return Response{}, ctxOr(ctx, err)
		}
	}
	if pc.sem != nil {
		select {
		case pc.sem <- struct{}{}:
			defer func() { <-pc.sem }()
		case <-ctx.Done():
			return Response{}, ctx.Err()
		}
	}
	actx, cancel := context.WithTimeout(ctx, pc.p.Timeout)
	defer cancel()
	resp, err := pc.next.Complete(actx, req)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		// Our own per-attempt deadline: worth another try.
		return Response{}, extract.Wrap(extract.KindUnavailable, err, "model call timed out after %s", pc.p.Timeout)
	}
	return resp, err
}

// delay is the wait before attempt n (n >= 1): full-jitter exponential
// backoff, but never shorter than a Retry-After the provider asked for.
func (pc *policyClient) delay(n int, lastErr error) time.Duration {
	back := pc.p.BaseDelay << (n - 1)
	if back > pc.p.MaxDelay || back <= 0 {
		back = pc.p.MaxDelay
	}
	d := back/2 + time.Duration(rand.Int64N(int64(back/2)+1))
	var se *StatusError
	if errors.As(lastErr, &se) && se.RetryAfter > d {
		d = se.RetryAfter
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ctxOr prefers the context's error; a limiter that cannot wait long enough
// before the deadline reports unavailable.
func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return extract.Wrap(extract.KindUnavailable, err, "rate limit wait")
}
