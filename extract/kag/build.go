package kag

import (
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// builder assembles the chunk graph and counts off-schema use.
type builder struct {
	x      *Extractor
	nodes  map[string]*extract.Node
	order  []string
	edges  map[string]*extract.Edge
	eorder []string
	alias  map[string]string // normalised surface name -> node key
	off    int
	// violations are property values that break a schema constraint.
	violations []string
}

func newBuilder(x *Extractor) *builder {
	return &builder{x: x, nodes: map[string]*extract.Node{}, edges: map[string]*extract.Edge{}, alias: map[string]string{}}
}

// typeOf resolves a category to the schema's type name and reports
// whether the schema has it.
func (b *builder) typeOf(category string) (string, *TypeSpec) {
	if t := b.x.lookup(category); t != nil {
		return t.Name, t
	}
	return category, nil
}

// node finds or creates the node for name of category.
func (b *builder) node(name, category string) *extract.Node {
	key := extract.NodeKey(name)
	if n, ok := b.nodes[key]; ok {
		return n
	}
	typ, spec := b.typeOf(category)
	n := &extract.Node{Key: key, Name: name, Type: typ, Properties: map[string]any{}}
	if spec == nil && category != UnknownType {
		n.Properties["off_schema"] = true
		b.off++
	}
	b.nodes[key] = n
	b.order = append(b.order, key)
	b.alias[key] = key
	return n
}

func addAlias(n *extract.Node, name string) {
	if extract.NodeKey(name) == n.Key && name == n.Name {
		return
	}
	list, _ := n.Properties["aliases"].([]string)
	for _, a := range list {
		if a == name {
			return
		}
	}
	n.Properties["aliases"] = append(list, name)
}

// addItem adds an entity or event with its properties.
func (b *builder) addItem(it item) {
	name := it.Name
	if it.Official != "" {
		name = it.Official
	}
	n := b.node(name, it.Category)
	if name != it.Name {
		addAlias(n, it.Name)
	}
	b.alias[extract.NodeKey(it.Name)] = n.Key
	if n.Description == "" {
		n.Description = it.Description
	} else if it.Description != "" && !strings.Contains(n.Description, it.Description) {
		n.Description += "\n" + it.Description
	}
	_, spec := b.typeOf(it.Category)
	for _, p := range it.Props {
		var ps *PropSpec
		if spec != nil {
			for i := range spec.Properties {
				if strings.EqualFold(spec.Properties[i].Name, p.Name) {
					ps = &spec.Properties[i]
					break
				}
			}
		}
		if ps != nil {
			b.check(n, ps, p.Values)
			if targets := b.targets(ps.Type); len(targets) > 0 {
				// A property typed by a schema type becomes an edge; with
				// several types (an event's subjects) a value takes the
				// type of the node it already names, else the first.
				for _, v := range p.Values {
					typ := targets[0].Name
					if k, ok := b.alias[extract.NodeKey(v)]; ok {
						for _, t := range targets {
							if strings.EqualFold(b.nodes[k].Type, t.Name) {
								typ = t.Name
							}
						}
					}
					tn := b.node(v, typ)
					b.alias[extract.NodeKey(v)] = tn.Key
					b.edge(n.Key, ps.Name, tn.Key, false)
				}
				continue
			}
		}
		if len(p.Values) == 1 {
			n.Properties[p.Name] = p.Values[0]
		} else {
			n.Properties[p.Name] = p.Values
		}
	}
	if spec != nil {
		b.checkNotNull(n, spec, it.Props)
	}
}

// targets resolves a property type ("Person" or "Person,Organization") to
// the schema types it names.
func (b *builder) targets(typ string) []*TypeSpec {
	var out []*TypeSpec
	for _, name := range strings.Split(typ, ",") {
		if t := b.x.lookup(name); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// resolve maps a relation endpoint to a node key: the node the name (or a
// surface name standardisation replaced) already has, else a new implicit
// node of the relation's category for the endpoint, or of type unknown
// when the relation form gives none.
func (b *builder) resolve(name, category string) string {
	if k, ok := b.alias[extract.NodeKey(name)]; ok {
		return k
	}
	if category == "" {
		category = UnknownType
	}
	n := b.node(name, category)
	n.Properties["implicit"] = true
	return n.Key
}

// addRelation adds a relation, checked against the schema.
func (b *builder) addRelation(r relation) {
	s, o := b.resolve(r.Subject, r.SubjectType), b.resolve(r.Object, r.ObjectType)
	if s == "" || o == "" || s == o {
		return
	}
	label, ok := b.allowed(b.nodes[s].Type, r.Predicate, b.nodes[o].Type)
	b.edge(s, label, o, !ok)
}

// allowed reports whether the schema has relation pred from type st to
// type ot, and returns its canonical name.
func (b *builder) allowed(st, pred, ot string) (string, bool) {
	spec := b.x.lookup(st)
	if spec == nil {
		return pred, false
	}
	for _, r := range spec.Relations {
		if strings.EqualFold(r.Name, pred) || (r.Alias != "" && r.Alias == pred) {
			t := b.x.lookup(r.Target)
			if r.Target == "" || t == nil || strings.EqualFold(t.Name, ot) || ot == UnknownType {
				return r.Name, true
			}
		}
	}
	return pred, false
}

func (b *builder) edge(s, label, o string, off bool) {
	key := extract.EdgeKey(s, label, o)
	if _, ok := b.edges[key]; ok {
		return
	}
	e := &extract.Edge{Source: s, Target: o, Label: label, Weight: 1}
	if off {
		e.Properties = map[string]any{"off_schema": true}
		b.off++
	}
	b.edges[key] = e
	b.eorder = append(b.eorder, key)
}

// graph returns the assembled graph with chunk mentions, and the
// off-schema count.
func (b *builder) graph(chunk extract.Chunk) (extract.Graph, int) {
	var g extract.Graph
	for _, k := range b.order {
		n := *b.nodes[k]
		if len(n.Properties) == 0 {
			n.Properties = nil
		}
		if a, ok := n.Properties["aliases"].([]string); ok {
			sort.Strings(a)
		}
		n.Mentions = []extract.Mention{mention(chunk, n)}
		g.Nodes = append(g.Nodes, n)
	}
	for _, k := range b.eorder {
		e := *b.edges[k]
		e.Mentions = []extract.Mention{{DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index}}
		g.Edges = append(g.Edges, e)
	}
	return g, b.off
}

// mention ties a node to its chunk, at the first place the name or an
// alias occurs when it does.
func mention(chunk extract.Chunk, n extract.Node) extract.Mention {
	m := extract.Mention{DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index}
	names := []string{n.Name}
	if a, ok := n.Properties["aliases"].([]string); ok {
		names = append(names, a...)
	}
	for _, name := range names {
		if at := strings.Index(chunk.Text, name); name != "" && at >= 0 {
			m.Start, m.End, m.Text = chunk.Start+at, chunk.Start+at+len(name), name
			break
		}
	}
	return m
}
