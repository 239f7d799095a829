package app

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
)

// queryCorpus is what a version's questions are ranked over: the graph,
// the chunks with their BM25 index and walk graph, the vector index and
// the document titles. A finished version never changes, so its corpus
// is built on its first question (once, however many ask at the same
// time) and kept (corpusCacheSize versions); a running one is read anew
// for every question.
type queryCorpus struct {
	stats  *record.VectorStats // the vectorizer record, nil for none
	corpus *query.Corpus
	titles map[int]string
}

// corpusKey names a finished version's corpus: the version (an ID a
// deleted version left may come back on SQLite; its creation time does
// not) and its vectorizer record, if any.
type corpusKey struct {
	versionID int
	created   int64 // UnixNano
	hasStats  bool
	stats     record.VectorStats
}

// corpusCacheSize is how many versions' query corpora stay in memory.
const corpusCacheSize = 4

// corpusOf returns a version's query corpus, from the cache when the
// version is finished and its vectors are the ones the cache holds.
func (a *App) corpusOf(ctx context.Context, v record.Version) (*queryCorpus, error) {
	if v.Status != record.StatusDone {
		return a.buildCorpus(ctx, v, time.Time{})
	}
	st, hasStats, err := a.store.VectorStatsOf(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	key := corpusKey{versionID: v.ID, created: v.CreatedAt.UnixNano(), hasStats: hasStats, stats: st}
	return a.corpora.Get(ctx, key, func() (*queryCorpus, error) {
		a.corpora.DeleteFunc(func(k corpusKey) bool { return k.versionID == v.ID && k != key })
		return a.buildCorpus(context.WithoutCancel(ctx), v, time.Time{})
	})
}

// buildCorpus reads a version's query corpus. With a zero asOf it holds
// the facts that hold now (expired ones left out); otherwise the graph as
// it stood at asOf (see extract.AsOf) and only the chunks said by then,
// a chunk dated by its turn's operations (a dialogue run's; chunks of
// other runs have no date and are all kept). Vectors are the version's:
// an earlier value of a node is ranked by its current vector.
func (a *App) buildCorpus(ctx context.Context, v record.Version, asOf time.Time) (*queryCorpus, error) {
	g, err := a.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return nil, err
	}
	chunks, err := a.versionChunks(ctx, v)
	if err != nil {
		return nil, err
	}
	// The vector index first, while the graph and chunks are as stored:
	// derived vectors are computed from them, not read again.
	vi, stp, err := a.vectorIndex(ctx, v, versionRead{graph: &g, chunks: chunks})
	if err != nil {
		return nil, err
	}
	// A dialogue run's chunks are dated by their turn's operations (when
	// the turn was said); other runs' chunks have no date.
	ops, err := a.store.Operations(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	dated := map[int]time.Time{}
	for _, op := range ops {
		if t, ok := extract.ParseFactTime(op.ValidAt, false); ok {
			dated[op.Turn] = t
		}
	}
	dates := map[extract.ChunkRef]time.Time{}
	for ref, ch := range chunks {
		if t, ok := dated[ch.Index]; ok {
			dates[ref] = t
		}
	}
	if asOf.IsZero() {
		g = extract.Current(g)
	} else {
		g = extract.AsOf(g, asOf)
		for ref, t := range dates {
			if t.After(asOf) {
				delete(chunks, ref)
			}
		}
	}
	docs, err := a.store.DocumentNames(ctx, v.DocumentIDs)
	if err != nil {
		return nil, err
	}
	qc := &queryCorpus{stats: stp, corpus: query.NewCorpus(g, chunks, vi), titles: docs}
	if len(dates) > 0 {
		// A question naming a span of time ("two weeks ago") prefers the
		// chunks said in it (query.Request.Now).
		qc.corpus.DateChunks(dates)
	}
	if v.Config.Strategy == extract.StrategyDialogue {
		// A round is scored by the user's words too, or the assistant's
		// when the question asks what it said.
		qc.corpus.SideChunks(dialogue.SidesOf)
		// And by the meaning of the user's words, which a long answer
		// drowns in the round's vector. A model embedder's side vectors
		// would cost calls at query time: only the local embedders give
		// them.
		if stp != nil && !extract.PaidEmbedder(stp.Embedder) {
			cfg := v.Config
			cfg.Embedder = stp.Embedder
			emb, err := a.embedder(ctx, cfg)
			if err != nil {
				return nil, err
			}
			if err := qc.corpus.SideVectors(ctx, emb); err != nil {
				return nil, err
			}
		}
	}
	if r, ok := a.storedCommunities(ctx, v); ok && asOf.IsZero() {
		qc.corpus.UseCommunities(r) // global search reads them, not detects them again
		if stp != nil {
			// Their reports' vectors join their ranking.
			rv, err := a.reportVectors(ctx, v, *stp, qc.corpus)
			if err != nil {
				return nil, err
			}
			qc.corpus.UseReportVectors(rv)
		}
	}
	return qc, nil
}
