package app

import (
	"context"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/record"
)

// checkReference resolves the reference version a run names
// (cfg.Reference, "NAME@V"; "NAME" alone means its latest version) to its
// exact label, so the version records which graph it was given. An unknown
// or unfinished version is invalid.
func (m *Models) checkReference(ctx context.Context, cfg *extract.Config) error {
	ref := strings.TrimSpace(cfg.Reference)
	if ref == "" {
		cfg.Reference = ""
		return nil
	}
	v, err := m.referenceVersion(ctx, ref)
	if err != nil {
		return err
	}
	if v.Status != record.StatusDone {
		return extract.Errorf(extract.KindInvalid, "reference %s is %s: name a finished version", v.Label(), v.Status)
	}
	cfg.Reference = v.Label()
	return nil
}

// referenceVersion finds the version "NAME@V" or "NAME" names.
func (m *Models) referenceVersion(ctx context.Context, ref string) (record.Version, error) {
	v, err := m.versions.ByRef(ctx, ref)
	if extract.KindOf(err) == extract.KindNotFound {
		return record.Version{}, extract.Errorf(extract.KindInvalid, "reference %q: no such version", ref)
	}
	return v, err
}

// inject writes the reference graph v's config names into v's graph, as
// KAG's domain knowledge injection does: the extracted nodes it names (by
// name or alias) become its nodes (see curate.Inject, counted in v's
// stats), its own nodes and edges are added beside them, and its nodes
// are linked to the chunks that name them (see curate.AddDomain). A run
// without a reference is left alone.
func (pl *pipeline) inject(ctx context.Context, v record.Version) error {
	if v.Config.Reference == "" {
		return nil
	}
	rv, err := pl.models.referenceVersion(ctx, v.Config.Reference)
	if err != nil {
		return err
	}
	ref, err := pl.store.LoadGraph(ctx, rv.ID, false)
	if err != nil {
		return err
	}
	g, err := pl.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return err
	}
	g, n, err := curate.Inject(g, ref, mergeOptions(v))
	if err != nil {
		return err
	}
	byRef, err := pl.vectors.versionChunks(ctx, v)
	if err != nil {
		return err
	}
	chunks := make([]extract.Chunk, 0, len(byRef))
	for _, c := range byRef {
		chunks = append(chunks, c)
	}
	g, nodes, edges, mentions := curate.AddDomain(g, ref, chunks)
	if err := pl.store.ReplaceGraph(ctx, v.ID, g); err != nil {
		return err
	}
	pl.log.Info("reference injected", "version_id", v.ID, "reference", rv.Label(), "injected", n,
		"nodes_added", nodes, "edges_added", edges, "mentions", mentions)
	return pl.store.SetInjected(ctx, v.ID, n)
}

// withDomain gives ex the entities of the reference graph cfg names, when
// it names one and ex can take them (extract.DomainAware): KAG's
// extractor runs its external graph's NER beside the model's, so the
// offline strategy finds their names as a gazetteer and the model
// strategies list the ones a chunk names in their prompts (see
// nlp.Extractor.WithDomain, kag.Extractor.WithDomain and
// tuple.Extractor.WithDomain).
func (m *Models) withDomain(ctx context.Context, cfg extract.Config, ex extract.Extractor) (extract.Extractor, error) {
	da, ok := ex.(extract.DomainAware)
	if cfg.Reference == "" || !ok {
		return ex, nil
	}
	rv, err := m.referenceVersion(ctx, cfg.Reference)
	if err != nil {
		return nil, err
	}
	ref, err := m.store.LoadGraph(ctx, rv.ID, false)
	if err != nil {
		return nil, err
	}
	ents := make([]extract.DomainEntity, 0, len(ref.Nodes))
	for _, n := range ref.Nodes {
		ents = append(ents, extract.DomainEntity{Name: n.Name, Type: n.Type, Aliases: curate.Aliases(n)})
	}
	return da.WithDomain(extract.NewDomain(ents)), nil
}
