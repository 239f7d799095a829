package handlers

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// Retry is offered when asking again can change something: chunks that
// did not finish, a failed run, or a model's answers that did not parse;
// not for an offline run whose lines did not parse (it reads them the
// same way again), nor for a finished run where nothing failed.
func TestFillRetry_OnlyWhenItCanHelp(t *testing.T) {
	model := extract.Config{Strategy: extract.StrategyTuple, Provider: extract.ProviderOpenAI}
	offline := extract.Config{Strategy: extract.StrategyNLP}
	for _, c := range []struct {
		name string
		v    record.Version
		want bool
	}{
		{"done, nothing failed", record.Version{Status: record.StatusDone, ChunksDone: 4, ChunksTotal: 4, Config: model}, false},
		{"model answers unparsed", record.Version{Status: record.StatusDone, ChunksDone: 4, ChunksTotal: 4, ParseFailures: 2, Config: model}, true},
		{"offline lines unparsed", record.Version{Status: record.StatusDone, ChunksDone: 4, ChunksTotal: 4, ParseFailures: 3, Config: offline}, false},
		{"chunks missing", record.Version{Status: record.StatusCanceled, ChunksDone: 2, ChunksTotal: 4, Config: offline}, true},
		{"failed", record.Version{Status: record.StatusFailed, ChunksDone: 4, ChunksTotal: 4, Config: offline}, true},
		{"running", record.Version{Status: record.StatusRunning, ChunksDone: 2, ChunksTotal: 4, Config: model}, false},
	} {
		var p web.VersionPage
		fillRetry(context.Background(), nil, &p, c.v)
		if p.CanRetry != c.want {
			t.Errorf("%s: retry offered %t, want %t", c.name, p.CanRetry, c.want)
		}
	}
}
