package store

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// MaxIndexedBytes bounds the node keys and types and the edge labels a
// version stores. They are indexed, and PostgreSQL refuses a btree entry
// over 2,704 bytes: the edge index holds source, label and target, and a
// mention's edge key all three again, so each part is kept to 512 bytes.
const MaxIndexedBytes = 512

// boundKey returns s when it fits MaxIndexedBytes; otherwise its first
// bytes (cut on a character boundary) followed by "#" and 16 hex digits of
// its SHA-256, so distinct long keys stay distinct and the same key always
// clips the same way, on either database.
func boundKey(s string) string {
	if len(s) <= MaxIndexedBytes {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	cut := MaxIndexedBytes - 17
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "#" + hex.EncodeToString(sum[:8])
}

// boundGraph returns g with every indexed string bounded by boundKey. It
// copies only the nodes and edges it changes.
func boundGraph(g extract.Graph) extract.Graph {
	var nodes []extract.Node
	for i, n := range g.Nodes {
		if len(n.Key) <= MaxIndexedBytes && len(n.Type) <= MaxIndexedBytes {
			continue
		}
		if nodes == nil {
			nodes = append([]extract.Node(nil), g.Nodes...)
		}
		nodes[i].Key, nodes[i].Type = boundKey(n.Key), boundKey(n.Type)
	}
	if nodes != nil {
		g.Nodes = nodes
	}
	var edges []extract.Edge
	for i, e := range g.Edges {
		if len(e.Source) <= MaxIndexedBytes && len(e.Target) <= MaxIndexedBytes && len(e.Label) <= MaxIndexedBytes {
			continue
		}
		if edges == nil {
			edges = append([]extract.Edge(nil), g.Edges...)
		}
		edges[i].Source, edges[i].Label, edges[i].Target = boundKey(e.Source), boundKey(e.Label), boundKey(e.Target)
	}
	if edges != nil {
		g.Edges = edges
	}
	return g
}
