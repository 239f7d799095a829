package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
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
		if err := a.Runs.Resume(ctx); err != nil {
			log.Error("resume unfinished extractions", "error", err)
		}
		w, err := a.Runs.StartWorker(ctx, *wo)
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
	out := &lockedWriter{w: stdout}
	err = handlers.MCPServer(a, version).Run(ctx, &mcp.IOTransport{Reader: checkedLines(stdin, out, log), Writer: nopWriteCloser{out}})
	if err != nil && ctx.Err() != nil {
		return nil // stopped by a signal
	}
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// maxMCPLine bounds one line (one JSON-RPC message) read from stdin.
const maxMCPLine = 32 << 20

// checkedLines passes the lines of in that hold a JSON-RPC message (a
// JSON object or batch) on to the reader it returns, and answers any other
// line on out with a JSON-RPC error (-32700 for a line that is not JSON,
// -32600 for JSON that is no message), so one malformed line is refused
// instead of ending the session. Blank lines are skipped.
func checkedLines(in io.Reader, out io.Writer, log *slog.Logger) io.ReadCloser {
	pr, pw := io.Pipe()
	refuse := func(code int, msg string, size int) error {
		log.Warn("mcp: malformed line refused", "bytes", size, "code", code)
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
		_, err := out.Write(append(b, '\n'))
		return err
	}
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r, maxMCPLine)
			t := bytes.TrimSpace(line)
			var werr error
			switch {
			case err == errLineTooLong:
				werr = refuse(-32700, fmt.Sprintf("Parse error: a message is at most %d bytes", maxMCPLine), maxMCPLine)
				err = nil
			case len(t) == 0:
			case !json.Valid(t):
				werr = refuse(-32700, "Parse error: the line is not JSON", len(t))
			case t[0] != '{' && t[0] != '[':
				werr = refuse(-32600, "Invalid Request: a message is a JSON object (or a batch of them)", len(t))
			default:
				_, werr = pw.Write(append(t, '\n'))
			}
			if werr != nil {
				pw.CloseWithError(werr)
				return
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (without its newline) of at most max bytes; a
// longer one is read to its end, dropped, and errLineTooLong returned.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= max {
			line = append(line, chunk...)
		} else {
			for err == bufio.ErrBufferFull {
				_, err = r.ReadSlice('\n')
			}
			if err == nil || err == io.EOF {
				return nil, errLineTooLong
			}
			return nil, err
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}

// lockedWriter serializes writes: the server's messages and the errors
// for malformed lines share stdout, a whole message a write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
