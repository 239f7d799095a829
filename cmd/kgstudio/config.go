package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Config is everything read from flags and the environment.
type Config struct {
	Addr        string
	DataDir     string
	DatabaseURL string
	LogLevel    string
	LogFormat   string
	MaxUpload   int
	PublicURL   string
	Token       string
	Providers   app.Providers
	// Workspaces are the --workspace flags: the one workspace a data
	// command works in (none: the default), or those kgstudio user
	// makes a person a member of.
	Workspaces stringsFlag
	envErr     error
}

// stringsFlag is a flag that may be given more than once.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, ",") }

// Set adds one value.
func (f *stringsFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// DefaultConfig returns the zero-setup defaults.
func DefaultConfig() Config {
	return Config{
		Addr:      "127.0.0.1:8080",
		DataDir:   "./kgstudio-data",
		LogLevel:  "info",
		LogFormat: "text",
		MaxUpload: extract.DefaultMaxBytes,
		Providers: app.Providers{
			GeminiModel:      "gemini-2.5-flash",
			OpenAIModel:      "gpt-4o-mini",
			GeminiEmbedModel: "gemini-embedding-001",
			OpenAIEmbedModel: "text-embedding-3-small",
			Concurrency:      4,
			Timeout:          2 * time.Minute,
			Prices:           app.DefaultPrices(),
		},
	}
}

// fromEnv applies environment variables over the defaults.
func (c *Config) fromEnv() {
	set := func(dst *string, key string) {
		if v, ok := os.LookupEnv(key); ok && v != "" {
			*dst = v
		}
	}
	set(&c.Addr, "KGSTUDIO_ADDR")
	set(&c.DataDir, "KGSTUDIO_DATA")
	set(&c.DatabaseURL, "DATABASE_URL")
	set(&c.LogLevel, "KGSTUDIO_LOG_LEVEL")
	set(&c.LogFormat, "KGSTUDIO_LOG_FORMAT")
	set(&c.PublicURL, "KGSTUDIO_PUBLIC_URL")
	set(&c.Token, "KGSTUDIO_TOKEN")
	set(&c.Providers.GeminiAPIKey, "GEMINI_API_KEY")
	set(&c.Providers.GeminiModel, "GEMINI_MODEL")
	set(&c.Providers.GeminiBaseURL, "GOOGLE_GEMINI_BASE_URL")
	set(&c.Providers.OpenAIBaseURL, "OPENAI_BASE_URL")
	set(&c.Providers.OpenAIAPIKey, "OPENAI_API_KEY")
	set(&c.Providers.OpenAIModel, "OPENAI_MODEL")
	set(&c.Providers.GeminiEmbedModel, "GEMINI_EMBED_MODEL")
	set(&c.Providers.OpenAIEmbedModel, "OPENAI_EMBED_MODEL")
	set((*string)(&c.Providers.Embedder), "KGSTUDIO_EMBEDDER")
	if v := os.Getenv("KGSTUDIO_PRICES"); v != "" {
		c.envErr = parsePrices(v, c.Providers.Prices)
	}
	for key, dst := range map[string]*int{"KGSTUDIO_LLM_RPM": &c.Providers.RequestsPerMinute,
		"KGSTUDIO_LLM_TPM": &c.Providers.TokensPerMinute, "KGSTUDIO_LLM_CONCURRENCY": &c.Providers.Concurrency} {
		if v := os.Getenv(key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				c.envErr = fmt.Errorf("%s=%q: want a whole number", key, v)
			}
			*dst = n
		}
	}
	for key, dst := range map[string]*time.Duration{"KGSTUDIO_LLM_TIMEOUT": &c.Providers.Timeout,
		"KGSTUDIO_LLM_RETRY_DELAY": &c.Providers.RetryDelay} {
		if v := os.Getenv(key); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				c.envErr = fmt.Errorf("%s=%q: want a duration such as 500ms or 2m", key, v)
			}
			*dst = d
		}
	}
	if v := os.Getenv("KGSTUDIO_MAX_UPLOAD"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			c.MaxUpload = n
		}
	}
}

// commonFlags registers the flags every subcommand takes.
func (c *Config) commonFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.DataDir, "data", c.DataDir, "data directory (env KGSTUDIO_DATA)")
	fs.StringVar(&c.DatabaseURL, "db", c.DatabaseURL, "database URL: postgres://... or sqlite:PATH (env DATABASE_URL)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "log level: debug, info, warn, error")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "log format: text or json")
	switch fs.Name() {
	case "serve", "worker":
		// They serve and run every workspace.
	default:
		fs.Var(&c.Workspaces, "workspace", "the workspace to work in (default: default; kgstudio workspace add makes one)")
	}
}

// Validate checks the configuration once at start.
func (c Config) Validate() error {
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("--log-level %q: use debug, info, warn or error", c.LogLevel)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("--log-format %q: use text or json", c.LogFormat)
	}
	if c.envErr != nil {
		return c.envErr
	}
	if c.MaxUpload <= 0 {
		return errors.New("the upload limit must be positive")
	}
	return nil
}

// newFlagSet builds a subcommand's flag set with the common flags and the
// environment applied.
func newFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *Config) {
	cfg := DefaultConfig()
	// A command run once keeps its output to what it was asked: warnings
	// and errors on stderr, not every step (--log-level info brings them
	// back); the long-running processes log their steps.
	switch name {
	case "serve", "worker", "mcp":
	default:
		cfg.LogLevel = "warn"
	}
	cfg.fromEnv()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.commonFlags(fs)
	return fs, &cfg
}

// parse parses flags, allowing flags after positional arguments. -h
// prints the command's flags; a bad flag is one error naming it (not the
// flag package's message followed by every flag).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	help := slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
	if !help {
		out := fs.Output()
		fs.SetOutput(io.Discard)
		defer fs.SetOutput(out)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w (kgstudio %s -h lists its flags)", fs.Name(), err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func (c Config) logger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(c.LogLevel))
	opts := &slog.HandlerOptions{Level: lvl}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// loopbackAddr reports whether a listen address only accepts connections
// from this machine: a loopback IP or the name localhost.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// MinTokenLen is the shortest token a server reachable from other
// machines accepts: guessing it must not be a matter of minutes.
const MinTokenLen = 16

// checkServe checks the settings only serve uses: a server reachable from
// other machines needs a token of MinTokenLen characters or more, and a
// public URL must be absolute.
func (c Config) checkServe() error {
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--public-url %q: want an absolute http:// or https:// URL", c.PublicURL)
		}
	}
	if !loopbackAddr(c.Addr) && c.Token == "" {
		return fmt.Errorf("serve: %s is reachable from other machines, so a token is required: set KGSTUDIO_TOKEN "+
			"(clients then send Authorization: Bearer <token>; browsers sign in), or listen on 127.0.0.1", c.Addr)
	}
	if !loopbackAddr(c.Addr) && len(c.Token) < MinTokenLen {
		return fmt.Errorf("serve: %s is reachable from other machines, so KGSTUDIO_TOKEN must be at least %d characters (it has %d): "+
			"make one with `openssl rand -hex 16`, or listen on 127.0.0.1", c.Addr, MinTokenLen, len(c.Token))
	}
	if !loopbackAddr(c.Addr) && weakToken(c.Token) {
		return fmt.Errorf("serve: %s is reachable from other machines, and KGSTUDIO_TOKEN is easy to guess (spaces, or fewer than %d "+
			"different characters): make one with `openssl rand -hex 16`", c.Addr, minTokenKinds)
	}
	return nil
}

// minTokenKinds is the fewest different characters a token may hold.
const minTokenKinds = 8

// weakToken reports a token that is easy to guess however long: one with
// a space or another invisible character, or with fewer than
// minTokenKinds different characters ("aaaaaaaaaaaaaaaa").
func weakToken(tok string) bool {
	kinds := map[rune]bool{}
	for _, r := range tok {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return true
		}
		kinds[r] = true
	}
	return len(kinds) < minTokenKinds
}

// openApp opens the configured database and builds the application
// over it, logging to log. The caller closes it.
func (c Config) openApp(ctx context.Context, log *slog.Logger) (*app.App, error) {
	if len(c.Workspaces) > 1 {
		return nil, fmt.Errorf("one --workspace at a time (given %s)", c.Workspaces.String())
	}
	o := app.Options{URL: c.DatabaseURL, DataDir: c.DataDir}
	if len(c.Workspaces) == 1 {
		o.Workspace = c.Workspaces[0]
	}
	return app.Open(ctx, o, log, c.Providers)
}

// openMain opens the application in the default workspace, whatever
// --workspace says: serving, running jobs of every workspace, and
// managing people and workspaces start there.
func (c Config) openMain(ctx context.Context, log *slog.Logger) (*app.App, error) {
	c.Workspaces = nil
	return c.openApp(ctx, log)
}

// openVersion checks the configuration, opens the application and finds
// the version ref names (NAME@V, or NAME for its latest). The caller
// closes the application.
func (c Config) openVersion(ctx context.Context, ref string, log *slog.Logger) (*app.App, record.Version, error) {
	if err := c.Validate(); err != nil {
		return nil, record.Version{}, err
	}
	a, err := c.openApp(ctx, log)
	if err != nil {
		return nil, record.Version{}, err
	}
	v, err := c.versionByRef(ctx, a, ref)
	if err != nil {
		a.Close()
		return nil, record.Version{}, err
	}
	return a, v, nil
}

// versionByRef finds the version ref names. When it is not found and the
// database holds no extractions at all, the error says which database was
// opened: a command run outside the folder it was meant for opens (and
// creates) an empty one.
func (c Config) versionByRef(ctx context.Context, a *app.App, ref string) (record.Version, error) {
	v, err := a.Versions.ByRef(ctx, ref)
	if err == nil || extract.KindOf(err) != extract.KindNotFound {
		return v, err
	}
	if n, cerr := a.Versions.Counts(ctx); cerr != nil || n.Extractions > 0 {
		return v, err
	}
	where := "the data folder " + c.DataDir
	if abs, aerr := filepath.Abs(c.DataDir); aerr == nil {
		where = "the data folder " + abs
	}
	if c.DatabaseURL != "" {
		where = "the database of --db/DATABASE_URL"
	}
	hint := "give --data DIR or --db URL, or set KGSTUDIO_DATA, to open another"
	if all, werr := a.Accounts.Workspaces(ctx); werr == nil && len(all) > 1 {
		hint += "; or --workspace NAME for one of its workspaces: " + strings.Join(all, ", ")
	}
	return v, fmt.Errorf("%w: %s holds no extractions in workspace %s (%s)", err, where, a.Name(), hint)
}

// oneLine flattens an error for the terminal; a usage message keeps its
// lines.
func oneLine(err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, "usage:\n") {
		return strings.TrimSpace(msg)
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

// parsePrices reads "model=input/output;model=input/output" (US dollars per
// million tokens) into prices.
func parsePrices(s string, prices map[string]app.Price) error {
	for _, item := range strings.Split(s, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		model, pair, ok := strings.Cut(item, "=")
		in, out, ok2 := strings.Cut(pair, "/")
		pin, err1 := strconv.ParseFloat(strings.TrimSpace(in), 64)
		pout, err2 := strconv.ParseFloat(strings.TrimSpace(out), 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || strings.TrimSpace(model) == "" {
			return fmt.Errorf("KGSTUDIO_PRICES: %q is not model=input/output", item)
		}
		prices[strings.ToLower(strings.TrimSpace(model))] = app.Price{Input: pin, Output: pout}
	}
	return nil
}

// commonFlagsLast moves the flags every command takes (--data, --db,
// --log-level, --log-format) from before the command to after it, so
// "kgstudio --data DIR doc list" means "kgstudio doc list --data DIR".
func commonFlagsLast(args []string) []string {
	var lead []string
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch name {
		case "data", "db", "log-level", "log-format":
		default:
			return args // not ours (help, or a mistake the command reports)
		}
		lead = append(lead, args[i])
		if !hasValue && i+1 < len(args) {
			lead = append(lead, args[i+1])
			i++
		}
		i++
	}
	if len(lead) == 0 || i == len(args) {
		return args
	}
	return append(slices.Clone(args[i:]), lead...)
}
