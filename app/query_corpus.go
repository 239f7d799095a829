package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
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

	// Only global search reads a version's communities: their stored
	// results, index and report vectors are read by its first global
	// question (communities), not by every first question.
	commMu   sync.Mutex
	commLoad func(context.Context) error // nil once loaded, or for none
}

// communities gives the corpus its stored communities, once, before a
// search that reads them. A failure is returned and tried again by the
// next question.
func (qc *queryCorpus) communities(ctx context.Context) error {
	qc.commMu.Lock()
	defer qc.commMu.Unlock()
	if qc.commLoad == nil {
		return nil
	}
	if err := qc.commLoad(ctx); err != nil {
		return err
	}
	qc.commLoad = nil
	return nil
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
// version is finished and its vectors are the ones the cache holds. A
// corpus read anew first loads the sentence encoder with question's vector
// (warmEncoder), when the version's vectors are the encoder's.
func (q *Queries) corpusOf(ctx context.Context, v record.Version, question string) (*queryCorpus, error) {
	if v.Status != record.StatusDone {
		return q.buildCorpus(ctx, v, time.Time{})
	}
	st, hasStats, err := q.store.VectorStatsOf(ctx, v.ID)
	if err != nil {
		return nil, err
	}
	key := corpusKey{versionID: v.ID, created: v.CreatedAt.UnixNano(), hasStats: hasStats, stats: st}
	return q.corpora.Get(ctx, key, func() (*queryCorpus, error) {
		q.corpora.DeleteFunc(func(k corpusKey) bool { return k.versionID == v.ID && k != key })
		if hasStats {
			q.warmEncoder(ctx, v, st, question)
		}
		return q.buildCorpus(context.WithoutCancel(ctx), v, time.Time{})
	})
}

// storeIndexes builds and stores the query indexes of a version its run
// just finished (see StoreIndexes). Best effort: a version whose indexes
// are not stored builds them on its first question, as before.
func (q *Queries) storeIndexes(ctx context.Context, versionID int) {
	if err := q.StoreIndexes(ctx, versionID); err != nil && ctx.Err() == nil {
		q.log.Warn("query indexes not stored", "version_id", versionID, "err", err)
	}
}

// StoreIndexes builds and stores a finished version's query indexes (the
// lexical index, the graph and walk forms, the vector index and the
// communities' index), as its first question would: the run writes them,
// and every process's first question reads them. A version not done, or
// empty, has none to store.
func (q *Queries) StoreIndexes(ctx context.Context, versionID int) error {
	v, err := q.store.Version(ctx, versionID)
	if err != nil {
		return err
	}
	if v.Status != record.StatusDone || v.Nodes+v.Edges == 0 {
		return nil
	}
	qc, err := q.buildCorpus(ctx, v, time.Time{})
	if err == nil && qc.commLoad != nil {
		err = qc.commLoad(ctx)
	}
	return err
}

// buildCorpus reads a version's query corpus. With a zero asOf it holds
// the facts that hold now (expired ones left out); otherwise the graph as
// it stood at asOf (see extract.AsOf) and only the chunks said by then,
// a chunk dated by its turn's operations (a dialogue run's; chunks of
// other runs have no date and are all kept). Vectors are the version's:
// an earlier value of a node is ranked by its current vector.
func (q *Queries) buildCorpus(ctx context.Context, v record.Version, asOf time.Time) (*queryCorpus, error) {

	// The graph is read while the chunks and the stored indexes are: on
	// two cores, the first question waits for the longest of them, not
	// their sum.
	// Of the properties, only those search reads (and the schema's
	// embedded ones, should vectors be derived from them); all of them
	// when the schema cannot be read.
	parts := store.GraphParts{Mentions: true, Properties: true}
	if vp, err := q.vectors.vectorProps(ctx, v.Config); err == nil {
		parts.Keys = append(vp.Keys(), query.GraphProps...)
	}
	var g extract.Graph
	var gErr error
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		g, gErr = q.queryGraph(ctx, v, parts)
	}()
	wait := func() error {
		<-loaded
		return gErr
	}
	chunks, err := q.vectors.versionChunks(ctx, v)
	if err != nil {
		wait()
		return nil, err
	}
	var lexical lexicalRead
	if asOf.IsZero() {
		lexical = q.readLexical(ctx, v)
	}
	// A dialogue run's chunks are dated by their turn's operations (when
	// the turn was said); other runs' chunks have no date.
	ops, err := q.store.Operations(ctx, v.ID)
	if err != nil {
		wait()
		return nil, err
	}
	docs, err := q.store.DocumentNames(ctx, v.DocumentIDs)
	if err != nil {
		wait()
		return nil, err
	}
	// The vector index last, while the graph and chunks are as stored:
	// derived vectors are computed from them, not read again.
	vi, stp, err := q.vectorIndex(ctx, v, versionRead{graph: &g, wait: wait, chunks: chunks})
	if err := errors.Join(err, wait()); err != nil {
		return nil, err
	}
	dates := chunkDates(ops, chunks)
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
	corpus, err := q.lexicalCorpus(ctx, v, lexical, g, chunks, vi)
	if err != nil {
		return nil, err
	}
	q.walkIndex(ctx, v, lexical.stamp, corpus)
	qc := &queryCorpus{stats: stp, corpus: corpus, titles: docs}
	if len(dates) > 0 {
		// A question naming a span of time ("two weeks ago") prefers the
		// chunks said in it (query.Request.Now).
		qc.corpus.DateChunks(dates)
	}
	if v.Config.Strategy == extract.StrategyDialogue {
		if err := q.dialogueSides(ctx, v, stp, qc.corpus); err != nil {
			return nil, err
		}
	}
	if asOf.IsZero() {
		qc.commLoad = q.communityLoader(v, lexical.stamp, stp, qc.corpus)
	}
	return qc, nil
}

// chunkDates dates a dialogue run's chunks by their turn's operations
// (when the turn was said); other runs' chunks have no date.
func chunkDates(ops []extract.Operation, chunks map[extract.ChunkRef]extract.Chunk) map[extract.ChunkRef]time.Time {
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
	return dates
}

// dialogueSides scores a dialogue run's rounds by the user's words too,
// or the assistant's when the question asks what it said, and by the
// meaning of the user's words, which a long answer drowns in the
// round's vector. A model embedder's side vectors would cost calls at
// query time: only the local embedders give them.
func (q *Queries) dialogueSides(ctx context.Context, v record.Version, stp *record.VectorStats, corpus *query.Corpus) error {
	corpus.SideChunks(dialogue.SidesOf)
	if stp == nil || extract.PaidEmbedder(stp.Embedder) {
		return nil
	}
	cfg := v.Config
	cfg.Embedder = stp.Embedder
	emb, err := q.models.embedder(ctx, cfg)
	if err != nil {
		return err
	}
	return corpus.SideVectors(ctx, emb)
}

// communityLoader reads a version's stored communities into its corpus
// on its first global question: global search reads them, not detects
// them again, reads their index as stored when it is (stamp is the
// lexical index's), and ranks them by their reports' vectors too.
func (q *Queries) communityLoader(v record.Version, stamp string, stp *record.VectorStats, corpus *query.Corpus) func(context.Context) error {
	return func(ctx context.Context) error {
		r, sum, ok := q.communities.storedCommunitiesSum(ctx, v)
		if !ok {
			return nil // global search detects them (query.Corpus)
		}
		q.communityIndex(ctx, v, stamp, r, sum, corpus)
		if stp == nil {
			return nil
		}
		rv, err := q.vectors.reportVectors(ctx, v, *stp, corpus)
		if err != nil {
			return err
		}
		corpus.UseReportVectors(rv)
		return nil
	}
}

// queryGraph reads the graph a version's questions rank over (the parts
// buildCorpus asks for). A finished version's is stored in its binary
// form with its first question (store.IndexGraph, stamped with the
// version and the properties kept) and read from it in place by every
// later process: one read instead of a row per node and edge.
func (q *Queries) queryGraph(ctx context.Context, v record.Version, parts store.GraphParts) (extract.Graph, error) {

	stamp := graphStamp(v, parts.Keys)
	if stamp == "" {
		return q.store.LoadGraphParts(ctx, v.ID, parts)
	}
	var g extract.Graph
	var bad error
	ok, err := q.store.ReadVersionIndex(ctx, v.ID, store.IndexGraph, stamp, func(b []byte) error {
		// b is this read's own: the graph's texts are kept in it.
		g, bad = query.ReadGraph(b)
		return nil
	})
	if err != nil {
		return g, err
	}
	if ok && bad == nil {
		return g, nil
	}
	if bad != nil {
		q.log.
			Warn("stored graph unreadable, reading it again", "version_id", v.ID, "err", bad)
	}
	if g, err = q.store.LoadGraphParts(ctx, v.ID, parts); err != nil {
		return g, err
	}
	// Best effort: a version whose graph cannot be stored is answered
	// all the same, and read row by row next time.
	b, err := query.AppendGraph(nil, g)
	if err == nil {
		err = q.store.SaveVersionIndex(context.WithoutCancel(ctx), v.ID, store.IndexGraph, stamp, b)
	}
	if err != nil {
		q.log.
			Warn("graph not stored", "version_id", v.ID, "err", err)
	}
	return g, nil
}

// graphStamp names a finished version's stored graph with the
// properties it keeps; "" for none (a version not finished, or a read of
// every property).
func graphStamp(v record.Version, keys []string) string {
	if lexicalStamp(v) == "" || keys == nil {
		return ""
	}
	return "g1 " + lexicalStamp(v) + " " + strings.Join(keys, ",")
}

// lexicalStamp names what a finished version's lexical indexes are built
// from: the version as it finished (its graph and chunks do not change
// after). A version that is not finished has none: its indexes are not
// stored. "l2": one stored in a single row is stored once more in rows.
func lexicalStamp(v record.Version) string {
	if v.Status != record.StatusDone || v.FinishedAt == nil {
		return ""
	}
	return fmt.Sprintf("l3 %d %d %d %d %d", v.ID, v.CreatedAt.UnixNano(), v.FinishedAt.UnixNano(), v.Nodes, v.Edges)
}

// lexicalRead is a finished version's stored lexical indexes as read
// and parsed (nil when none is stored or it is damaged), or why they
// could not be read.
type lexicalRead struct {
	stamp  string
	parsed *query.Lexical
	err    error
}

// readLexical reads a finished version's stored lexical indexes; a
// version not finished has none.
func (q *Queries) readLexical(ctx context.Context, v record.Version) lexicalRead {

	r := lexicalRead{stamp: lexicalStamp(v)}
	if r.stamp != "" {
		_, r.err = q.store.ReadVersionIndex(ctx, v.ID, store.IndexLexical, r.stamp, func(b []byte) error {
			var bad error
			// b is this read's own: the index keeps its texts in it.
			if r.parsed, bad = query.ParseLexicalBytes(b); bad != nil {
				q.log.
					Warn("stored lexical index unreadable, building it again", "version_id", v.ID, "err", bad)
			}
			return nil
		})
	}
	return r
}

// lexicalCorpus makes the version's query corpus over g and chunks. A
// finished version's lexical indexes (BM25 postings, keyword index) are
// built once and stored (lex is what readLexical read of them), and every
// later process reads them instead of building them; a graph as of a past
// time (a zero lex) is built each time.
func (q *Queries) lexicalCorpus(ctx context.Context, v record.Version, lex lexicalRead, g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, vi *query.VectorIndex) (*query.Corpus, error) {

	if lex.err != nil {
		return nil, lex.err
	}
	if lex.stamp == "" {
		return query.NewCorpus(g, chunks, vi), nil
	}
	if lex.parsed != nil {
		c, err := lex.parsed.Corpus(g, chunks, vi)
		if err == nil {
			return c, nil
		}
		q.log.
			Warn("stored lexical index unreadable, building it again", "version_id", v.ID, "err", err)
	}
	c := query.NewCorpus(g, chunks, vi)
	// Best effort: a version whose index cannot be stored is answered all
	// the same, and built again next time.
	if err := q.store.SaveVersionIndex(context.WithoutCancel(ctx), v.ID, store.IndexLexical, lex.stamp, c.AppendLexical(nil)); err != nil {
		q.log.
			Warn("lexical index not stored", "version_id", v.ID, "err", err)
	}
	return c, nil
}

// walkIndex gives a finished version's corpus its walk graph (what ppr
// and mix walk) as stored under its lexical stamp, or builds it and
// stores it; a version not finished (no stamp) builds it on its first
// walk.
func (q *Queries) walkIndex(ctx context.Context, v record.Version, stamp string, corpus *query.Corpus) {

	if stamp == "" {
		return
	}
	ok, err := q.store.ReadVersionIndex(ctx, v.ID, store.IndexWalk, stamp, func(b []byte) error {
		// b is this read's own: the walk's names are kept in it.
		return corpus.ReadWalk(b)
	})
	if err == nil && ok {
		return
	}
	if err != nil {
		q.log.
			Warn("stored walk graph unreadable, building it again", "version_id", v.ID, "err", err)
	}
	// Best effort: stored for the next process, answered either way.
	if err := q.store.SaveVersionIndex(context.WithoutCancel(ctx), v.ID, store.IndexWalk, stamp, corpus.AppendWalk(nil)); err != nil {
		q.log.
			Warn("walk graph not stored", "version_id", v.ID, "err", err)
	}
}

// communityIndex gives corpus the version's stored communities r (sum
// their digest) with their index: read when stored under the version's
// lexical stamp and sum, else built and stored.
func (q *Queries) communityIndex(ctx context.Context, v record.Version, lexStamp string, r community.Result, sum string, corpus *query.Corpus) {

	if lexStamp == "" {
		corpus.UseCommunities(r)
		return
	}
	stamp := lexStamp + " " + sum
	ok, err := q.store.ReadVersionIndex(ctx, v.ID, store.IndexCommunities, stamp, func(b []byte) error {
		return corpus.ReadCommunities(r, string(b))
	})
	if err == nil && ok {
		return
	}
	if err != nil {
		q.log.
			Warn("stored community index unreadable, building it again", "version_id", v.ID, "err", err)
	}
	corpus.UseCommunities(r)
	if err := q.store.SaveVersionIndex(context.WithoutCancel(ctx), v.ID, store.IndexCommunities, stamp, corpus.AppendCommunities(nil)); err != nil {
		q.log.
			Warn("community index not stored", "version_id", v.ID, "err", err)
	}
}
