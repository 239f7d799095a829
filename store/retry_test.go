package store_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
)

// A chunk written after PostgreSQL terminated every connection of the
// store (an administrator, a failover) is stored: the write retries in a
// fresh transaction instead of failing the run. The call cache recovers the
// same way.
func TestSink_WriteChunkAfterTerminatedConnections(t *testing.T) {
	if testkit.PostgresURL(t) == "" {
		t.Skip("set KGSTUDIO_TEST_POSTGRES_URL to run the PostgreSQL tests")
	}
	t.Parallel()
	ctx := context.Background()
	opts := postgresDB(t)
	s := MustOpen(t, opts)
	d := mustDoc(t, s, "a.txt", "Scrooge knew Marley.")
	v, err := s.NewVersion(ctx, "terminated", extract.DefaultConfig(), []int{d.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(opts.URL)
	dbName := strings.TrimPrefix(u.Path, "/")
	admin, err := sql.Open("pgx", os.Getenv("KGSTUDIO_TEST_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	terminate := func() {
		t.Helper()
		var n int
		if err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, dbName).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no connection of the store to terminate")
		}
	}
	sink := s.Sink(v.ID, 8)
	for i := 0; i < 3; i++ {
		terminate()
		res := extract.ChunkResult{Chunk: extract.ChunkRef{DocumentID: d.ID, Index: i}, Graph: extract.Graph{Nodes: []extract.Node{
			{Key: extract.NodeKey("Scrooge"), Name: "Scrooge", Type: "person"}}}}
		if err := sink.WriteChunk(ctx, res); err != nil {
			t.Fatalf("write chunk %d after the connections were terminated: %v", i, err)
		}
		terminate()
		if err := s.PutCall(ctx, extract.CallRecord{Key: "k" + string(rune('a'+i)), Provider: "openai", Model: "m", Request: "{}", Response: "ok"}); err != nil {
			t.Fatalf("put call %d after the connections were terminated: %v", i, err)
		}
	}
	done, err := sink.Finished(ctx)
	if err != nil || len(done) != 3 {
		t.Fatalf("finished chunks %v, %v", done, err)
	}
}
