package app

import (
	"context"
	"log/slog"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// The catalog services read and remove what kgstudio holds: extractions
// and their versions (Versions), the graphs versions hold (Graphs),
// documents (Documents) and schemas (Schemas). Comparisons, Memory,
// Queries and Curation (compare.go, timeline.go, query.go, curate.go) do
// more than read and write; runs and their jobs are Runs'.

// Versions reads extractions and their versions, what their runs recorded
// per chunk, and removes them.
type Versions struct {
	st *store.Store
	// queries reads a version's vector stats; runs its jobs.
	queries *Queries
	runs    *Runs
}

// Get returns a version by id.
func (s *Versions) Get(ctx context.Context, id int) (record.Version, error) {
	return s.st.Version(ctx, id)
}

// ByRef returns the version a reference names: "NAME@V", or "NAME" for
// the extraction's latest.
func (s *Versions) ByRef(ctx context.Context, ref string) (record.Version, error) {
	name, num, err := record.ParseRef("version", ref)
	if err != nil {
		return record.Version{}, err
	}
	return s.st.VersionByLabel(ctx, name, num)
}

// ByLabel returns version number of the extraction name (0: its latest).
func (s *Versions) ByLabel(ctx context.Context, name string, number int) (record.Version, error) {
	return s.st.VersionByLabel(ctx, name, number)
}

// Recent lists the newest versions of every extraction, newest first.
func (s *Versions) Recent(ctx context.Context, limit int) ([]record.Version, error) {
	return s.st.RecentVersions(ctx, limit)
}

// Extractions lists extractions, newest first, each with its versions.
func (s *Versions) Extractions(ctx context.Context, limit int) ([]record.ExtractionInfo, error) {
	return s.st.ListExtractions(ctx, limit)
}

// Delete removes a finished version and everything it holds.
func (s *Versions) Delete(ctx context.Context, id int) error { return s.st.DeleteVersion(ctx, id) }

// DeleteExtraction removes an extraction and all its versions, and says
// how many versions went.
func (s *Versions) DeleteExtraction(ctx context.Context, name string) (int, error) {
	return s.st.DeleteExtraction(ctx, name)
}

// SetReference marks a version as a reference (gold) or not.
func (s *Versions) SetReference(ctx context.Context, id int, ref bool) error {
	return s.st.SetReference(ctx, id, ref)
}

// ChunkRuns lists a version's finished chunks with what the strategy
// reported, in document order.
func (s *Versions) ChunkRuns(ctx context.Context, id int) ([]record.ChunkRun, error) {
	return s.st.ChunkRuns(ctx, id)
}

// ChunkRunSummaries is ChunkRuns without the calls' prompts and answers.
func (s *Versions) ChunkRunSummaries(ctx context.Context, id int) ([]record.ChunkRun, error) {
	return s.st.ChunkRunSummaries(ctx, id)
}

// ChunkRunAt returns one chunk's run, and whether it ran.
func (s *Versions) ChunkRunAt(ctx context.Context, id, documentID, chunkIndex int) (record.ChunkRun, bool, error) {
	return s.st.ChunkRunAt(ctx, id, documentID, chunkIndex)
}

// Counts returns the dashboard's totals.
func (s *Versions) Counts(ctx context.Context) (record.Counts, error) { return s.st.Counts(ctx) }

// Graphs reads the graphs versions hold, whole or in part.
type Graphs struct{ st *store.Store }

// Load returns a version's whole graph, with its mentions when asked.
func (g *Graphs) Load(ctx context.Context, versionID int, withMentions bool) (extract.Graph, error) {
	return g.st.LoadGraph(ctx, versionID, withMentions)
}

// Totals counts a version's nodes and edges and its nodes by type.
func (g *Graphs) Totals(ctx context.Context, versionID int) (nodes, edges int, types []extract.TypeCount, err error) {
	return g.st.GraphTotals(ctx, versionID)
}

// Stream answers a graph query without focus row by row (see
// store.StreamSubgraph), and returns how many nodes matched and whether
// the answer was cut.
func (g *Graphs) Stream(ctx context.Context, versionID int, q extract.SubgraphQuery, out record.SubgraphRows) (int, bool, error) {
	return g.st.StreamSubgraph(ctx, versionID, q, out)
}

// Neighbourhood returns the nodes within depth of focus and the edges
// among them.
func (g *Graphs) Neighbourhood(ctx context.Context, versionID int, focus string, depth int) (extract.Graph, error) {
	return g.st.LoadNeighbourhood(ctx, versionID, focus, depth)
}

// Within returns the nodes within depth steps of a node (ignoring edge
// direction), with their descriptions, and the edges among them: the
// exact ring, where Neighbourhood loads one step more for degrees. An
// unknown key gives an empty graph.
func (g *Graphs) Within(ctx context.Context, versionID int, key string, depth int) (extract.Graph, error) {
	around, err := g.st.LoadNeighbourhood(ctx, versionID, key, depth)
	if err != nil || len(around.Nodes) == 0 {
		return extract.Graph{}, err
	}
	adj := map[string][]string{}
	for _, e := range around.Edges {
		adj[e.Source] = append(adj[e.Source], e.Target)
		adj[e.Target] = append(adj[e.Target], e.Source)
	}
	dist := map[string]int{key: 0}
	queue := []string{key}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if dist[k] == depth {
			continue
		}
		for _, n := range adj[k] {
			if _, ok := dist[n]; !ok {
				dist[n] = dist[k] + 1
				queue = append(queue, n)
			}
		}
	}
	keys := make([]string, 0, len(dist))
	for _, n := range around.Nodes {
		if _, ok := dist[n.Key]; ok {
			keys = append(keys, n.Key)
		}
	}
	full, err := g.st.NodesByKey(ctx, versionID, keys)
	if err != nil {
		return extract.Graph{}, err
	}
	var out extract.Graph
	for _, k := range keys {
		n, ok := full[k]
		if !ok {
			continue
		}
		n.Description = extract.Clip(n.Description, maxWithinDescription)
		n.Mentions = nil
		out.Nodes = append(out.Nodes, n)
	}
	for _, e := range around.Edges {
		_, a := dist[e.Source]
		_, b := dist[e.Target]
		if a && b {
			out.Edges = append(out.Edges, e)
		}
	}
	return out, nil
}

// maxWithinDescription bounds each node description Within returns.
const maxWithinDescription = 600

// Nodes returns the nodes of a version with the given keys, by key.
func (g *Graphs) Nodes(ctx context.Context, versionID int, keys []string) (map[string]extract.Node, error) {
	return g.st.NodesByKey(ctx, versionID, keys)
}

// Edge returns one edge of a version with its mentions.
func (g *Graphs) Edge(ctx context.Context, versionID int, source, label, target string) (extract.Edge, error) {
	return g.st.EdgeByKey(ctx, versionID, source, label, target)
}

// MentionCounts counts the mentions of each node of a version.
func (g *Graphs) MentionCounts(ctx context.Context, versionID int) (map[string]int, error) {
	return g.st.MentionCounts(ctx, versionID)
}

// ChunkMentions returns the node mentions inside one chunk, in text order.
func (g *Graphs) ChunkMentions(ctx context.Context, versionID, documentID, chunkIndex int) ([]record.NodeMention, error) {
	return g.st.ChunkMentions(ctx, versionID, documentID, chunkIndex)
}

// Documents lists, reads, adds and removes documents.
type Documents struct{ st *store.Store }

// List lists documents, newest first, without their content.
func (d *Documents) List(ctx context.Context, limit int) ([]record.DocumentInfo, error) {
	return d.st.ListDocuments(ctx, limit)
}

// Info returns a document without its content.
func (d *Documents) Info(ctx context.Context, id int) (record.DocumentInfo, error) {
	return d.st.DocumentInfo(ctx, id)
}

// Get returns a document with its content.
func (d *Documents) Get(ctx context.Context, id int) (extract.Document, error) {
	return d.st.Document(ctx, id)
}

// Add stores documents in one transaction; a document whose content is
// stored already is that one (created false).
func (d *Documents) Add(ctx context.Context, docs []extract.Document) (stored []extract.Document, created []bool, err error) {
	return d.st.AddDocuments(ctx, docs)
}

// Saved is what storing uploaded documents did: the documents stored or
// found stored already (Known, by id), in the upload's order and each
// content once; the repeats of a content within the upload (Skipped);
// and whether the upload held many documents (Many: a folder, a zip, a
// corpus file).
type Saved struct {
	Added   []extract.Document
	Known   map[int]bool
	Skipped []Problem
	Many    bool
}

// Save stores the documents read from an upload: each content once (a
// content stored before is found, not stored again; the same content
// twice in one upload is stored once and the repeat named in Skipped).
func (d *Documents) Save(ctx context.Context, read []FileDocuments) (Saved, error) {
	var docs []extract.Document
	out := Saved{Known: map[int]bool{}}
	for _, fd := range read {
		docs = append(docs, fd.Docs...)
		out.Many = out.Many || fd.Many
	}
	if len(docs) == 0 {
		return out, nil
	}
	stored, created, err := d.Add(ctx, docs)
	if err != nil {
		return out, err
	}
	seen := make(map[int]string, len(stored))
	for i, doc := range stored {
		if first, ok := seen[doc.ID]; ok {
			out.Skipped = append(out.Skipped, Problem{Name: docs[i].Name, Error: "the same content as " + first})
			continue
		}
		seen[doc.ID] = docs[i].Name
		if !created[i] {
			out.Known[doc.ID] = true
		}
		out.Added = append(out.Added, doc)
	}
	return out, nil
}

// Delete removes a document no version reads.
func (d *Documents) Delete(ctx context.Context, id int) error { return d.st.DeleteDocument(ctx, id) }

// Chunks returns a document's stored chunks for a chunking's settings.
func (d *Documents) Chunks(ctx context.Context, id int, settings string) ([]extract.Chunk, error) {
	return d.st.Chunks(ctx, id, settings)
}

// Namer returns a function naming documents by id, for exports.
func (d *Documents) Namer(ctx context.Context) func(id int) string { return d.st.DocumentNamer(ctx) }

// Schemas lists, reads, saves and removes schemas and their versions.
type Schemas struct {
	st  *store.Store
	log *slog.Logger
	// models builds the extractors Suggest drafts with.
	models *Models
}

// AnyBase, as the base of Save, puts the content on top of whatever
// version is stored (imports, the command line); an editor passes the
// version it started from.
const AnyBase = store.AnyBase

// ValidName checks a schema name.
func (s *Schemas) ValidName(name string) error { return store.ValidSchemaName(name) }

// Get returns version number of the named schema (0: its latest) and
// the number it is.
func (s *Schemas) Get(ctx context.Context, name string, number int) (*schema.Schema, int, error) {
	return s.st.SchemaVersion(ctx, name, number)
}

// Save validates sc and stores it as the next version of the named
// schema over base (AnyBase: over whatever is stored); created says the
// schema is new.
// A schema with problems is a *schema.InvalidError (schema.ProblemsOf
// lists them).
func (s *Schemas) Save(ctx context.Context, name string, base int, sc *schema.Schema, note string) (version int, created bool, err error) {
	if err := schema.ProblemsError(schema.Validate(sc)); err != nil {
		return 0, false, err
	}
	return s.st.SaveSchema(ctx, name, base, sc, note)
}

// List lists the schemas.
func (s *Schemas) List(ctx context.Context) ([]record.SchemaInfo, error) {
	return s.st.ListSchemas(ctx)
}

// Versions lists a schema's versions.
func (s *Schemas) Versions(ctx context.Context, name string) ([]record.SchemaVersionInfo, error) {
	return s.st.SchemaVersions(ctx, name)
}

// Delete removes a schema and its versions.
func (s *Schemas) Delete(ctx context.Context, name string) error { return s.st.DeleteSchema(ctx, name) }
