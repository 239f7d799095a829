package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

// StatusError is an HTTP-level failure reported by a provider. It travels
// inside an *extract.Error so callers can still use extract.KindOf, while the
// retry wrapper reads the status and the provider's requested delay.
type StatusError struct {
	Provider   extract.Provider
	Status     int
	RetryAfter time.Duration
	Message    string
}

// Error implements the error interface.
func (e *StatusError) Error() string {
	msg := e.Message
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	if msg == "" {
		return fmt.Sprintf("%s: HTTP %d", e.Provider, e.Status)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, msg)
}

// Retryable reports whether the status is worth another attempt: 408, 429
// and every 5xx.
func (e *StatusError) Retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout || e.Status >= 500
}

// statusErr wraps a StatusError in an *extract.Error of the fitting kind:
// unavailable for retryable statuses, invalid for other 4xx.
func statusErr(se *StatusError) error {
	if se.Retryable() {
		return extract.Wrap(extract.KindUnavailable, se, "%s is unavailable", se.Provider)
	}
	return extract.Wrap(extract.KindInvalid, se, "%s rejected the request", se.Provider)
}

// transportErr classifies a failure below HTTP (connection refused, reset,
// deadline). Cancellation by the caller is passed through untouched.
func transportErr(ctx context.Context, provider extract.Provider, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return err
	}
	return extract.Wrap(extract.KindUnavailable, err, "%s could not be reached", provider)
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// redact removes secret from s, so an API key never reaches an error text.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// redactedError hides a secret in the text of an underlying error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redactErr(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &redactedError{msg: redact(err.Error(), secret), err: err}
}

// estimateTokens is a cheap token estimate (about four bytes a token) used
// for the tokens-per-minute limiter and by fakes.
func estimateTokens(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)/4 + 4
	}
	return n
}

// HTTPStatus returns the HTTP status, so a run can say per chunk what the
// provider answered (see extract.ChunkErrorOf).
func (e *StatusError) HTTPStatus() int { return e.Status }
