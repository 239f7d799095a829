package store

import (
	"context"

	"entgo.io/ent/dialect"
)

// On PostgreSQL every update of a row leaves a dead copy of it, and a run
// updates a node or an edge each time a later chunk names it again (its
// weight, degree and mentions grow). The space of dead copies is reused
// only once VACUUM has marked it free, and autovacuum looks at a table
// about once a minute, so a run of a few minutes would grow the graph
// tables by its dead copies. reclaim runs VACUUM on them after every
// reclaimRows rows merged (outside any transaction, skipping a table
// another VACUUM holds), so later chunks reuse the space: the tables end
// near the size of their live rows. VACUUM skips the pages the visibility
// map says hold no dead rows, so its cost follows what changed since.

// reclaimRows is how many merged rows (nodes and edges) call for a VACUUM.
const reclaimRows = 4000

// reclaim counts rows merged and, on PostgreSQL, vacuums the graph
// tables once enough have been since the last time. Its errors are
// dropped: reclaiming space is never a reason to fail a run.
func (s *Store) reclaim(ctx context.Context, rows int) {
	if s.Dialect != dialect.Postgres || rows == 0 {
		return
	}
	if s.merged.Add(int64(rows)) < reclaimRows {
		return
	}
	s.merged.Store(0)
	_, _ = s.db.ExecContext(ctx, `VACUUM (SKIP_LOCKED) nodes, edges`)
}
