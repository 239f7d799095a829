package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kgstudio/kgstudio/handlers"
)

// cmdMCP serves kgstudio's MCP server over stdin and stdout (newline
// delimited JSON-RPC), for agents that start it as a subprocess (Claude
// Desktop's "command"). It runs extraction jobs too, so the extract tool's
// runs finish while the agent is connected; logs go to stderr, never to
// the protocol's stdout.
func cmdMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("mcp", stderr)
	noWorker := fs.Bool("no-worker", false, "run no extraction jobs (other kgstudio processes run them)")
	wo := workerFlags(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := cfg.logger(stderr)
	a, err := cfg.openApp(ctx, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.EnsureDefaults(ctx); err != nil {
		return err
	}
	if !*noWorker {
		if err := a.Resume(ctx); err != nil {
			log.Error("resume unfinished extractions", "error", err)
		}
		w, err := a.StartWorker(ctx, *wo)
		if err != nil {
			return err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			_ = w.Stop(sctx)
		}()
	}
	log.Info("mcp server on stdio", "database", a.Database())
	err = handlers.MCPServer(a, version).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	if err != nil && ctx.Err() != nil {
		return nil // stopped by a signal
	}
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
