package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
)

func TestParsePrices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    map[string]app.Price
		wantErr bool
	}{
		{"Two", "my-model=1/2; Other=0.5/0.25", map[string]app.Price{"my-model": {Input: 1, Output: 2}, "other": {Input: 0.5, Output: 0.25}}, false},
		{"Empty", " ; ", map[string]app.Price{}, false},
		{"NoSlash", "m=1", nil, true},
		{"NotANumber", "m=a/2", nil, true},
		{"NoModel", "=1/2", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]app.Price{}
			err := parsePrices(tt.in, got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if tt.wantErr {
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v", got)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Fatalf("%s: got %v want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestConfig_Validate(t *testing.T) {
	t.Setenv("KGSTUDIO_PRICES", "broken")
	_, cfg := newFlagSet("x", nil)
	if err := cfg.Validate(); err == nil {
		t.Fatal("a broken price table must be refused")
	}
	t.Setenv("KGSTUDIO_PRICES", "local=0/0")
	_, cfg = newFlagSet("x", nil)
	if err := cfg.Validate(); err != nil || cfg.Providers.Prices["local"] != (app.Price{}) || cfg.Providers.Prices["gemini-2.5-flash"].Input == 0 {
		t.Fatalf("prices: %v %v", err, cfg.Providers.Prices)
	}
}

func TestConfig_RateLimits(t *testing.T) {
	t.Setenv("KGSTUDIO_LLM_RPM", "60")
	t.Setenv("KGSTUDIO_LLM_TPM", "100000")
	_, cfg := newFlagSet("x", nil)
	if err := cfg.Validate(); err != nil || cfg.Providers.RequestsPerMinute != 60 || cfg.Providers.TokensPerMinute != 100000 {
		t.Fatalf("limits: %v %+v", err, cfg.Providers)
	}
	t.Setenv("KGSTUDIO_LLM_RPM", "many")
	_, cfg = newFlagSet("x", nil)
	if err := cfg.Validate(); err == nil {
		t.Fatal("a malformed limit must be refused")
	}
}

func TestConfig_LLMTimeout(t *testing.T) {
	t.Setenv("KGSTUDIO_LLM_TIMEOUT", "90s")
	t.Setenv("KGSTUDIO_LLM_RETRY_DELAY", "50ms")
	_, cfg := newFlagSet("x", nil)
	if err := cfg.Validate(); err != nil || cfg.Providers.Timeout != 90*time.Second || cfg.Providers.RetryDelay != 50*time.Millisecond {
		t.Fatalf("timeout %v, retry delay %v: %v", cfg.Providers.Timeout, cfg.Providers.RetryDelay, err)
	}
	for _, key := range []string{"KGSTUDIO_LLM_TIMEOUT", "KGSTUDIO_LLM_RETRY_DELAY"} {
		for _, bad := range []string{"soon", "-1s", "0"} {
			t.Setenv(key, bad)
			_, cfg = newFlagSet("x", nil)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("%s=%s: %v", key, bad, err)
			}
		}
		t.Setenv(key, "1s")
	}
}

func TestCommonFlagsLast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"--data d doc list", "doc list --data d"},
		{"--data=d --log-level debug version show x@1", "version show x@1 --data=d --log-level debug"},
		{"doc list --data d", "doc list --data d"},
		{"--help", "--help"},
		{"--data d", "--data d"},
		{"--bogus doc list", "--bogus doc list"},
	} {
		if got := strings.Join(commonFlagsLast(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
	// End to end: the data folder given before the command is the one used.
	data := t.TempDir()
	mustCLI(t, data, "doc", "add", writeFile(t, "a.txt", "Ada Lovelace met Charles Babbage."))
	out, err := cliOut(t, "--data", data, "doc", "list")
	if err != nil || !strings.Contains(out, "a.txt") {
		t.Fatalf("kgstudio --data DIR doc list: %q %v", out, err)
	}
}

// TestCLIFlagErrors: a bad flag is one error naming the command and the
// flag, without the flag list; -h lists the flags and is no error; a
// usage message keeps its lines on the terminal.
func TestCLIFlagErrors(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"doc", "list", "--bogus", "--data", t.TempDir()}, strings.NewReader(""), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "doc list: flag provided but not defined: -bogus") || strings.Contains(stderr.String(), "-log-level") {
		t.Fatalf("bad flag: %v; stderr %q", err, stderr.String())
	}
	stderr.Reset()
	err = run(t.Context(), []string{"doc", "list", "-h"}, strings.NewReader(""), &stdout, &stderr)
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr.String(), "-log-level") {
		t.Fatalf("-h: %v; stderr %q", err, stderr.String())
	}
	if got := oneLine(errors.New(versionUsage)); strings.Count(got, "\n") < 3 {
		t.Errorf("usage flattened: %q", got)
	}
}

// A version asked of a data folder that holds no extractions (the command
// run outside the folder meant) names the folder it opened; once the
// folder holds one, "not found" is all there is to say.
func TestVersionShow_EmptyFolderSaysWhere(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	_, err := runCLI(t, data, "version", "show", "carol@1")
	if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), data) ||
		!strings.Contains(err.Error(), "holds no extractions") {
		t.Fatalf("empty folder: %v", err)
	}
	mustCLI(t, data, "extract", "--name", "x", writeFile(t, "marley.txt", marleyText))
	_, err = runCLI(t, data, "version", "show", "carol@1")
	if err == nil || strings.Contains(err.Error(), "holds no extractions") {
		t.Errorf("folder with an extraction: %v", err)
	}
}

// version show prints a run's config a setting a line, a prompt by its
// first line and size, not as one long line of JSON.
func TestConfigLines_Readable(t *testing.T) {
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyTuple
	prompt := "You read a text and list its entities.\n" + strings.Repeat("Keep every name as written. ", 300)
	cfg.Prompts = map[string]string{"extract": prompt}
	got := configLines(cfg)
	for _, want := range []string{"  strategy: tuple\n", "  chunk_size: 1200\n",
		fmt.Sprintf("  prompts.extract: You read a text and list its entities.… (%d characters; --json shows it whole)\n", len(prompt))} {
		if !strings.Contains(got, want) {
			t.Errorf("config lines lack %q:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if len(line) > 160 {
			t.Errorf("a line of %d characters: %.80s…", len(line), line)
		}
	}
}
