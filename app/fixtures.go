package app

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// The methods here give the front ends' tests what they set up and look
// at through the application rather than the store: a version made of a
// ready-made graph, and the review decisions an extraction keeps.

// SaveGraph stores a ready-made graph as a new, done version of the named
// extraction over docIDs, with cfg as the settings it records (made from
// no other version). Unlike ImportGraph it keeps the config and documents
// given, and it only stores: no layout, query indexes or communities are
// made for the version afterwards. A failure after the version was created
// marks it failed.
func (c *Curation) SaveGraph(ctx context.Context, name string, cfg extract.Config, docIDs []int, note string, g extract.Graph) (record.Version, error) {
	return c.store.SaveGraphVersion(ctx, name, cfg, docIDs, note, 0, g)
}

// DecisionsOf returns the review decisions recorded on v's extraction:
// the merges accepted and the pairs judged not the same, which its next
// runs apply (see Apply).
func (c *Curation) DecisionsOf(ctx context.Context, v record.Version) (curate.Decisions, error) {
	return c.store.Decisions(ctx, v.ExtractionID)
}

// IndexesStored reports whether a finished version's query indexes are
// stored (its lexical index, the first a question reads), so that a
// fresh process's first question reads rather than builds them.
func (q *Queries) IndexesStored(ctx context.Context, v record.Version) (bool, error) {
	_, ok, err := q.store.VersionIndex(ctx, v.ID, store.IndexLexical, lexicalStamp(v))
	return ok, err
}
