package app

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/tuple"
)

// keepAllFragments is the fragment bound the sink uses for the tuple
// strategy: every fragment is kept until the summary pass.
const keepAllFragments = 1 << 20

// sinkFragments is the description-fragment bound of a run's sink.
func sinkFragments(cfg extract.Config) int {
	if cfg.Strategy == extract.StrategyTuple {
		return keepAllFragments
	}
	return cfg.MaxFragments
}

// summarize is the tuple strategy's last step: a node or edge with more
// than cfg.MaxFragments description fragments gets a model-written summary
// as its description; the fragments stay in Properties["fragments"].
func (pl *pipeline) summarize(ctx context.Context, v record.Version, ex extract.Extractor) error {
	x, ok := ex.(*tuple.Extractor)
	if !ok {
		return nil
	}
	g, err := pl.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return err
	}
	var changed extract.Graph
	var calls []extract.CallRecord
	names := map[string]string{}
	for _, n := range g.Nodes {
		names[n.Key] = n.Name
	}
	for _, n := range g.Nodes {
		frags := tuple.Fragments(n.Description)
		if len(frags) <= v.Config.MaxFragments {
			continue
		}
		sum, rec, err := x.MergeDescriptionsOf(ctx, tuple.DescriptionEntity, n.Name, frags)
		if err != nil {
			return fmt.Errorf("summarise %q: %w", n.Name, err)
		}
		n.Description = sum
		n.Properties = withFragments(n.Properties, frags)
		changed.Nodes = append(changed.Nodes, n)
		calls = append(calls, rec)
	}
	for _, e := range g.Edges {
		frags := tuple.Fragments(e.Description)
		if len(frags) <= v.Config.MaxFragments {
			continue
		}
		sum, rec, err := x.MergeDescriptionsOf(ctx, tuple.DescriptionRelation, names[e.Source]+" — "+names[e.Target], frags)
		if err != nil {
			return fmt.Errorf("summarise an edge: %w", err)
		}
		e.Description = sum
		e.Properties = withFragments(e.Properties, frags)
		changed.Edges = append(changed.Edges, e)
		calls = append(calls, rec)
	}
	if len(calls) == 0 {
		return nil
	}
	if err := pl.store.WriteGraph(ctx, v.ID, changed); err != nil {
		return err
	}
	return pl.store.AddUsage(ctx, v.ID, calls)
}

func withFragments(p map[string]any, frags []string) map[string]any {
	out := make(map[string]any, len(p)+1)
	for k, v := range p {
		out[k] = v
	}
	out["fragments"] = frags
	return out
}
