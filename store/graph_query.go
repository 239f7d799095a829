package store

import (
	"context"
	"fmt"

	entedge "github.com/kgstudio/kgstudio/ent/edge"
	"github.com/kgstudio/kgstudio/ent/mention"
	"github.com/kgstudio/kgstudio/ent/node"
	"github.com/kgstudio/kgstudio/extract"
)

// LoadOutline loads a version's graph with only what drawing it needs: node
// key, name and type; edge source, target, label and weight. Descriptions,
// keywords, properties and mentions stay in the database, which makes it
// several times cheaper than LoadGraph on large versions.
func (s *Store) LoadOutline(ctx context.Context, versionID int) (extract.Graph, error) {
	var g extract.Graph
	var nodes []struct {
		Key  string `json:"key"`
		Name string `json:"name"`
		Type string `json:"type"`
	}
	err := s.Client.Node.Query().Where(node.VersionID(versionID)).Order(node.ByID()).
		Select(node.FieldKey, node.FieldName, node.FieldType).Scan(ctx, &nodes)
	if err != nil {
		return g, translate(err, "nodes")
	}
	var edges []struct {
		Source string  `json:"source"`
		Target string  `json:"target"`
		Label  string  `json:"label"`
		Weight float64 `json:"weight"`
	}
	err = s.Client.Edge.Query().Where(entedge.VersionID(versionID)).Order(entedge.ByID()).
		Select(entedge.FieldSource, entedge.FieldTarget, entedge.FieldLabel, entedge.FieldWeight).Scan(ctx, &edges)
	if err != nil {
		return g, translate(err, "edges")
	}
	g.Nodes = make([]extract.Node, len(nodes))
	for i, n := range nodes {
		g.Nodes[i] = extract.Node{Key: n.Key, Name: n.Name, Type: n.Type}
	}
	g.Edges = make([]extract.Edge, len(edges))
	for i, e := range edges {
		g.Edges[i] = extract.Edge{Source: e.Source, Target: e.Target, Label: e.Label, Weight: e.Weight}
	}
	return g, nil
}

// NodeByKey loads one node of a version, without mentions. A missing node
// is a KindNotFound error.
func (s *Store) NodeByKey(ctx context.Context, versionID int, key string) (extract.Node, error) {
	n, err := s.Client.Node.Query().Where(node.VersionID(versionID), node.Key(key)).Only(ctx)
	if err != nil {
		return extract.Node{}, translate(err, fmt.Sprintf("node %q", key))
	}
	return NodeFromEnt(n), nil
}

// NodesByKey loads the nodes of a version with the given keys, by key.
// Unknown keys are left out.
func (s *Store) NodesByKey(ctx context.Context, versionID int, keys []string) (map[string]extract.Node, error) {
	out := make(map[string]extract.Node, len(keys))
	for start := 0; start < len(keys); start += BatchSize {
		rows, err := s.Client.Node.Query().
			Where(node.VersionID(versionID), node.KeyIn(keys[start:min(start+BatchSize, len(keys))]...)).All(ctx)
		if err != nil {
			return nil, translate(err, "nodes")
		}
		for _, r := range rows {
			out[r.Key] = NodeFromEnt(r)
		}
	}
	return out, nil
}

// NodeEdges loads the edges of a version that start or end at a node, in
// insertion order.
func (s *Store) NodeEdges(ctx context.Context, versionID int, key string) ([]extract.Edge, error) {
	rows, err := s.Client.Edge.Query().
		Where(entedge.VersionID(versionID), entedge.Or(entedge.Source(key), entedge.Target(key))).
		Order(entedge.ByID()).All(ctx)
	if err != nil {
		return nil, translate(err, "edges")
	}
	out := make([]extract.Edge, len(rows))
	for i, e := range rows {
		out[i] = EdgeFromEnt(e)
	}
	return out, nil
}

// EdgeByKey loads one edge of a version by (source, label, target), with
// its mentions. A missing edge is a KindNotFound error.
func (s *Store) EdgeByKey(ctx context.Context, versionID int, source, label, target string) (extract.Edge, error) {
	row, err := s.Client.Edge.Query().Where(entedge.VersionID(versionID), entedge.Source(source),
		entedge.LabelEQ(label), entedge.Target(target)).Only(ctx)
	if err != nil {
		return extract.Edge{}, translate(err, "edge")
	}
	e := EdgeFromEnt(row)
	ms, err := s.Client.Mention.Query().Where(mention.VersionID(versionID), mention.EdgeKey(e.Key())).
		Order(mention.ByID()).All(ctx)
	if err != nil {
		return e, translate(err, "mentions")
	}
	for _, m := range ms {
		e.Mentions = append(e.Mentions, MentionFromEnt(m))
	}
	return e, nil
}
