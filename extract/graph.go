package extract

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// DocKind is what a document is, as its reader found it.
type DocKind string

// Document kinds.
const (
	DocText     DocKind = "text"
	DocMarkdown DocKind = "markdown"
	DocCSV      DocKind = "csv"
	DocDialogue DocKind = "dialogue"
)

// DocKinds lists the document kinds.
var DocKinds = []DocKind{DocText, DocMarkdown, DocCSV, DocDialogue}

// Document is a source text. Content is valid UTF-8 without a byte-order mark.
type Document struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Kind    DocKind `json:"kind"`
	Content string  `json:"content"`
	SHA256  string  `json:"sha256"`
}

// Chunk is a piece of a document. Start and End are byte offsets into the
// document's Content, so Content[Start:End] == Text.
type Chunk struct {
	DocumentID int    `json:"document_id"`
	Index      int    `json:"index"`
	Text       string `json:"text"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Tokens     int    `json:"tokens"`
}

// ChunkRef identifies a chunk by its document and position.
type ChunkRef struct {
	DocumentID int `json:"document_id"`
	Index      int `json:"index"`
}

// Ref returns the chunk's reference.
func (c Chunk) Ref() ChunkRef { return ChunkRef{DocumentID: c.DocumentID, Index: c.Index} }

// Mention ties a node or an edge to the text it came from. Start and End are
// byte offsets into the document (not the chunk); both zero means "the chunk
// as a whole".
type Mention struct {
	DocumentID int    `json:"document_id"`
	ChunkIndex int    `json:"chunk_index"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Text       string `json:"text,omitempty"`
}

// Node is an entity, concept or event of a graph. Key is unique within one
// extraction version (see NodeKey).
type Node struct {
	Key         string         `json:"key"`
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	Description string         `json:"description,omitempty"`
	Properties  map[string]any `json:"properties,omitempty"`
	Mentions    []Mention      `json:"mentions,omitempty"`
}

// Edge is a directed, labelled relation between two node keys. An edge is
// identified within a version by (Source, Label, Target), see EdgeKey.
type Edge struct {
	Source      string         `json:"source"`
	Target      string         `json:"target"`
	Label       string         `json:"label"`
	Keywords    string         `json:"keywords,omitempty"`
	Description string         `json:"description,omitempty"`
	Weight      float64        `json:"weight"`
	Properties  map[string]any `json:"properties,omitempty"`
	Mentions    []Mention      `json:"mentions,omitempty"`
}

// DirectedProperty is the edge property that marks an undirected edge:
// false (as GraphML's directed="false" or edgedefault="undirected" is
// read). An edge keeps a source and a target either way; without the
// property, or with any other value, it is directed.
const DirectedProperty = "directed"

// Undirected reports whether the edge is marked undirected: its
// DirectedProperty is false (the boolean, or the text "false").
func (e *Edge) Undirected() bool {
	if len(e.Properties) == 0 {
		return false
	}
	switch v := e.Properties[DirectedProperty].(type) {
	case bool:
		return !v
	case string:
		return strings.EqualFold(strings.TrimSpace(v), "false")
	}
	return false
}

// Key returns the edge's identity within a version.
func (e Edge) Key() string { return EdgeKey(e.Source, e.Label, e.Target) }

// EdgeID is an edge's identity as a comparable value: a map key that,
// unlike Key, needs no string built.
type EdgeID struct{ Source, Label, Target string }

// ID returns the edge's identity as an EdgeID.
func (e Edge) ID() EdgeID { return EdgeID{e.Source, e.Label, e.Target} }

// EdgeKey joins the parts of an edge identity with a separator that cannot
// appear in a normalised key.
func EdgeKey(source, label, target string) string {
	return source + "\x1f" + label + "\x1f" + target
}

// Graph is a set of nodes and edges.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// NormalizeName folds a surface name for matching: Unicode NFKC, lower case,
// inner whitespace collapsed, surrounding quotes and punctuation trimmed,
// underscores read as spaces, byte-order marks and zero-width characters
// dropped.
func NormalizeName(name string) string {
	s := strings.Map(func(r rune) rune {
		switch r {
		case '\ufeff', '\u200b', '\u200c', '\u200d', '\u2060':
			return -1 // byte-order mark and zero-width characters
		}
		return r
	}, name)
	s = norm.NFKC.String(s)
	s = strings.ReplaceAll(s, "_", " ")
	s = strings.ToLower(s)
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (unicode.IsPunct(r) && r != ')' && r != ']') || r == '"' || r == '\''
	})
}

// NodeKey is the identity of a node within a version: the normalised name,
// unique across types. Strategies that must keep same-named nodes of
// different types apart use TypedNodeKey.
func NodeKey(name string) string { return NormalizeName(name) }

// TypedNodeKey is NodeKey qualified by a type.
func TypedNodeKey(typ, name string) string {
	return strings.ToLower(typ) + ":" + NormalizeName(name)
}
