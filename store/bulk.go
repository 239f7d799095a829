package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"entgo.io/ent/dialect"
)

// Bulk writes of the graph tables go through database/sql with statements
// of their own rather than through Ent's builders, which cost more per row
// than the database does. On PostgreSQL an upsert is one statement with
// one array parameter per column (INSERT ... SELECT FROM unnest(...)), so
// its text never changes and the driver prepares it once; large batches of
// new rows go in with COPY (bulk_copy.go). On SQLite, which runs
// in-process, a batch is one multi-row VALUES statement, prepared once per
// store when it is a full batch (bulk_stmt.go).

// Rows per statement (and per transaction in WriteGraph). SQLite allows
// 32766 bind parameters per statement; the widest table here has 8
// columns. PostgreSQL's array parameters have no such limit.
const (
	sqliteBulkRows   = 2000
	postgresBulkRows = 5000
)

// sqliteTxRows is the most rows WriteGraph writes in one SQLite
// transaction (in statements of sqliteBulkRows rows).
const sqliteTxRows = 100_000

// sqliteCacheKiB is the page cache, in KiB, of a transaction that writes
// up to rows rows into a table holding about as many: room for the rows
// and their index entries (some 200 bytes a row), at least SQLite's
// default and at most 64 MiB.
func sqliteCacheKiB(rows int) int {
	return min(max(rows*200/1024, sqliteDefaultCacheKiB), 64<<10)
}

// bulkRows is the number of rows per bulk statement for a dialect.
func bulkRows(dia string) int {
	if dia == dialect.Postgres {
		return postgresBulkRows
	}
	return sqliteBulkRows
}

// inTxLanes runs lanes of batches of one version's rows, each batch in a
// transaction of its own (on SQLite with a page cache of cacheKiB, see
// inTxBulk), and returns
// the first error. The batches of a lane run in turn, so rows
// get their ids in the order given and a graph loads back in that order;
// on PostgreSQL the lanes (one per table) run at the same time, on their
// own connections, so that encoding, the network and the server's work
// overlap. SQLite has one writer at a time and runs the lanes in turn.
// Batches that committed before an error stay written; the writes are
// idempotent, so a retry completes them.
func (s *Store) inTxLanes(ctx context.Context, cacheKiB, versionID int, lanes ...[]func(ctx context.Context, tx *writeTx) error) error {
	runLane := func(ctx context.Context, lane []func(ctx context.Context, tx *writeTx) error) error {
		for _, fn := range lane {
			if err := s.inTxBulk(ctx, cacheKiB, versionID, func(tx *writeTx) error { return fn(ctx, tx) }); err != nil {
				return err
			}
		}
		return nil
	}
	if s.Dialect != dialect.Postgres {
		for _, lane := range lanes {
			if err := runLane(ctx, lane); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for _, lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runLane(ctx, lane); err != nil {
				once.Do(func() { firstErr = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// bulkTable describes one upsert: the table, its columns after version_id
// (quoted where a dialect needs it), their PostgreSQL array types, the
// conflict target and the columns that take the new values (none means DO
// NOTHING).
type bulkTable struct {
	name     string
	cols     []string
	pgTypes  []string
	conflict string
	update   []string
	// add lists the columns an update adds the new value to rather than
	// takes it (a node's degree: a merge writes its increment).
	add []string
	// concat lists the text columns an update appends the new value to
	// (a node's or an edge's mentions: a write gives only new ones).
	concat []string
}

var (
	nodesTable = bulkTable{
		name:     "nodes",
		cols:     []string{`"key"`, "name", `"type"`, "description", "properties", "degree", "mentions"},
		pgTypes:  []string{"text", "text", "text", "text", "text", "int8", "text"},
		conflict: `version_id, "key"`,
		update:   []string{"name", `"type"`, "description", "properties"},
		add:      []string{"degree"},
		concat:   []string{"mentions"},
	}
	edgesTable = bulkTable{
		name:     "edges",
		cols:     []string{"source", "target", "label", "keywords", "description", "description_ref", "weight", "properties", "mentions"},
		pgTypes:  []string{"text", "text", "text", "text", "text", "int8", "float8", "text", "text"},
		conflict: "version_id, source, label, target",
		update:   []string{"keywords", "description", "description_ref", "weight", "properties"},
		concat:   []string{"mentions"},
	}
)

// tail is the ON CONFLICT clause.
func (t bulkTable) tail() string {
	if t.conflict == "" {
		return ""
	}
	var sb strings.Builder
	sb.WriteString(" ON CONFLICT (")
	sb.WriteString(t.conflict)
	sb.WriteString(") DO ")
	if len(t.update) == 0 {
		sb.WriteString("NOTHING")
		return sb.String()
	}
	sb.WriteString("UPDATE SET ")
	for i, c := range t.update {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(c + " = excluded." + c)
	}
	for _, c := range t.add {
		sb.WriteString(", " + c + " = " + t.name + "." + c + " + excluded." + c)
	}
	for _, c := range t.concat {
		sb.WriteString(", " + c + " = " + t.name + "." + c + " || excluded." + c)
	}
	return sb.String()
}

func (t bulkTable) head() string {
	return "INSERT INTO " + t.name + " (version_id, " + strings.Join(t.cols, ", ") + ")"
}

// statements caches the SQL text per table and row count.
var statements sync.Map // string -> string

// pgSQL is the PostgreSQL statement: one array parameter per column.
func (t bulkTable) pgSQL() string {
	key := "pg/" + t.name
	if q, ok := statements.Load(key); ok {
		return q.(string)
	}
	var sb strings.Builder
	sb.WriteString(t.head())
	sb.WriteString(" SELECT $1::int8, * FROM unnest(")
	for i, typ := range t.pgTypes {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("$" + strconv.Itoa(i+2) + "::" + typ + "[]")
	}
	sb.WriteString(")")
	sb.WriteString(t.tail())
	q := sb.String()
	statements.Store(key, q)
	return q
}

// sqliteSQL is the SQLite statement for rows rows. For rows that are all
// new (allNew) it is a plain INSERT, which looks each key up once where an
// upsert looks it up again to insert it, and OR ROLLBACK: a violation (none
// is expected) ends the whole transaction, which fails anyway, so SQLite
// need not journal the statement's pages to undo it alone (see inTxBulk).
func (t bulkTable) sqliteSQL(rows int, allNew bool) string {
	key := "sqlite/" + t.name + "/" + strconv.Itoa(rows) + "/" + strconv.FormatBool(allNew)
	if q, ok := statements.Load(key); ok {
		return q.(string)
	}
	one := "(?" + strings.Repeat(",?", len(t.cols)) + ")"
	var sb strings.Builder
	sb.Grow(len(one)*rows + 300)
	if allNew {
		sb.WriteString("INSERT OR ROLLBACK" + strings.TrimPrefix(t.head(), "INSERT"))
	} else {
		sb.WriteString(t.head())
	}
	sb.WriteString(" VALUES ")
	for i := 0; i < rows; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(one)
	}
	if !allNew {
		sb.WriteString(t.tail())
	}
	q := sb.String()
	statements.Store(key, q)
	return q
}

// columns holds a batch column by column: each entry is a []string,
// []int64 or []float64 of the same length.
type columns []any

func (c columns) value(col, row int) any {
	switch v := c[col].(type) {
	case []string:
		return v[row]
	case []int64:
		return v[row]
	case []float64:
		return v[row]
	}
	panic(fmt.Sprintf("store: unsupported bulk column %T", c[col]))
}

// exec writes rows rows of cols into t in one statement.
func (t bulkTable) exec(ctx context.Context, b *writeTx, versionID, rows int, cols columns) error {
	if rows == 0 {
		return nil
	}
	if b.dialect == dialect.Postgres {
		if b.copy && rows >= copyMinRows {
			if done, err := t.tryCopy(ctx, b, versionID, rows, cols); err != nil || done {
				return err
			}
		}
		args := make([]any, 0, len(cols)+1)
		args = append(args, int64(versionID))
		args = append(args, cols...)
		_, err := b.ExecContext(ctx, t.pgSQL(), args...)
		return err
	}
	// A batch goes in as statements of a few sizes (a full batch, then
	// powers of four), each prepared once per store: parsing a statement
	// of a new size for every chunk cost as much as running it. The rows
	// keep their order.
	for start := 0; start < rows; {
		n := sqliteStmtRows(rows - start)
		args := make([]any, 0, n*(len(cols)+1))
		for r := start; r < start+n; r++ {
			args = append(args, versionID)
			for c := range cols {
				args = append(args, cols.value(c, r))
			}
		}
		if _, err := b.execCached(ctx, t.sqliteSQL(n, b.allNew), args...); err != nil {
			return err
		}
		start += n
	}
	return nil
}

// sqliteStmtRows is the rows of the next statement for n rows left: a
// full batch, or the largest power of four up to n.
func sqliteStmtRows(n int) int {
	if n >= sqliteBulkRows {
		return sqliteBulkRows
	}
	p := 1
	for p*4 <= n {
		p *= 4
	}
	return p
}
