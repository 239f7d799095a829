package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"sync"
	"time"
)

// Sign-in state, held by the server process: sessions are random ids,
// revoked on sign-out (a restart signs everyone out), and wrong tokens
// slow their sender down.
type signIn struct {
	mu       sync.Mutex
	sessions map[string]time.Time // id -> expiry
	fails    map[string]*failures // by client address
	now      func() time.Time
}

type failures struct {
	n     int
	until time.Time // no attempt is checked before this
}

const (
	sessionTTL = 30 * 24 * time.Hour
	// freeFailures wrong tokens from one address are answered at once;
	// after them each waits twice as long as the last, from a second up
	// to maxBackoff, and attempts in the wait get 429 unchecked.
	freeFailures = 5
	maxBackoff   = 5 * time.Minute
	// maxTracked bounds the addresses remembered.
	maxTracked = 10000
)

func newSignIn() *signIn {
	return &signIn{sessions: map[string]time.Time{}, fails: map[string]*failures{}, now: time.Now}
}

// newSession starts a session and returns its id.
func (s *signIn) newSession() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, exp := range s.sessions {
		if now.After(exp) {
			delete(s.sessions, k)
		}
	}
	s.sessions[id] = now.Add(sessionTTL)
	return id
}

// valid reports whether id is a live session.
func (s *signIn) valid(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.sessions[id]
	return ok && s.now().Before(exp)
}

// revoke ends a session.
func (s *signIn) revoke(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, id)
}

// wait is how long the client at addr must wait before its next token is
// checked (0: now).
func (s *signIn) wait(addr string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.fails[addr]; f != nil {
		return max(f.until.Sub(s.now()), 0)
	}
	return 0
}

// failed records a wrong token from addr.
func (s *signIn) failed(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.fails) >= maxTracked {
		for k, f := range s.fails {
			if now.After(f.until.Add(maxBackoff)) {
				delete(s.fails, k)
			}
		}
	}
	f := s.fails[addr]
	if f == nil {
		f = &failures{}
		s.fails[addr] = f
	}
	f.n++
	if f.n > freeFailures {
		backoff := min(time.Second<<min(f.n-freeFailures-1, 20), maxBackoff)
		f.until = now.Add(backoff)
	}
}

// succeeded clears addr's wrong tokens.
func (s *signIn) succeeded(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.fails, addr)
}

// clientAddr is the address a request came from: the connection's peer
// (headers such as X-Forwarded-For are the client's to write).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
