package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/eval"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/relation"
)

// GoldFormat is the format of a gold set.
type GoldFormat string

// Gold formats.
const (
	GoldWebNLG GoldFormat = "webnlg"
	GoldDocRED GoldFormat = "docred"
)

// StrategyGold is the strategy recorded on imported reference versions.
const StrategyGold = "gold"

// ReadGold reads gold entries in a format; relNames, when not empty, is a
// DocRED rel_info.json whose names replace the relation codes. limit > 0
// keeps the first entries.
func ReadGold(format GoldFormat, data, relNames []byte, limit int) ([]eval.Entry, error) {
	var entries []eval.Entry
	var err error
	switch format {
	case GoldWebNLG:
		entries, err = eval.ReadWebNLG(bytes.NewReader(data))
	case GoldDocRED:
		entries, err = eval.ReadDocRED(bytes.NewReader(data))
	default:
		return nil, extract.Errorf(extract.KindInvalid, "unknown gold format %q: use webnlg or docred", format)
	}
	if err != nil {
		return nil, err
	}
	if len(relNames) > 0 {
		names, err := eval.ReadRelationNames(bytes.NewReader(relNames))
		if err != nil {
			return nil, err
		}
		eval.NameRelations(entries, names)
	} else if format == GoldDocRED {
		// DocRED's codes are Wikidata properties: the standard relations
		// the offline extractor labels edges with.
		eval.NameRelations(entries, relation.Labels())
	}
	if limit > 0 && len(entries) > limit {
		entries = entries[:limit]
	}
	return entries, nil
}

// GoldDocument joins the entries' texts into one document, separated by
// blank lines, in file order. One combined document keeps the documents
// list short and lets one ordinary run cover the whole gold set; the
// diff matches nodes across the whole version anyway.
func GoldDocument(name string, format GoldFormat, entries []eval.Entry, maxBytes int) (extract.Document, error) {
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteString("\n\n")
		}
		t := strings.ReplaceAll(e.Text, "\r\n", "\n")
		b.WriteString(strings.TrimSpace(strings.ReplaceAll(t, "\r", "\n")))
	}
	if maxBytes < b.Len() {
		maxBytes = b.Len() + 1
	}
	return extract.ReadDocument(fmt.Sprintf("%s (%s gold).txt", name, format), []byte(b.String()), maxBytes)
}

// GoldGraph is the graph of the gold entries: one node per entity named by
// its first mention name (other names kept as the "aliases" property),
// typed with typeMap (DocRED types onto kgstudio's, WebNLG's objects onto
// no type or Data) or, unmapped, with the gold type in title case; one edge per relation labelled as in the file.
// Entities with the same normalised name merge, as extracted nodes do.
func GoldGraph(entries []eval.Entry, typeMap map[string]string) extract.Graph {
	var g extract.Graph
	for _, e := range entries {
		var part extract.Graph
		keys := make([]string, len(e.Entities))
		for i, ge := range e.Entities {
			name := ge.Names[0]
			typ, ok := typeMap[ge.Type]
			if !ok {
				typ = titleCase(ge.Type)
			}
			n := extract.Node{Key: extract.NodeKey(name), Name: name, Type: typ}
			if len(ge.Names) > 1 {
				aliases := make([]any, 0, len(ge.Names)-1)
				for _, a := range ge.Names[1:] {
					aliases = append(aliases, a)
				}
				n.Properties = map[string]any{"aliases": aliases}
			}
			keys[i] = n.Key
			part.Nodes = append(part.Nodes, n)
		}
		for _, r := range e.Relations {
			part.Edges = append(part.Edges, extract.Edge{Source: keys[r.Head], Target: keys[r.Tail], Label: r.Label, Weight: 1})
		}
		extract.MergeGraph(&g, part, 8)
	}
	return g
}

// webNLGTypes types WebNLG nodes: the corpus has no entity types, so
// entities get none (a comparison then does not count a type as a
// difference), and literals (dates, numbers, quoted values) are Data as
// kgstudio's built-in types call them.
var webNLGTypes = map[string]string{eval.WebNLGEntity: "", eval.WebNLGLiteral: "Data"}

func titleCase(s string) string {
	if s == "" {
		return "Concept"
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}

// GoldImport is the result of importing a gold file.
type GoldImport struct {
	Document  extract.Document
	Reference record.Version
	Entries   int
}

// ImportGold stores a gold file as a document and a reference version of
// the named extraction whose graph is the gold graph.
func (c *Curation) ImportGold(ctx context.Context, name string, format GoldFormat, data, relNames []byte, limit, maxBytes int) (GoldImport, error) {
	var out GoldImport
	name = strings.TrimSpace(name)
	if name == "" {
		return out, extract.Errorf(extract.KindInvalid, "the gold set needs a name")
	}
	entries, err := ReadGold(format, data, relNames, limit)
	if err != nil {
		return out, err
	}
	doc, err := GoldDocument(name, format, entries, maxBytes)
	if err != nil {
		return out, err
	}
	if out.Document, _, err = c.store.AddDocument(ctx, doc); err != nil {
		return out, err
	}
	var typeMap map[string]string
	switch format {
	case GoldDocRED:
		typeMap = eval.DocREDTypes
	case GoldWebNLG:
		typeMap = webNLGTypes
	}
	cfg := extract.Config{Strategy: StrategyGold, Provider: extract.ProviderNone, Model: string(format)}
	note := fmt.Sprintf("gold: %d %s entries", len(entries), format)
	if out.Reference, err = c.store.ImportReference(ctx, name, cfg, []int{out.Document.ID}, note, GoldGraph(entries, typeMap)); err != nil {
		return out, err
	}
	out.Entries = len(entries)
	return out, nil
}

// GoldCompareOptions are the matching options that make a comparison of a
// run of strategy against a gold set of format meaningful, as `kgstudio
// eval` scores it: entities by name (WebNLG has no types; the DocRED types
// map onto kgstudio's only coarsely, so a type difference is shown as a
// change rather than a miss) and, for runs that label edges with their
// own words (nlp verb phrases, not the gold relation names), relations as
// unordered entity pairs.
func GoldCompareOptions(format GoldFormat, strategy extract.Strategy) diff.Options {
	opts := diff.Options{IgnoreType: format == GoldWebNLG || format == GoldDocRED}
	if strategy == extract.StrategyNLP {
		opts.IgnoreLabels, opts.Undirected = true, true
	}
	return opts
}
