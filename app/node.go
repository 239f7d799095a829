package app

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// maxMentions bounds the mentions shown in a node's side panel.
const maxMentions = 40

// snippetContext is how many bytes of text a mention snippet shows on each
// side of the mention.
const snippetContext = 90

// Node is the answer of the node API: the node, its edges and its
// mentions with snippets.
type NodeDetail struct {
	Key         string          `json:"key"`
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Properties  map[string]any  `json:"properties,omitempty"`
	Out         []NodeEdge      `json:"out"`
	In          []NodeEdge      `json:"in"`
	Mentions    []MentionDetail `json:"mentions"`
	// MentionCount counts all mentions; Mentions holds the first few.
	MentionCount int `json:"mention_count"`
	// AsOf is the as-of date the node is seen at, as asked (empty for
	// now).
	AsOf string `json:"as_of,omitempty"`
}

// NodeEdge is an edge seen from one of its nodes.
type NodeEdge struct {
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Label       string  `json:"label"`
	Keywords    string  `json:"keywords,omitempty"`
	Description string  `json:"description,omitempty"`
	Weight      float64 `json:"weight"`
	// Other is the key of the node at the other end, OtherName its name.
	Other     string `json:"other"`
	OtherName string `json:"other_name"`
	// Properties are the edge's own, its fact times among them (see
	// extract.Expired).
	Properties map[string]any `json:"properties,omitempty"`
}

// MentionDetail is a mention with a snippet of its chunk.
type MentionDetail struct {
	DocumentID int    `json:"document_id"`
	Document   string `json:"document"`
	ChunkIndex int    `json:"chunk_index"`
	Before     string `json:"before"`
	Mark       string `json:"mark"`
	After      string `json:"after"`
	Link       string `json:"link"`
}

// Node gathers everything the side panel and the node API show about
// a node of a version.
func (q *Queries) Node(ctx context.Context, v record.Version, key string) (NodeDetail, error) {
	return q.NodeAt(ctx, v, key, "")
}

// NodeByRef is Node by a node's key or its exact name (any case): an
// agent often has the name ("Marie Curie") where the graph keys the node
// otherwise. A name that matches no node, or several, is a not-found
// error naming the nodes whose names contain it, for search_nodes.
func (q *Queries) NodeByRef(ctx context.Context, v record.Version, ref string) (NodeDetail, error) {
	d, err := q.Node(ctx, v, ref)
	if err == nil || extract.KindOf(err) != extract.KindNotFound {
		return d, err
	}
	var close []extract.SubgraphNode
	_, _, serr := q.store.StreamSubgraph(ctx, v.ID, extract.SubgraphQuery{Q: strings.TrimSpace(ref), Limit: 10}, record.SubgraphRows{
		Node: func(n extract.SubgraphNode) error { close = append(close, n); return nil },
		Edge: func(extract.SubgraphEdge) error { return nil },
	})
	if serr != nil {
		return NodeDetail{}, serr
	}
	var exact []extract.SubgraphNode
	for _, n := range close {
		if strings.EqualFold(strings.TrimSpace(n.Name), strings.TrimSpace(ref)) {
			exact = append(exact, n)
		}
	}
	if len(exact) == 1 {
		return q.Node(ctx, v, exact[0].ID)
	}
	if len(close) == 0 {
		return NodeDetail{}, extract.Errorf(extract.KindNotFound, "%s has no node with key or name %q: search_nodes finds nodes by part of a name", v.Label(), ref)
	}
	var names []string
	for _, n := range close {
		names = append(names, fmt.Sprintf("%s (key %q)", n.Name, n.ID))
	}
	return NodeDetail{}, extract.Errorf(extract.KindNotFound, "%s has no node with key %q; nodes whose names contain it: %s", v.Label(), ref, strings.Join(names, ", "))
}

// NodeAt is Node as the node stood at an as-of date (see ParseAsOf;
// empty for now): its value then and its edges then, with their other
// nodes as they stood then (see extract.AsOf), and the edges that had
// ended by then, marked. A node not known yet then is not found.
func (q *Queries) NodeAt(ctx context.Context, v record.Version, key, asOf string) (NodeDetail, error) {

	at, err := ParseAsOf(asOf)
	if err != nil {
		return NodeDetail{}, err
	}
	n, err := q.store.NodeByKey(ctx, v.ID, key)
	if err != nil {
		return NodeDetail{}, err
	}
	edges, err := q.store.NodeEdges(ctx, v.ID, key)
	if err != nil {
		return NodeDetail{}, err
	}
	var others []string
	for _, e := range edges {
		others = append(others, e.Source, e.Target)
	}
	names, err := q.store.NodesByKey(ctx, v.ID, others)
	if err != nil {
		return NodeDetail{}, err
	}
	if !at.IsZero() {
		var ok bool
		if n, edges, names, ok = nodeAsOf(n, edges, names, at); !ok {
			return NodeDetail{}, extract.Errorf(extract.KindNotFound, "node %q was not known yet as of %s", extract.Clip(key, 80), strings.TrimSpace(asOf))
		}
	}
	d := NodeDetail{Key: n.Key, Name: n.Name, Type: n.Type, Description: n.Description, Properties: shownProperties(n.Properties),
		Out: []NodeEdge{}, In: []NodeEdge{}, Mentions: []MentionDetail{}}
	if !at.IsZero() {
		d.AsOf = strings.TrimSpace(asOf)
	}
	for _, e := range edges {
		ne := NodeEdge{Source: e.Source, Target: e.Target, Label: e.Label, Keywords: e.Keywords,
			Description: e.Description, Weight: e.Weight, Properties: shownProperties(e.Properties)}
		if e.Source == key {
			ne.Other = e.Target
		} else {
			ne.Other = e.Source
		}
		ne.OtherName = cmp.Or(names[ne.Other].Name, ne.Other)
		if e.Source == key {
			d.Out = append(d.Out, ne)
		} else {
			d.In = append(d.In, ne)
		}
	}
	ms, err := q.store.NodeMentions(ctx, v.ID, key)
	if err != nil {
		return d, err
	}
	d.MentionCount = len(ms)
	d.Mentions, err = q.versions.mentionSnippets(ctx, v, n.Name, ms[:min(len(ms), maxMentions)])
	return d, err
}

// Bounds of the properties a node's panel and API show: at most
// maxShownProperties of them (by name), each value at most
// maxShownValue bytes; the export keeps them whole.
const (
	maxShownProperties = 500
	maxShownValue      = 8 << 10
)

// shownProperties bounds properties for showing: long text values cut,
// and past maxShownProperties the rest counted under "…".
func shownProperties(props map[string]any) map[string]any {
	if props == nil {
		return nil
	}
	names := slices.Sorted(maps.Keys(props))
	out := make(map[string]any, min(len(props), maxShownProperties+1))
	for i, k := range names {
		if i == maxShownProperties {
			out["…"] = fmt.Sprintf("%d more properties (the export holds them all)", len(names)-i)
			break
		}
		v := props[k]
		if s, ok := v.(string); ok && len(s) > maxShownValue {
			v = extract.Clip(s, maxShownValue)
		}
		out[k] = v
	}
	return out
}

// mentionSnippets cuts a snippet of the chunk around each mention. A
// mention without offsets (the chunk as a whole) marks the first place the
// name occurs in the chunk, if any.
func (s *Versions) mentionSnippets(ctx context.Context, v record.Version, name string, ms []extract.Mention) ([]MentionDetail, error) {
	out := []MentionDetail{}
	chunks := map[int][]extract.Chunk{}
	docs := map[int]string{}
	for _, m := range ms {
		cs, ok := chunks[m.DocumentID]
		if !ok {
			var err error
			if cs, err = s.Chunks(ctx, v, m.DocumentID); err != nil {
				return nil, err
			}
			chunks[m.DocumentID] = cs
			if doc, err := s.st.Document(ctx, m.DocumentID); err == nil {
				docs[m.DocumentID] = doc.Name
			}
		}
		md := MentionDetail{DocumentID: m.DocumentID, Document: docs[m.DocumentID], ChunkIndex: m.ChunkIndex,
			Link: "/versions/" + strconv.Itoa(v.ID) + "/chunks/" + strconv.Itoa(m.DocumentID) + "/" + strconv.Itoa(m.ChunkIndex)}
		var ch *extract.Chunk
		for i := range cs {
			if cs[i].Index == m.ChunkIndex {
				ch = &cs[i]
				break
			}
		}
		if ch == nil {
			md.Mark = m.Text
			out = append(out, md)
			continue
		}
		s, e := m.Start-ch.Start, m.End-ch.Start
		if m.Start == 0 && m.End == 0 || s < 0 || e > len(ch.Text) || s > e {
			// No usable offsets: look for the name in the chunk.
			s, e = 0, 0
			if i := strings.Index(strings.ToLower(ch.Text), strings.ToLower(cmp.Or(m.Text, name))); i >= 0 && name != "" {
				s, e = i, i+len(cmp.Or(m.Text, name))
			}
		}
		md.Before, md.Mark, md.After = snippet(ch.Text, s, e, snippetContext)
		out = append(out, md)
	}
	return out, nil
}

// snippet splits text around [s, e) with up to ctx bytes of context on each
// side, cut at rune boundaries and marked with ellipses where cut.
func snippet(text string, s, e, ctx int) (before, mark, after string) {
	s = max(0, min(s, len(text)))
	e = max(s, min(e, len(text)))
	for s > 0 && !utf8.RuneStart(text[s]) {
		s--
	}
	for e < len(text) && !utf8.RuneStart(text[e]) {
		e++
	}
	b := max(0, s-ctx)
	for b > 0 && !utf8.RuneStart(text[b]) {
		b--
	}
	a := min(len(text), e+ctx)
	for a < len(text) && !utf8.RuneStart(text[a]) {
		a++
	}
	before, mark, after = text[b:s], text[s:e], text[e:a]
	if b > 0 {
		before = "…" + before
	}
	if a < len(text) {
		after += "…"
	}
	return before, mark, after
}
