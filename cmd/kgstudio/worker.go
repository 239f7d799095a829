package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/kgstudio/kgstudio/app"
)

// workerFlags adds the job-worker flags to fs.
func workerFlags(fs *flag.FlagSet) *app.WorkerOptions {
	o := &app.WorkerOptions{}
	fs.IntVar(&o.Concurrency, "concurrency", 4, "extraction jobs run at once by this process")
	fs.DurationVar(&o.JobTimeout, "job-timeout", app.DefaultJobTimeout, "longest one chunk job may run")
	fs.DurationVar(&o.RescueAfter, "rescue-after", app.DefaultRescueAfter, "how long a job may run before another worker takes it over (a dead worker's jobs)")
	return o
}

// cmdWorker runs extraction jobs until ctx is done: a process that serves
// no pages, for runs shared by many machines on one PostgreSQL.
func cmdWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("worker", stderr)
	wo := workerFlags(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if wo.Concurrency < 1 {
		return fmt.Errorf("worker: --concurrency must be at least 1")
	}
	log := cfg.logger(stderr)
	runner, err := cfg.openMain(ctx, log)
	if err != nil {
		return err
	}
	defer runner.Close()
	if err := runner.Runs.Resume(ctx); err != nil {
		log.Error("resume unfinished extractions", "error", err)
	}
	w, err := runner.Runs.StartWorker(ctx, *wo)
	if err != nil {
		return err
	}
	// Every workspace's jobs run here too (and resume).
	if err := runner.OpenWorkspaces(ctx); err != nil {
		log.Error("open workspaces", "error", err)
	}
	go runner.WatchWorkspaces(ctx, 30*time.Second)
	fmt.Fprintf(stdout, "kgstudio worker running %d jobs at a time (database: %s)\n", wo.Concurrency, runner.Database())
	log.Info("worker started", "concurrency", wo.Concurrency, "database", runner.Database())
	<-ctx.Done()
	log.Info("worker stopping")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	return w.Stop(sctx)
}
