package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/handlers"
)

// cmdServe runs the web server until ctx is done.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("serve", stderr)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (env KGSTUDIO_ADDR)")
	fs.IntVar(&cfg.MaxUpload, "max-upload", cfg.MaxUpload, "largest accepted upload in bytes (env KGSTUDIO_MAX_UPLOAD)")
	fs.StringVar(&cfg.PublicURL, "public-url", cfg.PublicURL, "the URL users reach this server by, e.g. behind a proxy; its host is accepted (env KGSTUDIO_PUBLIC_URL)")
	noSample := fs.Bool("no-sample", false, "do not add the sample document to an empty database")
	noWorker := fs.Bool("no-worker", false, "serve pages only; run no extraction jobs (other kgstudio worker processes run them)")
	wo := workerFlags(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := cfg.checkServe(); err != nil {
		return err
	}
	log := cfg.logger(stderr)
	runner, err := cfg.openMain(ctx, log)
	if err != nil {
		return err
	}
	defer runner.Close()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("address %s is already in use; pick another with --addr", cfg.Addr)
		}
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	h := handlers.New(runner, log, handlers.Config{MaxUploadBytes: cfg.MaxUpload,
		BindAddr: cfg.Addr, PublicURL: cfg.PublicURL, Token: cfg.Token, Version: version})
	e := h.NewServer()
	// Bodies must arrive within a bound (a 20 MB upload at 1 Mbit/s takes under
	// three minutes); responses are not bounded, so long exports still stream.
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute}

	if err := runner.EnsureDefaults(ctx); err != nil {
		return err
	}
	// Extraction jobs run here too, unless another process runs them:
	// the workers start at once and take jobs in the background.
	var worker *app.Worker
	if !*noWorker {
		if worker, err = runner.Runs.StartWorker(ctx, *wo); err != nil {
			return err
		}
	}
	// The listener answers before any user work runs: resuming stored
	// runs and adding the sample come after it, so a run that cannot be
	// resumed never keeps /healthz from answering.
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "kgstudio serving on http://%s (database: %s)\n", ln.Addr(), runner.Database())
	if cfg.Token != "" {
		fmt.Fprintln(stdout, "a token is required: API clients send Authorization: Bearer $KGSTUDIO_TOKEN; browsers sign in at /login")
	}
	if err := runner.Runs.Resume(ctx); err != nil {
		log.Error("resume unfinished extractions", "error", err)
	}
	if !*noWorker {
		// Every workspace's jobs run here too (and resume).
		if err := runner.OpenWorkspaces(ctx); err != nil {
			log.Error("open workspaces", "error", err)
		}
		go runner.WatchWorkspaces(ctx, 30*time.Second)
	}
	go runner.Runs.WatchInterruptedWrites(ctx)
	if !*noSample {
		if _, err := runner.SeedSample(ctx); err != nil {
			log.Error("add sample", "error", err)
		}
	}
	log.Info("serving", "addr", ln.Addr().String(), "database", runner.Database(), "data", cfg.DataDir)

	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if worker != nil {
		// Jobs still running at the deadline are canceled and run again
		// on another worker (or on the next start).
		_ = worker.Stop(sctx)
	}
	return err
}
