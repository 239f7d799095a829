package app

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// TimedSubgraph is a part of a graph that keeps fact times, as it stood
// at a time: the subgraph, the days on which the graph's facts changed
// (for a date slider), the time it was read at (RFC 3339, empty for now),
// and how many edges that had ended by then it leaves out (none when they
// are shown).
type TimedSubgraph struct {
	extract.Subgraph
	Dates         []string `json:"dates,omitempty"`
	AsOf          string   `json:"as_of,omitempty"`
	ExpiredHidden int      `json:"expired_hidden"`
}

// At selects q from a version's graph as it stood at asOf (zero for now;
// see extract.AsOf). The facts that had ended by then are left out, or
// with expired kept and marked (see extract.SubgraphEdge), with when and
// why they ended.
func (g *Graphs) At(ctx context.Context, versionID int, q extract.SubgraphQuery, asOf time.Time, expired bool) (TimedSubgraph, error) {
	whole, err := g.Load(ctx, versionID, false)
	if err != nil {
		return TimedSubgraph{}, err
	}
	return subgraphAt(whole, q, asOf, expired)
}

func subgraphAt(g extract.Graph, q extract.SubgraphQuery, asOf time.Time, expired bool) (TimedSubgraph, error) {
	out := TimedSubgraph{Dates: extract.FactDays(g)}
	var ended []extract.Edge
	if !asOf.IsZero() {
		out.AsOf = asOf.UTC().Format(time.RFC3339)
		// AsOf leaves out what had ended by then; kept aside, between
		// nodes that stood then, for a view that shows it.
		all := extract.ExpiredBy(g, asOf)
		g = extract.AsOf(g, asOf)
		stood := make(map[string]bool, len(g.Nodes))
		for _, n := range g.Nodes {
			stood[n.Key] = true
		}
		for _, e := range all {
			if stood[e.Source] && stood[e.Target] {
				ended = append(ended, e)
			}
		}
	}
	if expired {
		g.Edges = append(g.Edges, ended...)
	} else {
		current := extract.Current(g)
		out.ExpiredHidden = len(g.Edges) - len(current.Edges) + len(ended)
		g = current
	}
	res, err := extract.SelectSubgraph(g, q)
	out.Subgraph = res
	return out, err
}

// timesKey names a version for the times cache: an id and when the
// version was made, so that an id used again is another key.
type timesKey struct {
	id      int
	created time.Time
}

// maxTimesCache bounds the times cache; past it the cache starts afresh.
const maxTimesCache = 1024

// KeepsTimes reports whether a version's graph may say when its facts
// held (see extract.Current and extract.AsOf), so that its views read it
// whole to leave out what has expired: a dialogue run's memory, or a
// graph written whole (an import, a merge, an edit) whose nodes or edges
// carry fact times. The graphs of other runs keep none and are read as
// they are stored. Looking for times in a written graph reads all its
// rows, so the answer for a finished one is remembered.
func (a *App) KeepsTimes(ctx context.Context, v record.Version) (bool, error) {
	if v.Config.Strategy == extract.StrategyDialogue && len(v.DocumentIDs) > 0 {
		return true, nil
	}
	// A dialogue goes turn by turn whatever the strategy (see RouteOf).
	dialogue, err := a.store.HasDocumentKind(ctx, v.DocumentIDs, extract.DocDialogue)
	if err != nil || dialogue || !v.Written {
		return dialogue, err
	}
	key := timesKey{v.ID, v.CreatedAt}
	a.timesMu.Lock()
	kept, ok := a.timesCache[key]
	a.timesMu.Unlock()
	if ok {
		return kept, nil
	}
	if kept, err = a.store.HasFactTimes(ctx, v.ID); err != nil {
		return false, err
	}
	if v.Status == record.StatusDone {
		a.timesMu.Lock()
		if a.timesCache == nil || len(a.timesCache) >= maxTimesCache {
			a.timesCache = map[timesKey]bool{}
		}
		a.timesCache[key] = kept
		a.timesMu.Unlock()
	}
	return kept, nil
}
