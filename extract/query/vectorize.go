package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// VectorProps names, per node type, the properties the schema marks
// `index: Vector` or `index: TextAndVector`; their values join the node's
// embedded text.
type VectorProps map[string][]string

// NodeText is what the vectorizer embeds for a node: its name, its
// description and the values of its vector-indexed properties.
func NodeText(n extract.Node, props []string) string {
	parts := []string{n.Name}
	if n.Description != "" {
		parts = append(parts, n.Description)
	}
	for _, p := range props {
		if v, ok := n.Properties[p]; ok && v != nil {
			parts = append(parts, fmt.Sprint(v))
		}
	}
	return strings.Join(parts, "\n")
}

// EdgeText is what the vectorizer embeds for an edge: its keywords, its
// label between the endpoints and its description.
func EdgeText(e extract.Edge) string {
	parts := []string{}
	if e.Keywords != "" {
		parts = append(parts, e.Keywords)
	}
	parts = append(parts, e.Source+" "+e.Label+" "+e.Target)
	if e.Description != "" {
		parts = append(parts, e.Description)
	}
	return strings.Join(parts, "\n")
}

// Vectorize is the pipeline's vectorizer step (KAG's reader -> splitter
// -> extractor -> vectorizer -> writer): it embeds the chunks, the nodes
// (NodeText) and the edges (EdgeText) of a graph with emb, in batches,
// and returns the vectors with what the embedding calls used.
func Vectorize(ctx context.Context, emb extract.Embedder, g extract.Graph, chunks []extract.Chunk, props VectorProps) (*Vectors, extract.EmbedUsage, error) {
	out := &Vectors{Model: emb.Model(), Chunks: map[extract.ChunkRef][]float32{}, Nodes: map[string][]float32{}, Edges: map[string][]float32{}}
	var texts []string
	var put []func([]float32)
	for _, c := range chunks {
		ref := c.Ref()
		texts = append(texts, c.Text)
		put = append(put, func(v []float32) { out.Chunks[ref] = v })
	}
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if seen[n.Key] {
			continue
		}
		seen[n.Key] = true
		key := n.Key
		texts = append(texts, NodeText(n, props[n.Type]))
		put = append(put, func(v []float32) { out.Nodes[key] = v })
	}
	for _, e := range g.Edges {
		key := EdgeKey(e)
		if seen["\x00"+key] {
			continue
		}
		seen["\x00"+key] = true
		texts = append(texts, EdgeText(e))
		put = append(put, func(v []float32) { out.Edges[key] = v })
	}
	var use extract.EmbedUsage
	const batch = 256
	for lo := 0; lo < len(texts); lo += batch {
		hi := min(lo+batch, len(texts))
		vs, u, err := emb.Embed(ctx, texts[lo:hi])
		use = use.Add(u)
		if err != nil {
			return nil, use, fmt.Errorf("vectorize: %w", err)
		}
		if len(vs) != hi-lo {
			return nil, use, extract.Errorf(extract.KindUnavailable, "embedder %s returned %d vectors for %d texts", emb.Model(), len(vs), hi-lo)
		}
		for j, v := range vs {
			put[lo+j](slices.Clone(v))
		}
	}
	return out, use, nil
}
