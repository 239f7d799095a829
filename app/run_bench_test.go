package app

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/testkit"
	"github.com/kgstudio/kgstudio/store"
)

// corpusBytes is the size of the benchmark corpus: 2.7 MB of encyclopedia
// passages with A Christmas Carol in the middle.
const corpusBytes = 2_700_000

// benchCorpus builds the run benchmark's text from the shared data sets
// (read through testkit.Read, so the benchmark skips where they are
// absent, outside CI): the HotpotQA and MuSiQue passages (title, then
// text) in file order, repeated until the text holds 2.7 MB, the body of
// A Christmas Carol inserted after the first half of the passages;
// n < 2.7 MB keeps its first n bytes, cut at a passage boundary.
func benchCorpus(tb testing.TB, n int) []byte {
	tb.Helper()
	var passages []string
	for _, set := range []string{"hotpotqa", "musique"} {
		ps, err := extract.ReadCorpus(bytes.NewReader(testkit.Read(tb, "multihop/"+set+"_train_corpus.json")))
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range ps {
			passages = append(passages, p.Title+"\n"+strings.TrimSpace(p.Text))
		}
	}
	// The book without Project Gutenberg's header and licence, which the
	// nlp strategy skips with whatever precedes or follows its markers.
	carol := string(testkit.Read(tb, "corpora/a_christmas_carol_gutenberg24022.txt"))
	if _, after, ok := strings.Cut(carol, "*** START OF"); ok {
		_, carol, _ = strings.Cut(after, "\n")
	}
	carol, _, _ = strings.Cut(carol, "*** END OF")
	carol = strings.TrimSpace(carol)
	var out []string
	size := 0
	for i := 0; size < corpusBytes-len(carol); i++ {
		p := passages[i%len(passages)]
		out = append(out, p)
		size += len(p) + 2
	}
	out = append(out[:len(out)/2], append([]string{carol}, out[len(out)/2:]...)...)
	text := []byte(strings.Join(out, "\n\n") + "\n")
	if n >= len(text) {
		return text
	}
	cut := text[:n]
	return append(cut[:bytes.LastIndex(cut, []byte("\n\n"))], '\n')
}

// dirBytes is the size of the files under dir.
func dirBytes(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkRunCorpus is a whole offline run, as `kgstudio extract --name w
// corpus.txt` makes it (nlp, offline vectors, SQLite in a data folder;
// PostgreSQL too when KGSTUDIO_TEST_POSTGRES_URL is set), over a tenth of
// the 2.7 MB corpus and over all of it. It reports KB of text per
// CPU-second, the peak heap, the disk the database takes per byte of text
// (SQLite) and, on the whole corpus, how much more CPU ten times the text
// took (cpu-x10). KGSTUDIO_BENCH_CORPUS_OUT=DIR writes the two texts there
// (corpus-tenth.txt, corpus.txt) for runs of the command itself.
func BenchmarkRunCorpus(b *testing.B) {
	full := benchCorpus(b, corpusBytes)
	tenth := benchCorpus(b, corpusBytes/10)
	if dir := os.Getenv("KGSTUDIO_BENCH_CORPUS_OUT"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "corpus-tenth.txt"), tenth, 0o644)
		_ = os.WriteFile(filepath.Join(dir, "corpus.txt"), full, 0o644)
	}
	dbs := []string{"sqlite"}
	if testkit.PostgresURL(b) != "" {
		dbs = append(dbs, "postgres")
	}
	for _, db := range dbs {
		var tenthCPU float64
		for _, c := range []struct {
			name string
			text []byte
		}{{"tenth", tenth}, {"full", full}} {
			b.Run(db+"/"+c.name, func(b *testing.B) {
				var cpu float64
				for b.Loop() {
					r := runCorpus(b, db, c.text)
					cpu = r.cpu
					b.ReportMetric(float64(len(c.text))/1000/r.cpu, "KB/cpu-s")
					b.ReportMetric(r.cpu, "cpu-s")
					b.ReportMetric(float64(r.heap)/(1<<20), "peak-heap-MB")
					if r.disk > 0 {
						b.ReportMetric(float64(r.disk)/float64(len(c.text)), "disk/text")
					}
					b.ReportMetric(float64(r.nodes), "nodes")
					b.ReportMetric(float64(r.edges), "edges")
				}
				if c.name == "tenth" {
					tenthCPU = cpu
				} else if tenthCPU > 0 {
					b.ReportMetric(cpu/tenthCPU, "cpu-x10")
				}
			})
		}
	}
}

type corpusRun struct {
	cpu          float64
	heap         uint64
	disk         int64
	nodes, edges int
}

// runCorpus runs text once on a new database and measures the run.
func runCorpus(b *testing.B, db string, text []byte) corpusRun {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	opts := store.Options{DataDir: dir}
	if db == "postgres" {
		opts = testPostgres(b)
	}
	runtime.GC()
	var r corpusRun
	stop := testkit.SampleHeap(&r.heap)
	start := testkit.CPUSeconds(b)
	st, err := store.Open(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	a := newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Providers{Embedder: extract.EmbedderOffline})
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	if err := a.Runs.Prepare(ctx, &cfg, ""); err != nil {
		b.Fatal(err)
	}
	d, err := ReadDocument(b.Context(), "corpus.txt", text, 2*len(text))
	if err != nil {
		b.Fatal(err)
	}
	if d, _, err = st.AddDocument(ctx, d); err != nil {
		b.Fatal(err)
	}
	v, _, err := a.Runs.NewRun(ctx, RunRequest{Extraction: "w", Config: cfg, DocumentIDs: []int{d.ID}})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Runs.Run(ctx, v, nil); err != nil {
		b.Fatal(err)
	}
	if v, err = st.Version(ctx, v.ID); err != nil {
		b.Fatal(err)
	}
	r.nodes, r.edges = v.Nodes, v.Edges
	a.Runs.Shutdown(ctx)
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	r.cpu = testkit.CPUSeconds(b) - start
	stop()
	if db == "sqlite" {
		r.disk = dirBytes(b, dir)
	} else {
		r.disk = postgresBytes(b, opts.URL)
	}
	if v.Status != record.StatusDone {
		b.Fatalf("run ended %s: %s", v.Status, v.Error)
	}
	return r
}

// postgresBytes is the size of the database at url (pg_database_size:
// tables, indexes, TOAST and free space, the empty schema included). With
// KGSTUDIO_BENCH_TABLES set it logs each table's share.
func postgresBytes(b *testing.B, url string) int64 {
	b.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	if os.Getenv("KGSTUDIO_BENCH_TABLES") == "" {
		return n
	}
	rows, err := db.Query(`SELECT relname, pg_table_size(oid), pg_indexes_size(oid), n_live_tup, n_dead_tup, n_tup_ins, n_tup_upd, n_tup_hot_upd
		FROM pg_class JOIN pg_stat_user_tables USING (relname)
		WHERE relkind = 'r' ORDER BY pg_total_relation_size(oid) DESC LIMIT 12`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var table, index, live, dead, ins, upd, hot int64
		if err := rows.Scan(&name, &table, &index, &live, &dead, &ins, &upd, &hot); err != nil {
			b.Fatal(err)
		}
		b.Logf("%-20s table %6.1f MB  indexes %6.1f MB  rows %d live, %d dead; %d inserted, %d updated (%d HOT)", name, float64(table)/1e6, float64(index)/1e6, live, dead, ins, upd, hot)
	}
	return n
}
