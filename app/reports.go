package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// reportTargets lists the communities a run asks the model to report on:
// those of at least extract.MinReportSize members, the level global
// search reads first (largest first), then the other levels coarsest
// first, at most max calls. Communities of the same members (a community
// that is its level's only child) are one call: each group's first is
// asked, and its report serves the others.
func reportTargets(r community.Result, nodes, max int) [][]community.Community {
	global := query.GlobalLevel(r, nodes)
	var cs []community.Community
	for _, c := range r.Communities {
		if c.Size >= extract.MinReportSize {
			cs = append(cs, c)
		}
	}
	rank := func(c community.Community) int {
		if c.Level == global {
			return -1
		}
		return c.Level
	}
	slices.SortStableFunc(cs, func(a, b community.Community) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID))
	})
	var out [][]community.Community
	group := map[string]int{}
	for _, c := range cs {
		key := strings.Join(slices.Sorted(slices.Values(c.Members)), "\x1f")
		if g, ok := group[key]; ok {
			out[g] = append(out[g], c)
			continue
		}
		if len(out) == max {
			continue
		}
		group[key] = len(out)
		out = append(out, []community.Community{c})
	}
	return out
}

// writeReports is the model's share of the communities step of a run
// whose config asks for model reports: one call per community
// reportTargets lists (through the run's client, so cached and limited
// like every call, and counted in the run's usage), the reports stored
// with the communities. An answer that cannot be read, or a call that
// fails, leaves that community's offline report, counted in the stored
// ReportFallbacks and logged; only a canceled context fails the step.
func (cs *Communities) writeReports(ctx context.Context, v record.Version, r community.Result) error {
	client, _, err := cs.models.client(ctx, v.Config)
	if err != nil {
		return err
	}
	// With mentions: a finding points at its facts' passages.
	g, err := cs.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return err
	}
	targets := reportTargets(r, len(g.Nodes), cmp.Or(v.Config.MaxReports, extract.DefaultMaxReports))
	reports := make([]community.Report, len(targets))
	calls := make([]extract.CallRecord, len(targets))
	failed := make([]error, len(targets))
	// As many at once as the run's chunks (the client's policy bounds
	// the provider's calls across runs).
	sem := make(chan struct{}, max(1, v.Config.Concurrency))
	var wg sync.WaitGroup
	for i, group := range targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			reports[i], calls[i], failed[i] = community.ModelReport(ctx, client, group[0], g)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	var used []extract.CallRecord
	r.Reports, r.ReportFallbacks = nil, 0
	for i, err := range failed {
		if calls[i].Key != "" {
			used = append(used, calls[i])
		}
		if err == nil {
			for _, c := range targets[i] {
				rep := reports[i]
				rep.Community = c.ID
				r.Reports = append(r.Reports, rep)
			}
			continue
		}
		r.ReportFallbacks += len(targets[i])
		reason := "call failed"
		if errors.Is(err, community.ErrMalformed) {
			reason = "answer malformed"
		}
		cs.log.Warn("community reported offline", "version_id", v.ID, "community", targets[i][0].ID, "reason", reason, "error", extract.MessageOf(err))
	}
	if len(used) > 0 {
		if err := cs.store.AddUsage(ctx, v.ID, used); err != nil {
			return err
		}
	}
	data, err := json.Marshal(r.Compact())
	if err != nil {
		return err
	}
	if err := cs.store.SaveCommunities(ctx, v.ID, string(data)); err != nil {
		return err
	}
	cs.log.Info("community reports written", "version_id", v.ID, "model", len(r.Reports), "fallbacks", r.ReportFallbacks)
	return nil
}

// reportVectors returns the vectors of the community reports global
// search reads over corpus (UseCommunities given): stored by the
// vectorizer, or, for the offline embedder, whose vectors are not
// stored, computed again from the reports' texts. Vectors of a split
// embedder's fallback are left out (a question is compared with them
// only when its model is the fallback's).
func (vz *vectorizer) reportVectors(ctx context.Context, v record.Version, st record.VectorStats, corpus *query.Corpus) (query.ReportVectors, error) {
	out := query.ReportVectors{Model: st.Model, Vectors: map[int][]float32{}}
	if st.Embedder == extract.EmbedderOffline {
		texts := corpus.ReportTexts()
		ids := slices.Sorted(maps.Keys(texts))
		list := make([]string, len(ids))
		for i, id := range ids {
			list[i] = texts[id]
		}
		vecs, _, err := embed.Offline{}.Embed(ctx, list)
		if err != nil {
			return out, err
		}
		for i, id := range ids {
			out.Vectors[id] = vecs[i]
		}
		return out, nil
	}
	items, err := vz.store.KindVectors(ctx, v.ID, store.VectorReport)
	if err != nil {
		return out, err
	}
	for _, it := range items {
		id, err := strconv.Atoi(it.Key)
		if err == nil && (it.Model == "" || it.Model == st.Model) {
			out.Vectors[id] = it.Vector
		}
	}
	return out, nil
}
