package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// A foreground extract interrupted (Ctrl-C ends its context) says so and
// what finishes the run, fails, and leaves the version queued with no
// chunk error of its own making; a worker then finishes it.
func TestExtract_Interrupted(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	text, fake := personText(t, 30, 200, 100*time.Millisecond)
	doc := writeFile(t, "people.txt", text)
	t.Setenv("OPENAI_BASE_URL", fake.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(800*time.Millisecond, cancel)
	var out, errOut bytes.Buffer
	err := run(ctx, []string{"extract", "--name", "x", "--strategy", "tuple", "--provider", "openai", "--chunk-size", "200",
		"--overlap", "0", "--max-gleaning", "0", "--concurrency", "2", "--data", data, doc}, strings.NewReader(""), &out, &errOut)
	if err == nil {
		t.Fatal("an interrupted extract succeeded")
	}
	msg := oneLine(err)
	for _, want := range []string{"interrupted: x@1 stays queued", "kgstudio worker", "kgstudio version cancel x@1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "internal error") {
		t.Errorf("message %q", msg)
	}
	var v app.VersionJobsJSON
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "x@1", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Status != "queued" || v.ChunksDone >= v.ChunksTotal {
		t.Fatalf("after the interrupt: %s, %d of %d chunks", v.Status, v.ChunksDone, v.ChunksTotal)
	}
	if len(v.Jobs.Errors) != 0 || v.Jobs.Failed != 0 || v.Jobs.Queued == 0 {
		t.Fatalf("after the interrupt: jobs %+v", v.Jobs)
	}

	// A worker finishes the run.
	wctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var wout, werr bytes.Buffer
		done <- run(wctx, []string{"worker", "--concurrency", "4", "--data", data}, strings.NewReader(""), &wout, &werr)
	}()
	defer func() { stop(); <-done }()
	testkit.Eventually(t, 30*time.Second, func() error {
		if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "x@1", "--json")), &v); err != nil {
			t.Fatal(err)
		}
		if v.Status != "done" {
			return fmt.Errorf("the worker left x@1 %s, %d of %d chunks", v.Status, v.ChunksDone, v.ChunksTotal)
		}
		return nil
	})
	if v.Edges != 30 || len(v.Jobs.Errors) != 0 {
		t.Errorf("finished run: %d edges, errors %+v", v.Edges, v.Jobs.Errors)
	}
}
