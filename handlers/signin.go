package handlers

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"sync"
	"time"
)

// Sign-in limits, held by the server process: wrong credentials slow
// their sender down (sessions themselves live in the database, see
// app.Accounts).
type signIn struct {
	mu    sync.Mutex
	fails map[string]*failures // by client address and by credential
	now   func() time.Time
}

type failures struct {
	n     int
	until time.Time // no attempt is checked before this
}

const (
	// freeFailures wrong credentials from one address are answered at
	// once; after them each waits twice as long as the last, from a
	// second up to maxBackoff, and attempts in the wait get 429 unchecked.
	freeFailures = 5
	maxBackoff   = 5 * time.Minute
	// maxTracked bounds the addresses remembered.
	maxTracked = 10000
)

func newSignIn() *signIn {
	return &signIn{fails: map[string]*failures{}, now: time.Now}
}

// Failures are counted per address ("addr:" keys) and per wrong
// credential tried ("cred:" keys, a digest of it): a client that keeps
// sending a stale token is slowed wherever it sends from, and an address
// is slowed whatever it tries. The right credential is never counted or
// refused (see requireToken).

// addrKey and credKey name an address's and a credential's count.
func addrKey(addr string) string { return "addr:" + addr }

func credKey(cred string) string {
	sum := sha256.Sum256([]byte(cred))
	return "cred:" + hex.EncodeToString(sum[:12])
}

// wait is how long a wrong token from addr, or the wrong credential cred,
// must wait before it is checked again (0: now).
func (s *signIn) wait(addr, cred string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var w time.Duration
	for _, k := range []string{addrKey(addr), credKey(cred)} {
		if f := s.fails[k]; f != nil {
			w = max(w, f.until.Sub(s.now()))
		}
	}
	return max(w, 0)
}

// failed records the wrong credential cred from addr.
func (s *signIn) failed(addr, cred string) {
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
	for _, k := range []string{addrKey(addr), credKey(cred)} {
		f := s.fails[k]
		if f == nil {
			f = &failures{}
			s.fails[k] = f
		}
		f.n++
		if f.n > freeFailures {
			backoff := min(time.Second<<min(f.n-freeFailures-1, 20), maxBackoff)
			f.until = now.Add(backoff)
		}
	}
}

// succeeded clears addr's count (a wrong credential's stays).
func (s *signIn) succeeded(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.fails, addrKey(addr))
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
