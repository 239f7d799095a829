package app

import (
	"context"
	"maps"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// An nlp run with a pinned schema: the offline extractor picks, for each
// kind of name it finds (person, organisation, place, date, number, work,
// other), the schema's type that fits by name or alias; conformTypes then
// gives every node the schema's own type name, and marks the nodes whose
// kind the schema has no type for as off-schema (Properties["off_schema"],
// counted in the version's off-schema figure), as the schema strategy does
// for a model's answers. Relations are not constrained: nlp labels edges
// with verbs. The values of the schema's standard-type properties in the
// text (phone numbers, e-mail addresses, ...) become nodes linked from
// their owners (schema.LinkStandard), as KAG makes them.

// schemaNLP builds the offline extractor for a run pinned to a schema.
func (m *Models) schemaNLP(ctx context.Context, cfg extract.Config) (extract.Extractor, error) {
	sc, _, err := m.store.SchemaVersion(ctx, cfg.SchemaName, cfg.SchemaVersion)
	if err != nil {
		return nil, err
	}
	// Aliases count as names for the offline type choice.
	names := sc.TypeNames()
	for _, t := range sc.Types {
		if t.Alias != "" {
			names = append(names, t.Alias)
		}
	}
	withAliases := cfg
	withAliases.EntityTypes = names
	ex, err := m.nlp(withAliases)
	if err != nil {
		return nil, err
	}
	return conformTypes{ex: ex, sc: sc}, nil
}

// conformTypes maps the node types of an extractor's results onto a schema.
type conformTypes struct {
	ex extract.Extractor
	sc *schema.Schema
}

// WithDomain gives the offline extractor the domain graph's names (see
// App.withDomain); the domain's types are mapped like its own.
func (c conformTypes) WithDomain(d *extract.Domain) extract.Extractor {
	if da, ok := c.ex.(extract.DomainAware); ok {
		c.ex = da.WithDomain(d)
	}
	return c
}

// Extract runs the extractor and maps its node types (see the comment at
// the top of this file).
func (c conformTypes) Extract(ctx context.Context, doc extract.Document, ch extract.Chunk) (extract.ChunkResult, error) {
	res, err := c.ex.Extract(ctx, doc, ch)
	if err != nil {
		return res, err
	}
	// Values of the schema's standard-type properties become nodes, as
	// KAG makes them (a Person's phone: STD.ChinaMobile).
	c.sc.LinkStandard(&res.Graph, ch)
	for i := range res.Graph.Nodes {
		n := &res.Graph.Nodes[i]
		if t, ok := c.sc.Lookup(n.Type); ok {
			n.Type = t.Name
			continue
		}
		if _, ok := schema.StandardName(n.Type); ok {
			continue
		}
		props := make(map[string]any, len(n.Properties)+1)
		maps.Copy(props, n.Properties)
		props["off_schema"] = true
		n.Properties = props
		res.OffSchema++
	}
	return res, nil
}
