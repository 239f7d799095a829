package app

import (
	"context"
	"fmt"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// deriveRules runs the `rule: [[...]]` blocks of a schema-strategy
// version's schema over its finished graph and adds the relations they
// derive (see schema.DeriveRules for the forms run); the rules it does not
// run (a form not run, a rule over schema's default Budget) are logged
// with the reason; the end of ctx stops them. Derived edges carry
// Properties["rule"].
// Running it again adds nothing.
func (a *App) deriveRules(ctx context.Context, v record.Version) error {
	if v.Config.Strategy != extract.StrategySchema || v.Config.SchemaName == "" {
		return nil
	}
	sc, _, err := a.store.SchemaVersion(ctx, v.Config.SchemaName, v.Config.SchemaVersion)
	if err != nil {
		return err
	}
	g, err := a.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return err
	}
	edges, skipped, err := schema.DeriveRules(ctx, sc, g, schema.Budget{})
	if err != nil {
		return fmt.Errorf("schema rules: %w", err)
	}
	for _, p := range skipped {
		a.log.Info("schema rule not run", "version_id", v.ID, "field", p.Field, "reason", p.Message)
	}
	if len(edges) == 0 {
		return nil
	}
	a.log.Info("schema rules derived relations", "version_id", v.ID, "edges", len(edges))
	return a.store.WriteGraph(ctx, v.ID, extract.Graph{Edges: edges})
}
