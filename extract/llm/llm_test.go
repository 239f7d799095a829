package llm_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

const secretKey = "sk-test-SECRET-0123456789"

// providers builds each real client against the fake server.
func providers(t testing.TB, srv *fakellm.Server) map[string]llm.Client {
	t.Helper()
	g, err := llm.NewGemini(context.Background(), llm.GeminiConfig{APIKey: secretKey, BaseURL: srv.GeminiURL()})
	if err != nil {
		t.Fatalf("NewGemini: %v", err)
	}
	o, err := llm.NewOpenAI(llm.OpenAIConfig{APIKey: secretKey, BaseURL: srv.OpenAIURL(), Model: "qwen2.5:7b"})
	if err != nil {
		t.Fatalf("NewOpenAI: %v", err)
	}
	return map[string]llm.Client{"gemini": g, "openai": o}
}

func chat(user string) llm.Request {
	return llm.Request{Messages: []llm.Message{
		{Role: "system", Content: "You extract graphs."},
		{Role: "user", Content: user},
	}, Purpose: "extract"}
}

func TestClient_Complete(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "Scrooge", Text: "entity<|#|>Scrooge<|#|>person<|#|>A miser.\n<|COMPLETE|>"},
		{Contains: "json please", Text: `{"entities":[]}`},
	}})
	for name, c := range providers(t, srv) {
		t.Run(name+"/text", func(t *testing.T) {
			resp, err := c.Complete(context.Background(), chat("Text about Scrooge."))
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if !strings.HasPrefix(resp.Text, "entity<|#|>Scrooge") {
				t.Errorf("text = %q", resp.Text)
			}
			r := resp.Record
			if string(r.Provider) != name || r.Key == "" || r.PromptTokens == 0 || r.OutputTokens == 0 || r.Purpose != "extract" {
				t.Errorf("record = %+v", r)
			}
			if strings.Contains(r.Request, secretKey) {
				t.Error("API key leaked into the record")
			}
			last := srv.Calls()[len(srv.Calls())-1]
			if last.API != name || len(last.Messages) != 2 || last.Messages[0].Role != "system" {
				t.Errorf("server saw %+v", last)
			}
		})
		t.Run(name+"/json", func(t *testing.T) {
			req := chat("json please")
			req.JSONSchema = map[string]any{"type": "object", "properties": map[string]any{"entities": map[string]any{"type": "array"}}}
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != `{"entities":[]}` {
				t.Errorf("text = %q", resp.Text)
			}
			if last := srv.Calls()[len(srv.Calls())-1]; !last.JSON {
				t.Error("request did not ask for JSON output")
			}
		})
		t.Run(name+"/unmatched is invalid", func(t *testing.T) {
			_, err := c.Complete(context.Background(), chat("nothing recorded"))
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("kind = %v (%v)", extract.KindOf(err), err)
			}
			if strings.Contains(err.Error(), secretKey) {
				t.Error("API key leaked into the error")
			}
		})
		t.Run(name+"/no messages", func(t *testing.T) {
			_, err := c.Complete(context.Background(), llm.Request{})
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("kind = %v", extract.KindOf(err))
			}
		})
	}
}

func TestGemini_BaseURLFromEnv(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Text: "ok"}}})
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.GeminiURL())
	g, err := llm.NewGemini(context.Background(), llm.GeminiConfig{APIKey: secretKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Complete(context.Background(), chat("hi")); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if srv.Count() != 1 {
		t.Fatalf("server got %d requests, want 1", srv.Count())
	}
	if got := srv.Calls()[0].Model; got != llm.DefaultGeminiModel {
		t.Errorf("model = %q", got)
	}
}

func TestWithPolicy_Complete(t *testing.T) {
	fast := llm.Policy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetries: 3}
	tests := []struct {
		name      string
		opts      fakellm.Options
		wantErr   extract.ErrorKind
		wantCount int
	}{
		{"two 429 then success", fakellm.Options{FailFirst: 2, RetryAfter: "0"}, "", 3},
		{"503 then success", fakellm.Options{FailFirst: 1, FailStatus: 503}, "", 2},
		{"429 forever", fakellm.Options{FailFirst: 100}, extract.KindUnavailable, 4},
		{"400 is not retried", fakellm.Options{FailFirst: 100, FailStatus: 400}, extract.KindInvalid, 1},
	}
	for _, tt := range tests {
		for _, api := range []string{"gemini", "openai"} {
			t.Run(tt.name+"/"+api, func(t *testing.T) {
				opts := tt.opts
				opts.Rules = []fakellm.Rule{{Text: "fine"}}
				srv := fakellm.New(t, opts)
				c := llm.WithPolicy(providers(t, srv)[api], fast)
				resp, err := c.Complete(context.Background(), chat("x"))
				if tt.wantErr == "" {
					if err != nil || resp.Text != "fine" {
						t.Fatalf("got %q, %v", resp.Text, err)
					}
				} else if extract.KindOf(err) != tt.wantErr {
					t.Fatalf("kind = %v (%v), want %v", extract.KindOf(err), err, tt.wantErr)
				}
				if srv.Count() != tt.wantCount {
					t.Errorf("server got %d requests, want %d", srv.Count(), tt.wantCount)
				}
			})
		}
	}
}

// A server that refuses the connection (nothing listens at its port) is
// tried twice, not MaxRetries+1 times: a model server that is down fails
// a call at once, and Refused says so.
func TestWithPolicy_ConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, a)
	}}
	o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://" + addr + "/v1", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	c := llm.WithPolicy(o, llm.Policy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetries: 4})
	_, err = c.Complete(context.Background(), chat("x"))
	if extract.KindOf(err) != extract.KindUnavailable || !llm.Refused(err) {
		t.Fatalf("kind %v, refused %t: %v", extract.KindOf(err), llm.Refused(err), err)
	}
	if n := dials.Load(); n != 2 || !strings.Contains(err.Error(), "after 2 attempts") {
		t.Errorf("%d connections tried (%v), want 2", n, err)
	}
	// A status from a server that is up is not a refused connection.
	srv := fakellm.New(t, fakellm.Options{FailFirst: 100, FailStatus: 503})
	_, err = llm.WithPolicy(providers(t, srv)["openai"], llm.Policy{BaseDelay: time.Millisecond, MaxRetries: 2}).Complete(context.Background(), chat("x"))
	if err == nil || llm.Refused(err) || srv.Count() != 3 {
		t.Errorf("503: refused %t, %d requests (%v)", llm.Refused(err), srv.Count(), err)
	}
}

func TestWithPolicy_RetryAfter(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{FailFirst: 1, RetryAfter: "1", Rules: []fakellm.Rule{{Text: "ok"}}})
	c := llm.WithPolicy(providers(t, srv)["openai"], llm.Policy{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	start := time.Now()
	if _, err := c.Complete(context.Background(), chat("x")); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("retried after %v, want at least the 1s Retry-After", d)
	}
}

// slowClient counts calls in flight.
type slowClient struct {
	inFlight, peak atomic.Int32
	calls          atomic.Int32
	delay          time.Duration
}

func (s *slowClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	s.calls.Add(1)
	select {
	case <-time.After(s.delay):
		return llm.Response{Text: "ok"}, nil
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

func TestWithPolicy_Limits(t *testing.T) {
	t.Run("concurrency", func(t *testing.T) {
		sc := &slowClient{delay: 20 * time.Millisecond}
		c := llm.WithPolicy(sc, llm.Policy{Concurrency: 3})
		var wg sync.WaitGroup
		for range 12 {
			wg.Go(func() { _, _ = c.Complete(context.Background(), chat("x")) })
		}
		wg.Wait()
		if p := sc.peak.Load(); p != 3 {
			t.Errorf("peak in flight = %d, want 3", p)
		}
	})
	t.Run("timeout is retried then unavailable", func(t *testing.T) {
		sc := &slowClient{delay: time.Second}
		c := llm.WithPolicy(sc, llm.Policy{Timeout: 10 * time.Millisecond, MaxRetries: 2, BaseDelay: time.Millisecond})
		_, err := c.Complete(context.Background(), chat("x"))
		if extract.KindOf(err) != extract.KindUnavailable {
			t.Fatalf("kind = %v (%v)", extract.KindOf(err), err)
		}
		if n := sc.calls.Load(); n != 3 {
			t.Errorf("calls = %d, want 3", n)
		}
	})
	t.Run("caller cancel stops", func(t *testing.T) {
		sc := &slowClient{delay: time.Second}
		c := llm.WithPolicy(sc, llm.Policy{})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		_, err := c.Complete(ctx, chat("x"))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		if n := sc.calls.Load(); n != 1 {
			t.Errorf("calls = %d, want 1", n)
		}
	})
	t.Run("requests per minute", func(t *testing.T) {
		sc := &slowClient{}
		// 600/min = 10/s with a burst of 10: the 15th call waits ~0.5s.
		c := llm.WithPolicy(sc, llm.Policy{RequestsPerMinute: 600})
		start := time.Now()
		for range 15 {
			if _, err := c.Complete(context.Background(), chat("x")); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d < 400*time.Millisecond {
			t.Errorf("15 calls at 10/s took %v", d)
		}
	})
}

func TestKey(t *testing.T) {
	base := chat("hello")
	k := llm.Key("gemini", "m", base)
	tests := []struct {
		name string
		prov extract.Provider
		mod  string
		req  llm.Request
		same bool
	}{
		{"identical", "gemini", "m", chat("hello"), true},
		{"purpose ignored", "gemini", "m", func() llm.Request { r := chat("hello"); r.Purpose = "glean-1"; return r }(), true},
		{"provider", "openai", "m", base, false},
		{"model", "gemini", "m2", base, false},
		{"message", "gemini", "m", chat("hello!"), false},
		{"temperature", "gemini", "m", func() llm.Request { r := chat("hello"); r.Temperature = 0.2; return r }(), false},
		{"schema", "gemini", "m", func() llm.Request { r := chat("hello"); r.JSONSchema = map[string]any{"type": "object"}; return r }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.Key(tt.prov, tt.mod, tt.req) == k; got != tt.same {
				t.Errorf("same key = %v, want %v", got, tt.same)
			}
		})
	}
}

func TestCached_Complete(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{{Contains: "one", Text: "first"}, {Contains: "two", Text: "second"}}})
	for name, p := range providers(t, srv) {
		t.Run(name, func(t *testing.T) {
			srv.Reset()
			store := llm.NewMemoryStore()
			c := llm.Cached(p, extract.Provider(name), "m", store)
			ctx := context.Background()
			for round := range 2 {
				for _, q := range []string{"one", "two"} {
					resp, err := c.Complete(ctx, chat(q))
					if err != nil {
						t.Fatal(err)
					}
					if resp.Record.Cached != (round == 1) {
						t.Errorf("round %d %s: cached = %v", round, q, resp.Record.Cached)
					}
				}
			}
			if srv.Count() != 2 {
				t.Errorf("server got %d requests over two rounds, want 2", srv.Count())
			}
			if store.Len() != 2 {
				t.Errorf("store holds %d calls", store.Len())
			}
		})
	}
}

// failingStore fails every call.
type failingStore struct{}

func (failingStore) GetCall(context.Context, string) (extract.CallRecord, bool, error) {
	return extract.CallRecord{}, false, extract.Errorf(extract.KindUnavailable, "db down")
}
func (failingStore) PutCall(context.Context, extract.CallRecord) error { return nil }

func TestCached_StoreError(t *testing.T) {
	c := llm.Cached(&slowClient{}, "x", "m", failingStore{})
	_, err := c.Complete(context.Background(), chat("x"))
	if extract.KindOf(err) != extract.KindUnavailable {
		t.Fatalf("kind = %v", extract.KindOf(err))
	}
}

func TestStatusError_Retryable(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   bool
	}{{429, true}, {500, true}, {503, true}, {408, true}, {400, false}, {401, false}, {404, false}} {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			if got := (&llm.StatusError{Status: tt.status}).Retryable(); got != tt.want {
				t.Errorf("Retryable = %v", got)
			}
		})
	}
}
