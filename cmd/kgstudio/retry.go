package main

import (
	"context"
	"errors"
	"io"
)

// cmdRetry makes a new version from NAME@V that asks the model again only
// for the chunks that failed or did not parse, and runs it in the
// foreground.
func cmdRetry(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("retry", stderr)
	asJSON := fs.Bool("json", false, "print a JSON summary")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return errors.New("retry: name one version, NAME@V")
	}
	runner, v, err := cfg.openVersion(ctx, rest[0], cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer runner.Close()
	nv, err := runner.Runs.Retry(ctx, v)
	if err != nil {
		return err
	}
	return runAndReport(ctx, runner, nv, runMode{json: *asJSON, index: true}, stdout, stderr)
}
