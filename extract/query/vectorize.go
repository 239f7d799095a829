package query

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// VectorProps names, per node type, the properties the schema marks
// `index: Vector` or `index: TextAndVector`; their values join the node's
// embedded text.
type VectorProps map[string][]string

// Keys lists the properties any type embeds, sorted, without repeats.
func (vp VectorProps) Keys() []string {
	var out []string
	for _, ps := range vp {
		out = append(out, ps...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GraphProps are the node and edge properties search reads: its facts'
// times and a memory node's earlier values (extract.Current, AsOf and a
// node's revisions); loading a version's graph for questions keeps only
// these and the ones its schema embeds (VectorProps.Keys).
var GraphProps = []string{extract.PropValidAt, extract.PropInvalidAt, extract.PropExpired, extract.PropHistory, extract.PropUpdatedTurn}

// MaxNodeText and MaxEdgeText bound the text embedded for a node or an
// edge (bytes; a sentence or two). A node merged from many chunks piles up
// descriptions and an edge repeats the sentence it came from: their first
// words say what they are, and embedding the rest would cost several
// times the chunks' own text.
const (
	MaxNodeText = 160
	MaxEdgeText = 320
)

// NodeText is what the vectorizer embeds for a node: its name, the
// values of its vector-indexed properties and its description, at most
// MaxNodeText bytes.
func NodeText(n extract.Node, props []string) string {
	parts := []string{n.Name}
	for _, p := range props {
		if v, ok := n.Properties[p]; ok && v != nil {
			parts = append(parts, fmt.Sprint(v))
		}
	}
	if n.Description != "" {
		parts = append(parts, n.Description)
	}
	return extract.Clip(strings.Join(parts, "\n"), MaxNodeText)
}

// EdgeText is what the vectorizer embeds for an edge: its keywords and
// label with its description, or, without a description, the label
// between the endpoints; at most MaxEdgeText bytes. The edges a sentence
// gives share its text (the vectorizer embeds it once); their endpoints
// are matched by name on the lexical side.
func EdgeText(e extract.Edge) string {
	parts := []string{}
	if e.Keywords != "" {
		parts = append(parts, e.Keywords)
	}
	if e.Description != "" {
		parts = append(parts, e.Label, e.Description)
	} else {
		parts = append(parts, e.Source+" "+e.Label+" "+e.Target)
	}
	return extract.Clip(strings.Join(parts, "\n"), MaxEdgeText)
}

// EdgeVectorKey is the key of an edge's vector: a hash of its EdgeText,
// so the edges one sentence gives (the same text) share one vector,
// embedded and stored once. Versions vectorized before were keyed by
// EdgeKey; search reads either.
func EdgeVectorKey(e extract.Edge) string {
	return EdgeVectorKeyOf(EdgeVectorHash(e))
}

// EdgeVectorHash is the hash EdgeVectorKey names: edges with the same
// hash share one vector. A caller that sees a million edges keeps these
// rather than their keys.
func EdgeVectorHash(e extract.Edge) uint64 {
	h := fnv.New64a()
	h.Write([]byte(EdgeText(e)))
	return h.Sum64()
}

// EdgeVectorKeyOf is the key of the vector of edges whose EdgeVectorHash
// is h.
func EdgeVectorKeyOf(h uint64) string {
	return "\x1ft" + strconv.FormatUint(h, 36)
}

// Vectorize is the pipeline's vectorizer step (KAG's reader -> splitter
// -> extractor -> vectorizer -> writer): it embeds the chunks, the nodes
// (NodeText) and the edges (EdgeText, each distinct text once, under
// EdgeVectorKey) of a graph with emb, in batches, and returns the vectors
// with what the embedding calls used.
func Vectorize(ctx context.Context, emb extract.Embedder, g extract.Graph, chunks []extract.Chunk, props VectorProps) (*Vectors, extract.EmbedUsage, error) {
	out := &Vectors{Model: emb.Model(), Chunks: map[extract.ChunkRef][]float32{}, Nodes: map[string][]float32{}, Edges: map[string][]float32{}}
	var texts []string
	var put []func(*Vectors, []float32)
	for _, c := range chunks {
		ref := c.Ref()
		texts = append(texts, c.Text)
		put = append(put, func(into *Vectors, v []float32) { into.Chunks[ref] = v })
	}
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if seen[n.Key] {
			continue
		}
		seen[n.Key] = true
		key := n.Key
		texts = append(texts, NodeText(n, props[n.Type]))
		put = append(put, func(into *Vectors, v []float32) { into.Nodes[key] = v })
	}
	for _, e := range g.Edges {
		key := EdgeVectorKey(e)
		if seen["\x00"+key] {
			continue
		}
		seen["\x00"+key] = true
		texts = append(texts, EdgeText(e))
		put = append(put, func(into *Vectors, v []float32) { into.Edges[key] = v })
	}
	var use extract.EmbedUsage
	const batch = 256
	for lo := 0; lo < len(texts); lo += batch {
		hi := min(lo+batch, len(texts))
		vs, other, u, err := embed.EmbedSplit(ctx, emb, texts[lo:hi])
		use = use.Add(u)
		if err != nil {
			return nil, use, fmt.Errorf("vectorize: %w", err)
		}
		for j, v := range vs {
			into := out
			if other != nil && other[j] {
				into = otherOf(out, emb)
			}
			put[lo+j](into, slices.Clone(v))
		}
	}
	return out, use, nil
}

// otherOf is the fallback model's vectors beside v, made on first use.
func otherOf(v *Vectors, emb extract.Embedder) *Vectors {
	if v.Other == nil {
		v.Other = &Vectors{Model: emb.(extract.SplitEmbedder).Fallback().Model(), Chunks: map[extract.ChunkRef][]float32{},
			Nodes: map[string][]float32{}, Edges: map[string][]float32{}}
	}
	return v.Other
}
