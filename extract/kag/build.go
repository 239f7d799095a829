package kag

import (
	"slices"
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract/schema"

	"github.com/kgstudio/kgstudio/extract"
)

// builder assembles the chunk graph and counts off-schema use.
type builder struct {
	x      *Extractor
	nodes  map[string]*extract.Node
	order  []string
	edges  map[string]*extract.Edge
	eorder []string
	// alias maps a normalised name (a node's own, or a surface name
	// standardisation replaced) to the node it last named; named lists
	// every node it named, first first.
	alias map[string]string
	named map[string][]string
	off   int
	// violations are property values that break a schema constraint.
	violations []string
}

func newBuilder(x *Extractor) *builder {
	return &builder{x: x, nodes: map[string]*extract.Node{}, edges: map[string]*extract.Edge{},
		alias: map[string]string{}, named: map[string][]string{}}
}

// nodeKey is the key of the node for name of schema type typ (a category
// resolved by typeOf). KAG identifies a node by its name and its label
// (SubGraph.add_node(id=name, label=category); postprocess_graph merges only
// nodes equal in both), so "Apple" the Company and "Apple" the Fruit are two
// nodes. Here the pair is one key, extract.TypedNodeKey ("company:apple"),
// as the CSV mapping builds it: keys stay opaque to storage, comparisons
// match nodes by name and type (package diff), and injection and curation
// find nodes by name, so none of them reads the key format. A category
// given by a type's alias resolves to the type first, so 作品 and Works
// give one key.
func nodeKey(name, typ string) string { return extract.TypedNodeKey(typ, name) }

// link records that name refers to n.
func (b *builder) link(name string, n *extract.Node) {
	norm := extract.NormalizeName(name)
	b.alias[norm] = n.Key
	if !slices.Contains(b.named[norm], n.Key) {
		b.named[norm] = append(b.named[norm], n.Key)
	}
}

// lookup returns the key of the node name refers to. With a type, it is
// the first node of name of that type, else the first of a subtype
// (Employee for Person); without one, the node name last referred to.
func (b *builder) lookup(name, typ string) (string, bool) {
	norm := extract.NormalizeName(name)
	if typ == "" {
		k, ok := b.alias[norm]
		return k, ok
	}
	for _, sub := range []bool{false, true} {
		for _, k := range b.named[norm] {
			if t := b.nodes[k].Type; strings.EqualFold(t, typ) || sub && b.x.isA(t, typ) {
				return k, true
			}
		}
	}
	return "", false
}

// typeOf resolves a category to the schema's type name and reports
// whether the schema has it.
func (b *builder) typeOf(category string) (string, *TypeSpec) {
	if t := b.x.lookup(category); t != nil {
		return t.Name, t
	}
	if t := standardSpec(category); t != nil {
		return t.Name, t
	}
	return category, nil
}

// standardSpec is the type of a standard type the schema uses without
// declaring it ("STD.ChinaMobile", "STD.Email"): KAG makes a property of
// such a type a node of its own, linked from its owner, so people who
// share a phone number meet at its node. Nil for any other name.
func standardSpec(name string) *TypeSpec {
	std, ok := schema.StandardName(name)
	if !ok {
		return nil
	}
	return &TypeSpec{Name: std, Kind: schema.KindConcept} // as declared standard types are read
}

// node finds or creates the node for name of category.
func (b *builder) node(name, category string) *extract.Node {
	typ, spec := b.typeOf(category)
	surface := name
	if std, ok := schema.StandardName(typ); ok {
		// One value written two ways is one node ("138-0013-8000").
		name = schema.StandardValue(std, name)
	}
	key := nodeKey(name, typ)
	if n, ok := b.nodes[key]; ok {
		if surface != name {
			b.link(surface, n)
		}
		return n
	}
	n := &extract.Node{Key: key, Name: name, Type: typ, Properties: map[string]any{}}
	if spec == nil && category != UnknownType {
		n.Properties["off_schema"] = true
		b.off++
	}
	b.nodes[key] = n
	b.order = append(b.order, key)
	b.link(name, n)
	if surface != name {
		b.link(surface, n)
	}
	return n
}

func addAlias(n *extract.Node, name string) {
	if name == n.Name {
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
	var n *extract.Node
	if name != it.Name && b.x.cfg.OfficialNames == extract.OfficialNode {
		// KAG's shape: the entity keeps the text's name and points to a
		// node of its official name.
		n = b.node(it.Name, it.Category)
		off := b.node(name, it.Category)
		b.link(name, off)
		b.edge(n.Key, extract.OfficialNameLabel, off.Key, false)
	} else {
		n = b.node(name, it.Category)
		if name != it.Name {
			addAlias(n, it.Name)
		}
	}
	b.link(it.Name, n)
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
				// several types (an event's subjects) a value names the
				// node it already names of the first type that has one
				// (or of a subtype), else a new node of the first type.
				for _, v := range p.Values {
					var tn *extract.Node
					for _, t := range targets {
						if k, ok := b.lookup(v, t.Name); ok {
							tn = b.nodes[k]
							break
						}
					}
					if tn == nil {
						tn = b.node(v, targets[0].Name)
					}
					b.link(v, tn)
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
		} else if t := standardSpec(name); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// resolve maps a relation endpoint to a node key. With a category (KAG's
// five-element form) it is the node of that name (or surface name
// standardisation replaced) and type, as KAG adds the edge between the
// (name, category) pairs; without one, the node the name last named, of
// any type. An endpoint with no such node becomes a new implicit node of
// the category, or of type unknown when the relation form gives none.
func (b *builder) resolve(name, category string) string {
	typ := ""
	if category != "" {
		typ, _ = b.typeOf(category)
	}
	if k, ok := b.lookup(name, typ); ok {
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
