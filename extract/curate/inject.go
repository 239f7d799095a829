package curate

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// Inject returns a copy of g in which the nodes whose names match a node
// of ref (a domain graph: its name or one of its aliases, compared as
// extract.NormalizeName does) become that node: they take its key, name,
// type and properties (theirs are kept where ref's node has none), keep
// their own description (ref's when they have none) and mentions, and
// their own names become aliases. Several nodes matching one ref node fold
// into it (see Merge); their edges follow. A name that two ref nodes share
// matches neither. injected counts the nodes of g that matched. g and ref
// are not changed.
func Inject(g, ref extract.Graph, opts MergeOptions) (out extract.Graph, injected int, err error) {
	const ambiguous = -1
	index := map[string]int{}
	add := func(name string, i int) {
		k := extract.NormalizeName(name)
		if k == "" {
			return
		}
		if j, ok := index[k]; ok && j != i {
			index[k] = ambiguous
			return
		}
		index[k] = i
	}
	for i, n := range ref.Nodes {
		add(n.Name, i)
		for _, a := range Aliases(n) {
			add(a, i)
		}
	}
	// The nodes of g per ref node, in g's order.
	groups := map[int][]string{}
	var order []int
	for _, n := range g.Nodes {
		i, ok := index[extract.NormalizeName(n.Name)]
		if !ok || i == ambiguous {
			continue
		}
		if len(groups[i]) == 0 {
			order = append(order, i)
		}
		groups[i] = append(groups[i], n.Key)
		injected++
	}
	out = g
	if injected == 0 {
		return out, 0, nil
	}
	for _, i := range order {
		r := ref.Nodes[i]
		keys := groups[i]
		// A node of g already holding the ref key (under another name)
		// folds in too, so the key stays unique.
		for _, n := range out.Nodes {
			if n.Key == r.Key && n.Key != keys[0] && !slices.Contains(keys, n.Key) {
				keys = append(keys, n.Key)
			}
		}
		if len(keys) > 1 {
			if out, err = Merge(out, keys[0], keys[1:], opts); err != nil {
				return extract.Graph{}, 0, err
			}
		}
		out = adopt(out, keys[0], r, opts)
	}
	return out, injected, nil
}

// adopt turns the node keyed key into ref node r (see Inject) and moves
// its edges to r's key.
func adopt(g extract.Graph, key string, r extract.Node, opts MergeOptions) extract.Graph {
	out := extract.Graph{Nodes: make([]extract.Node, len(g.Nodes))}
	for i, n := range g.Nodes {
		n = cloneNode(n)
		if n.Key == key {
			aliases := append(Aliases(r), n.Name)
			aliases = append(aliases, Aliases(n)...)
			props := cloneProps(n.Properties)
			if props == nil {
				props = map[string]any{}
			}
			for k, v := range r.Properties {
				props[k] = v
			}
			n.Key, n.Name, n.Type, n.Properties = r.Key, r.Name, r.Type, props
			if n.Description == "" {
				n.Description = r.Description
			}
			delete(n.Properties, PropAliases)
			setAliases(&n, aliases)
			if len(n.Properties) == 0 {
				n.Properties = nil
			}
		}
		out.Nodes[i] = n
	}
	out.Edges = moveEdges(g.Edges, map[string]string{key: r.Key}, opts)
	return out
}

// AddDomain writes a domain graph beside an extracted one, as KAG's domain
// knowledge injection writes the external graph with the extracted
// subgraphs: every node and edge of ref that g lacks (by key) is added,
// and every ref node whose name or alias a chunk's text holds gets a
// mention of that chunk, as KAG's extractor adds the external graph's
// name matches to the model's entities. Names of fewer than two
// characters are not looked for; a Latin name must stand as a word, a
// Han or kana name anywhere. It returns the nodes and edges added and the
// mentions made. Run it after Inject, which has turned the extracted
// nodes ref names into ref's nodes.
func AddDomain(g, ref extract.Graph, chunks []extract.Chunk) (out extract.Graph, nodes, edges, mentions int) {
	out = extract.Graph{Nodes: make([]extract.Node, 0, len(g.Nodes)+len(ref.Nodes)), Edges: make([]extract.Edge, 0, len(g.Edges)+len(ref.Edges))}
	at := map[string]int{}
	for _, n := range g.Nodes {
		at[n.Key] = len(out.Nodes)
		out.Nodes = append(out.Nodes, cloneNode(n))
	}
	for _, n := range ref.Nodes {
		if _, ok := at[n.Key]; ok {
			continue
		}
		n = cloneNode(n)
		n.Mentions = nil
		at[n.Key] = len(out.Nodes)
		out.Nodes = append(out.Nodes, n)
		nodes++
	}
	seen := map[string]bool{}
	for _, e := range g.Edges {
		seen[extract.EdgeKey(e.Source, e.Label, e.Target)] = true
		out.Edges = append(out.Edges, e)
	}
	for _, e := range ref.Edges {
		k := extract.EdgeKey(e.Source, e.Label, e.Target)
		if seen[k] {
			continue
		}
		if _, ok := at[e.Source]; !ok {
			continue
		}
		if _, ok := at[e.Target]; !ok {
			continue
		}
		seen[k] = true
		e.Mentions = nil
		out.Edges = append(out.Edges, e)
		edges++
	}
	// Name matches in the chunks.
	for _, r := range ref.Nodes {
		i := at[r.Key]
		names := append([]string{r.Name}, Aliases(r)...)
		for _, c := range chunks {
			if !slices.ContainsFunc(names, func(name string) bool { return holdsName(c.Text, name) }) {
				continue
			}
			m := extract.Mention{DocumentID: c.DocumentID, ChunkIndex: c.Index}
			// A mention of the chunk the extractor made (with its place)
			// is enough.
			if !slices.ContainsFunc(out.Nodes[i].Mentions, func(o extract.Mention) bool {
				return o.DocumentID == m.DocumentID && o.ChunkIndex == m.ChunkIndex
			}) {
				out.Nodes[i].Mentions = append(out.Nodes[i].Mentions, m)
				mentions++
			}
		}
	}
	return out, nodes, edges, mentions
}

// holdsName reports whether text holds name: anywhere for a name with a
// Han or kana letter, as a whole word otherwise (case kept).
func holdsName(text, name string) bool {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) < 2 {
		return false
	}
	cjk := strings.IndexFunc(name, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
	}) >= 0
	for off := 0; ; {
		j := strings.Index(text[off:], name)
		if j < 0 {
			return false
		}
		start, end := off+j, off+j+len(name)
		if cjk {
			return true
		}
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		off = start + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
