package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// A run whose first answer was garbage is fixed by retry NAME@1: version 2,
// parent 1, with one model call; the bad answer is not served again, the
// good one is, and --no-cache asks anew.
func TestRetry_CLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)
	good := "entity<|#|>Marley<|#|>person<|#|>Scrooge's dead partner.\nentity<|#|>Scrooge<|#|>person<|#|>He signed the register.\n" +
		"relation<|#|>Scrooge<|#|>Marley<|#|>partnership<|#|>Scrooge and Marley were partners.\n<|COMPLETE|>"
	srv := fakellm.New(t, fakellm.Options{Queue: []string{"Sorry, I cannot help with that.", good, good}})
	t.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
	t.Setenv("OPENAI_MODEL", "local")
	type result struct {
		extractJSON
		Calls         int `json:"calls"`
		CachedCalls   int `json:"cached_calls"`
		ParseFailures int `json:"parse_failures"`
		ParentID      int `json:"parent_id"`
	}
	decode := func(out string) result {
		t.Helper()
		var r result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		return r
	}

	// Nothing could be read: the run fails, with the reason and a last
	// line saying how many answers could not be read, rather than end done
	// with an empty graph.
	line, err := runCLI(t, data, "extract", "--name", "m", "--strategy", "tuple", "--provider", "openai", "--max-gleaning", "0", doc)
	if err == nil || !strings.Contains(err.Error(), "no model answer could be read") || !strings.Contains(line, "failed: 0 nodes") ||
		!strings.Contains(line, "1 model answers could not be read") {
		t.Fatalf("a run whose every answer failed to parse: %q, error %v", line, err)
	}
	first := decode(mustCLI(t, data, "version", "show", "m@1", "--json"))
	if first.Version != 1 || first.Status != "failed" || first.ParseFailures == 0 || first.Nodes != 0 {
		t.Fatalf("first run %+v, want garbage: failed, parse failures and no nodes", first)
	}
	before := srv.Count()
	second := decode(mustCLI(t, data, "retry", "m@1", "--json"))
	if paid := srv.Count() - before; paid != 1 {
		t.Errorf("retry made %d model calls, want 1", paid)
	}
	if second.Version != 2 || second.ParentID != first.ID || second.Status != "done" || second.Nodes == 0 || second.ParseFailures != 0 {
		t.Errorf("retry %+v", second)
	}
	if second.Calls-second.CachedCalls != 1 {
		t.Errorf("retry counts %d calls, %d cached; want one paid", second.Calls, second.CachedCalls)
	}
	if _, err := runCLI(t, data, "retry", "m@2"); err == nil {
		t.Error("retry of a version with nothing to retry succeeded")
	}

	// The same settings answer from the cache; --no-cache asks again.
	before = srv.Count()
	third := decode(mustCLI(t, data, "extract", "--json", "--name", "m", "--strategy", "tuple", "--provider", "openai", "--max-gleaning", "0", doc))
	if srv.Count() != before || third.Nodes == 0 {
		t.Errorf("cached re-run made %d calls, %d nodes", srv.Count()-before, third.Nodes)
	}
	decode(mustCLI(t, data, "extract", "--json", "--no-cache", "--name", "m", "--strategy", "tuple", "--provider", "openai", "--max-gleaning", "0", doc))
	if srv.Count() != before+1 {
		t.Errorf("--no-cache made %d calls, want 1", srv.Count()-before)
	}
}
