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

// WithChunks returns g with KAG's provenance layout: a node of type Chunk
// per chunk that the nodes' mentions name (properties document_id,
// chunk_index, when docName knows it document, and when content knows it
// the chunk's text as content, as KAG's Chunk nodes hold it), and a source
// edge from each node to every chunk it was extracted from. g needs its
// mentions loaded; the result has none, so every format writes it alike.
// docName and content may be nil.
func WithChunks(g extract.Graph, docName func(documentID int) string, content func(documentID, index int) string) extract.Graph {
	out := extract.Graph{Nodes: make([]extract.Node, 0, len(g.Nodes)), Edges: make([]extract.Edge, 0, len(g.Edges))}
	var chunks []extract.Node
	seenChunk := map[string]bool{}
	seenEdge := map[string]bool{}
	var sources []extract.Edge
	for _, n := range g.Nodes {
		for _, m := range n.Mentions {
			key := ChunkKey(m.DocumentID, m.ChunkIndex)
			if !seenChunk[key] {
				seenChunk[key] = true
				props := map[string]any{"document_id": m.DocumentID, "chunk_index": m.ChunkIndex}
				name := fmt.Sprintf("chunk %d of document %d", m.ChunkIndex, m.DocumentID)
				if docName != nil {
					if d := docName(m.DocumentID); d != "" {
						props["document"] = d
						name = fmt.Sprintf("%s #%d", d, m.ChunkIndex)
					}
				}
				if content != nil {
					if text := content(m.DocumentID, m.ChunkIndex); text != "" {
						props["content"] = text
					}
				}
				chunks = append(chunks, extract.Node{Key: key, Name: name, Type: ChunkType, Properties: props})
			}
			e := extract.Edge{Source: n.Key, Target: key, Label: SourceLabel, Weight: 1}
			if !seenEdge[e.Key()] {
				seenEdge[e.Key()] = true
				sources = append(sources, e)
			}
		}
		n.Mentions = nil
		out.Nodes = append(out.Nodes, n)
	}
	for _, e := range g.Edges {
		e.Mentions = nil
		out.Edges = append(out.Edges, e)
	}
	out.Nodes = append(out.Nodes, chunks...)
	out.Edges = append(out.Edges, sources...)
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
