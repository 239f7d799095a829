package export

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// ChunkType is the node type of the chunk nodes WithChunks adds, and
// SourceLabel the label of the edges to them, as in KAG's builder.
const (
	ChunkType   = "Chunk"
	SourceLabel = "source"
)

// ChunkKey is the node key of a document's chunk.
func ChunkKey(documentID, index int) string { return fmt.Sprintf("chunk:%d:%d", documentID, index) }

// WithChunks returns g with KAG's provenance layout (see ChunkLayer): g's
// nodes and edges without their mentions, then the chunk nodes and the
// source edges. g needs its mentions loaded; the result has none, so every
// format writes it alike. docName may be nil.
func WithChunks(g extract.Graph, docName func(documentID int) string, chunks []extract.Chunk) extract.Graph {
	layer := ChunkLayer(g, docName, chunks)
	out := extract.Graph{Nodes: make([]extract.Node, 0, len(g.Nodes)+len(layer.Nodes)), Edges: make([]extract.Edge, 0, len(g.Edges)+len(layer.Edges))}
	for _, n := range g.Nodes {
		n.Mentions = nil
		out.Nodes = append(out.Nodes, n)
	}
	for _, e := range g.Edges {
		e.Mentions = nil
		out.Edges = append(out.Edges, e)
	}
	out.Nodes = append(out.Nodes, layer.Nodes...)
	out.Edges = append(out.Edges, layer.Edges...)
	return out
}

// ChunkLayer is KAG's chunk layer of g: a node of type Chunk for every
// chunk of chunks, whether anything was extracted from it or not, and for
// every other chunk the nodes' mentions name (properties document_id,
// chunk_index, document when docName knows it, and the chunk's text as
// content, as KAG's Chunk nodes hold it), and a source edge from each node
// to every chunk it was extracted from. A chunk node g holds already (a
// version built with chunk nodes) is not made again. g needs its mentions
// loaded; docName may be nil.
func ChunkLayer(g extract.Graph, docName func(documentID int) string, chunks []extract.Chunk) extract.Graph {
	var out extract.Graph
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Type == ChunkType {
			seen[n.Key] = true
		}
	}
	add := func(doc, index int, text string) string {
		key := ChunkKey(doc, index)
		if seen[key] {
			return key
		}
		seen[key] = true
		props := map[string]any{"document_id": doc, "chunk_index": index}
		name := fmt.Sprintf("chunk %d of document %d", index, doc)
		if docName != nil {
			if d := docName(doc); d != "" {
				props["document"] = d
				name = fmt.Sprintf("%s #%d", d, index)
			}
		}
		if text != "" {
			props["content"] = text
		}
		out.Nodes = append(out.Nodes, extract.Node{Key: key, Name: name, Type: ChunkType, Properties: props})
		return key
	}
	for _, c := range chunks {
		add(c.DocumentID, c.Index, c.Text)
	}
	seenEdge := map[string]bool{}
	for _, e := range g.Edges {
		if e.Label == SourceLabel {
			seenEdge[e.Key()] = true // a layer the graph holds already
		}
	}
	for _, n := range g.Nodes {
		if n.Type == ChunkType {
			continue
		}
		for _, m := range n.Mentions {
			e := extract.Edge{Source: n.Key, Target: add(m.DocumentID, m.ChunkIndex, ""), Label: SourceLabel, Weight: 1}
			if !seenEdge[e.Key()] {
				seenEdge[e.Key()] = true
				out.Edges = append(out.Edges, e)
			}
		}
	}
	return out
}

// WithNamespace returns g with every node type prefixed by ns and a dot,
// as KAG names the labels of a project's graph (RiskMining.Person); a type
// that has the prefix already keeps it. ns must start with a letter and
// hold only letters, digits and underscores (at most 64), so it is a safe
// label in every format; an empty ns returns g as it is.
func WithNamespace(g extract.Graph, ns string) (extract.Graph, error) {
	ns = strings.TrimSpace(ns)
	if ns == "" {
		return g, nil
	}
	if len(ns) > 64 || !unicode.IsLetter(rune(ns[0])) || strings.IndexFunc(ns, func(r rune) bool {
		return !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'))
	}) >= 0 {
		return g, extract.Errorf(extract.KindInvalid, "namespace %q: use a letter then letters, digits or underscores (at most 64)", extract.Clip(ns, 70))
	}
	out := extract.Graph{Nodes: make([]extract.Node, len(g.Nodes)), Edges: g.Edges}
	for i, n := range g.Nodes {
		if n.Type != "" && !strings.HasPrefix(n.Type, ns+".") {
			n.Type = ns + "." + n.Type
		}
		out.Nodes[i] = n
	}
	return out, nil
}
