package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serve on an address other machines can reach refuses to start without
// KGSTUDIO_TOKEN or with one under 16 characters, and with one answers the
// API only with the token.
func TestServe_TokenBeyondLoopback(t *testing.T) {
	t.Setenv("KGSTUDIO_TOKEN", "")
	_, stderr, err := cli(t, "serve", "--addr", "0.0.0.0:0", "--data", t.TempDir(), "--no-sample")
	if err == nil || !strings.Contains(err.Error(), "KGSTUDIO_TOKEN") {
		t.Fatalf("serve on 0.0.0.0 without a token: err %v (stderr %s)", err, stderr)
	}
	if _, _, err := cli(t, "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--public-url", "kg.example.org"); err == nil {
		t.Fatal("a public URL without a scheme was accepted")
	}

	// A short token is refused beyond loopback (KGSTUDIO_TOKEN=1 was
	// accepted), and still serves on loopback.
	t.Setenv("KGSTUDIO_TOKEN", "1")
	if _, _, err := cli(t, "serve", "--addr", "0.0.0.0:0", "--data", t.TempDir(), "--no-sample"); err == nil || !strings.Contains(err.Error(), "at least 16 characters") {
		t.Fatalf("serve on 0.0.0.0 with a 1-character token: err %v", err)
	}
	// Long but easy to guess: spaces, or one letter repeated.
	for _, weak := range []string{strings.Repeat(" ", 16), strings.Repeat("a", 20), "abababababababab", "tok 0123456789abcdef"} {
		t.Setenv("KGSTUDIO_TOKEN", weak)
		if _, _, err := cli(t, "serve", "--addr", "0.0.0.0:0", "--data", t.TempDir(), "--no-sample"); err == nil || !strings.Contains(err.Error(), "easy to guess") {
			t.Errorf("serve on 0.0.0.0 with token %q: err %v", weak, err)
		}
	}

	const token = "tok-0123456789abcdef"
	t.Setenv("KGSTUDIO_TOKEN", token)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "0.0.0.0:0", "--data", t.TempDir(), "--no-sample"}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed nothing: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	_, port, ok := strings.Cut(strings.Fields(strings.TrimPrefix(line, "kgstudio serving on http://"))[0], "]:")
	if !ok {
		t.Fatalf("no port in %q", line)
	}
	get := func(auth string) int {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+port+"/api/documents", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get(""); s != http.StatusUnauthorized {
		t.Errorf("without the token: status %d, want 401", s)
	}
	if s := get("Bearer " + token); s != http.StatusOK {
		t.Errorf("with the token: status %d, want 200", s)
	}
}
