package csvmap

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// Result is what one document maps to.
type Result struct {
	Graph    extract.Graph
	Failures []extract.ParseFailure
	// Layout says how the table was read and why: as triples, as an
	// edge table, or as a node table (whose header names no triple).
	Layout string
}

// Map maps one CSV document to a graph (see the package comment). It
// returns an error only for content that is not valid UTF-8; broken rows
// are failures.
func Map(doc extract.Document, opts Options) (extract.Graph, []extract.ParseFailure, error) {
	res, err := MapAll([]extract.Document{doc}, opts)
	if err != nil {
		return extract.Graph{}, nil, err
	}
	return res[0].Graph, res[0].Failures, nil
}

// MapAll maps the documents of one run, one Result per document in order,
// and links references across them (see the package comment).
func MapAll(docs []extract.Document, opts Options) ([]Result, error) {
	t, err := NewTables(docs, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(docs))
	for i, d := range docs {
		out[i] = t.Map(d, extract.Chunk{DocumentID: d.ID, Start: 0, End: len(d.Content)})
	}
	return out, nil
}

// builder collects one document's graph.
type builder struct {
	doc     extract.Document
	opts    Options
	nodes   map[string]*extract.Node
	norder  []string
	edges   map[extract.EdgeID]*extract.Edge
	eorder  []extract.EdgeID
	defined map[string]bool // keys of nodes that are rows of this document
	// untyped are the keys of nodes a table named without a type (the
	// subjects and objects of triples), typed with the default type.
	untyped  map[string]bool
	failures []extract.ParseFailure
	// rowStart is where the row being mapped starts (see addMention).
	rowStart int
	// err is why the table was not mapped whole (too many rows).
	err error
	// layout says how the table was read (Result.Layout).
	layout string
	// chunk is the index of the row chunk being mapped (its mentions'
	// ChunkIndex); 0 for a table mapped whole.
	chunk int
	// firstRows holds the line of each id's first row in a node table:
	// the builder's own (ownRows), or, for a table mapped a chunk at a
	// time, the whole table's (see Tables), read only, so a repeated id
	// is found in any chunk.
	firstRows map[string]int
	ownRows   bool
}

func newBuilder(doc extract.Document, opts Options) *builder {
	return &builder{doc: doc, opts: opts, nodes: map[string]*extract.Node{}, edges: map[extract.EdgeID]*extract.Edge{}, defined: map[string]bool{}, untyped: map[string]bool{}}
}

func (b *builder) fail(r record, reason string) {
	b.failures = append(b.failures, failure(r.line, r.text(b.doc.Content), reason))
}

func (b *builder) mention(start, end int) extract.Mention {
	return extract.Mention{DocumentID: b.doc.ID, ChunkIndex: b.chunk, Start: start, End: end, Text: extract.Clip(b.doc.Content[start:end], 300)}
}

func (b *builder) rowMention(r record) extract.Mention { return b.mention(r.start, r.end) }

// nodeKey is the typed key of an id; ids without letters or digits keep
// their trimmed text so they do not all collapse into one key.
func nodeKey(typ, id string) string {
	if extract.NormalizeName(id) == "" {
		return strings.ToLower(typ) + ":" + strings.TrimSpace(id)
	}
	return extract.TypedNodeKey(typ, id)
}

// node adds (or extends) a node. A row node sets name, description and
// properties; a referenced node only adds its mention.
func (b *builder) node(typ, id, name string, m extract.Mention) string {
	key := nodeKey(typ, id)
	n, ok := b.nodes[key]
	if !ok {
		n = &extract.Node{Key: key, Name: name, Type: typ}
		b.nodes[key] = n
		b.norder = append(b.norder, key)
	}
	n.Mentions = addMention(n.Mentions, m, b.rowStart)
	return key
}

// addMention appends m to ms unless ms holds it already. Only the
// mentions starting at or after from are compared: rows are read in order,
// so a row's mentions (of the row or of its cells) follow those of the
// rows before it, and a repeat can only come from the row being read.
// Comparing them all made a node named in many rows quadratic.
func addMention(ms []extract.Mention, m extract.Mention, from int) []extract.Mention {
	for j := len(ms) - 1; j >= 0 && ms[j].Start >= from; j-- {
		if x := ms[j]; x.DocumentID == m.DocumentID && x.ChunkIndex == m.ChunkIndex && x.Start == m.Start && x.End == m.End {
			return ms
		}
	}
	return append(ms, m)
}

// edge adds an edge; a repeated edge counts in the weight and collects
// differing property values into lists.
func (b *builder) edge(src, label, dst string, props map[string]any, m extract.Mention) {
	k := extract.EdgeID{Source: src, Label: label, Target: dst}
	e, ok := b.edges[k]
	if !ok {
		b.edges[k] = &extract.Edge{Source: src, Target: dst, Label: label, Weight: 1, Properties: props, Mentions: []extract.Mention{m}}
		b.eorder = append(b.eorder, k)
		return
	}
	e.Weight++
	e.Mentions = addMention(e.Mentions, m, b.rowStart)
	for name, v := range props {
		old, had := e.Properties[name]
		switch {
		case !had:
			if e.Properties == nil {
				e.Properties = map[string]any{}
			}
			e.Properties[name] = v
		case isList(old):
			e.Properties[name] = append(old.([]any), v)
		case !reflect.DeepEqual(old, v):
			e.Properties[name] = []any{old, v}
		}
	}
}

func isList(v any) bool { _, ok := v.([]any); return ok }

func (b *builder) graph() extract.Graph {
	g := extract.Graph{Nodes: make([]extract.Node, 0, len(b.norder)), Edges: make([]extract.Edge, 0, len(b.eorder))}
	for _, k := range b.norder {
		g.Nodes = append(g.Nodes, *b.nodes[k])
	}
	for _, k := range b.eorder {
		g.Edges = append(g.Edges, *b.edges[k])
	}
	return g
}

// baseName is the file name without folder and extension.
func baseName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	return strings.TrimSuffix(name, path.Ext(name))
}

// mapTable reads the whole document and maps its rows as they are read
// (see mapSpan). It counts the rows in *rows, over all the documents of a
// run, and stops at the one past MaxRows (b.err).
func (b *builder) mapTable(rows *int) { b.mapSpan(0, len(b.doc.Content), rows) }

// mapSpan maps the rows of the document's bytes [start, end) (the whole
// table, or one of its row chunks) by the layout the table's header
// tells. With rows set, it counts the rows in *rows and stops at the one
// past MaxRows (b.err).
func (b *builder) mapSpan(start, end int, rows *int) {
	header, at, ok := readHeader(b.doc)
	// A row adds about one node and at most one edge: room for them up
	// front, so the maps are not rebuilt as they grow.
	lines := min(strings.Count(b.doc.Content[start:end], "\n")+1, MaxRows)
	b.nodes = make(map[string]*extract.Node, lines)
	b.edges = make(map[extract.EdgeID]*extract.Edge, lines)
	var mapRow func(record)
	if ok {
		mapRow, b.layout = b.layoutOf(header)
	}
	fails := readSpan(b.doc.Content, start, end, delimiter(b.doc.Name, b.doc.Content), func(r record) bool {
		if !ok || r.start <= at {
			return true // the header, or what could not be read before it
		}
		if rows != nil {
			if *rows++; *rows > MaxRows {
				b.err = tooManyRows(b.doc.Name, r.line)
				return false
			}
		}
		b.rowStart = r.start
		mapRow(r)
		return true
	})
	// The records that could not be read come first, as they did when
	// the table was read whole before its rows were mapped.
	b.failures = append(fails, b.failures...)
	if !ok && start == 0 {
		b.failures = append(b.failures, extract.ParseFailure{Line: "row 1: ", Reason: "empty table: no header row"})
	}
}

// readHeader reads a table's header: its first record that can be read,
// with its cells cleaned (an empty one named by its column), and where
// it starts.
func readHeader(doc extract.Document) (header []string, start int, ok bool) {
	readTable(doc.Name, doc.Content, func(r record) bool {
		header = make([]string, len(r.fields))
		for i, h := range r.fields {
			header[i] = cleanHeader(h)
			if header[i] == "" {
				header[i] = fmt.Sprintf("column%d", i+1)
			}
		}
		start, ok = r.start, true
		return false
	})
	return header, start, ok
}

// layoutOf chooses how a table with this header is mapped: its rows'
// mapper and the words saying so (Result.Layout).
func (b *builder) layoutOf(header []string) (func(record), string) {
	if isTriples(header) {
		return b.mapTriples(header), fmt.Sprintf("triples: one edge per row (columns %s, %s, %s)", header[0], header[1], header[2])
	}
	if mapRow := b.edgeTable(header); mapRow != nil {
		return mapRow, "an edge table: one edge per row, from its src to its dst"
	}
	return b.mapNodes(header), fmt.Sprintf("a node table: one node per row (its first columns, %s, are not subject, predicate and object, nor S, P and O)",
		strings.Join(header[:min(3, len(header))], ", "))
}

// tooManyRows refuses the row at line of the named table, past MaxRows.
func tooManyRows(name string, line int) error {
	return extract.Errorf(extract.KindInvalid, "%s line %d: the tables of the run have more than %d rows in all: split them into runs of at most that many",
		baseName(name)+path.Ext(name), line, MaxRows)
}

// CountRows counts the rows of a CSV document (its records but the
// header) onto rows, the count of the run's tables before it, as MapAll
// would: past MaxRows it stops and says where, as MapAll would fail. It
// maps nothing, so a run can be refused before it is made.
func CountRows(doc extract.Document, rows int) (int, error) {
	var err error
	header := true
	readTable(doc.Name, doc.Content, func(r record) bool {
		if header {
			header = false
			return true
		}
		if rows++; rows > MaxRows {
			err = tooManyRows(doc.Name, r.line)
			return false
		}
		return true
	})
	return rows, err
}

// checkWidth reports a row whose field count differs from the header's.
func (b *builder) checkWidth(header []string, r record) bool {
	if len(r.fields) != len(header) {
		b.fail(r, fmt.Sprintf("the row has %d fields, the header %d", len(r.fields), len(header)))
		return false
	}
	return true
}

func colIndex(header []string, names ...string) int {
	for _, n := range names {
		for i, h := range header {
			if strings.EqualFold(h, n) {
				return i
			}
		}
	}
	return -1
}

// The names a triples table's first three columns go by (any case, with
// or without spaces and underscores): KAG's S, P, O and the usual names
// of the triples' parts.
var (
	subjectCols   = []string{"s", "subject", "head", "source", "from", "subj"}
	predicateCols = []string{"p", "predicate", "relation", "rel", "label", "property", "relationship", "pred"}
	objectCols    = []string{"o", "object", "tail", "target", "to", "obj"}
)

func isTriples(header []string) bool {
	is := func(h string, names []string) bool {
		h = strings.ToLower(strings.NewReplacer(" ", "", "_", "", "-", "").Replace(h))
		return slices.Contains(names, h)
	}
	return len(header) >= 3 && is(header[0], subjectCols) && is(header[1], predicateCols) && is(header[2], objectCols)
}

// mapTriples maps the rows of an S,P,O[,properties] table.
func (b *builder) mapTriples(header []string) func(record) {
	typ := b.opts.defaultType()
	spoName := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "_", " ")), " ") }
	return func(r record) {
		if !b.checkWidth(header, r) {
			return
		}
		s, p, o := strings.TrimSpace(r.fields[0]), strings.TrimSpace(r.fields[1]), strings.TrimSpace(r.fields[2])
		if spoName(s) == "" || p == "" || spoName(o) == "" {
			b.fail(r, "a triple needs a subject, a predicate and an object")
			return
		}
		props := map[string]any{}
		for i := 3; i < len(header); i++ {
			cell := strings.TrimSpace(r.fields[i])
			if cell == "" {
				continue
			}
			if strings.EqualFold(header[i], "properties") {
				var m map[string]any
				if err := json.Unmarshal([]byte(cell), &m); err != nil {
					b.fail(r, "properties is not a JSON object: "+err.Error())
					continue
				}
				for k, v := range m {
					props[k] = v
				}
				continue
			}
			props[header[i]] = value(cell, nil)
		}
		if len(props) == 0 {
			props = nil
		}
		sk := b.node(typ, spoName(s), spoName(s), b.mention(r.cell(b.doc.Content, 0, s)))
		ok := b.node(typ, spoName(o), spoName(o), b.mention(r.cell(b.doc.Content, 2, o)))
		b.untyped[sk], b.untyped[ok] = true, true
		if st, ot, known := tripleKinds(p); known {
			// "Alan Turing,doctoral advisor,Alonzo Church": both are
			// people, whatever else names them.
			b.kindOf(sk, st, typ)
			b.kindOf(ok, ot, typ)
		}
		b.edge(sk, p, ok, props, b.rowMention(r))
	}
}

// predicateKinds are the kinds of a triple's ends its predicate names
// (lower case, underscores as spaces): the subject's and the object's,
// "" for one it does not say.
var predicateKinds = func() map[string][2]string {
	m := map[string][2]string{}
	set := func(subj, obj string, preds ...string) {
		for _, p := range preds {
			m[p] = [2]string{subj, obj}
		}
	}
	set("Person", "Person", "spouse", "married", "married to", "wife", "husband", "sibling", "brother", "sister",
		"child", "son", "daughter", "father", "mother", "parent", "doctoral advisor", "doctoral student", "advisor",
		"student", "student of", "teacher", "mentor", "collaborator", "collaborated with", "colleague", "partner",
		"influenced by", "friend", "relative")
	set("Person", "Location", "place of birth", "born in", "birthplace", "place of death", "died in", "residence",
		"lived in")
	set("Person", "Organization", "educated at", "alma mater", "studied at", "employer", "worked at", "works at",
		"worked for", "works for", "affiliation")
	set("Person", "", "date of birth", "date of death", "award received", "occupation", "field of work",
		"notable work", "nationality", "country of citizenship")
	return m
}()

// tripleKinds returns the kinds predicateKinds gives a predicate.
func tripleKinds(p string) (subj, obj string, ok bool) {
	k, ok := predicateKinds[strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(p, "_", " "))), " ")]
	return k[0], k[1], ok
}

// kindOf gives a node of the default type the kind a predicate says it
// is, as the run's schema names it (none when the schema has no such
// type; the kind's own name when the run has no schema).
func (b *builder) kindOf(key, kind, def string) {
	n := b.nodes[key]
	if kind == "" || n == nil || n.Type != def {
		return
	}
	if len(b.opts.Types) > 0 {
		t := b.opts.lookup(kind)
		if t == nil {
			return
		}
		kind = t.Name
	}
	n.Type = kind
}

// edgeName splits "Src_rel_Dst"; rel may itself hold underscores.
var edgeName = regexp.MustCompile(`^([^_]+)_(.+)_([^_]+)$`)

// edgeTable maps the rows of a Src_rel_Dst table with src and dst
// columns; it returns nil when the document is not one.
func (b *builder) edgeTable(header []string) func(record) {
	m := edgeName.FindStringSubmatch(baseName(b.doc.Name))
	si, di := colIndex(header, "src", "srcId"), colIndex(header, "dst", "dstId")
	if m == nil || si < 0 || di < 0 {
		return nil
	}
	srcType, rel, dstType := m[1], m[2], m[3]
	st := b.opts.lookup(srcType)
	if st != nil {
		srcType = st.Name
	}
	if t := b.opts.lookup(dstType); t != nil {
		dstType = t.Name
	}
	declared := st.edgeProps(rel)
	return func(r record) {
		if !b.checkWidth(header, r) {
			return
		}
		src, dst := strings.TrimSpace(r.fields[si]), strings.TrimSpace(r.fields[di])
		if src == "" || dst == "" {
			b.fail(r, "an edge row needs src and dst")
			return
		}
		var props map[string]any
		for i, h := range header {
			cell := strings.TrimSpace(r.fields[i])
			if i == si || i == di || cell == "" {
				continue
			}
			if props == nil {
				props = map[string]any{}
			}
			props[h] = b.typed(r, h, cell, findProp(declared, h))
		}
		sk := b.node(srcType, src, src, b.mention(r.cell(b.doc.Content, si, src)))
		dk := b.node(dstType, dst, dst, b.mention(r.cell(b.doc.Content, di, dst)))
		b.edge(sk, rel, dk, props, b.rowMention(r))
	}
}

// mapNodes maps the rows of a node table.
func (b *builder) mapNodes(header []string) func(record) {
	t := b.opts.lookup(baseName(b.doc.Name))
	typ := b.opts.defaultType()
	if t != nil {
		typ = t.Name
	}
	idCol := colIndex(header, "id")
	if idCol < 0 {
		idCol = 0
	}
	nameCol := colIndex(header, "name", "title")
	descCol := colIndex(header, "desc", "description")
	if b.firstRows == nil {
		b.firstRows, b.ownRows = map[string]int{}, true
	}
	firstRow := b.firstRows
	return func(r record) {
		if !b.checkWidth(header, r) {
			return
		}
		id := strings.TrimSpace(r.fields[idCol])
		if id == "" {
			b.fail(r, fmt.Sprintf("the row has no id (column %q)", header[idCol]))
			return
		}
		name := id
		if nameCol >= 0 {
			if n := strings.TrimSpace(r.fields[nameCol]); n != "" {
				name = n
			}
		}
		key := nodeKey(typ, id)
		line, dup := firstRow[key]
		if dup && line != r.line {
			b.fail(r, fmt.Sprintf("id %q repeats the row of line %d; the rows are merged, the first values kept", id, line))
		} else if !dup && b.ownRows {
			firstRow[key] = r.line
		}
		// The first row of a repeated id in another row chunk keeps its
		// values: this row adds its mention and its references.
		elsewhere := dup && line != r.line && !b.defined[key]
		b.node(typ, id, name, b.rowMention(r))
		n := b.nodes[key]
		if !b.defined[key] && !elsewhere {
			n.Name = name
			b.defined[key] = true
		}
		for i, h := range header {
			cell := strings.TrimSpace(r.fields[i])
			if i == idCol || i == nameCol || cell == "" {
				continue
			}
			if i == descCol {
				if n.Description == "" && !elsewhere {
					n.Description = cell
				}
				continue
			}
			var target *Type
			p := t.property(h)
			if p != nil {
				target = b.opts.refType(p.Type)
			} else if rel := t.relation(h); rel != nil {
				target = b.opts.refType(rel.Target)
			}
			if target != nil {
				for _, v := range splitMulti(cell) {
					id := v
					if std, ok := schema.StandardName(target.Name); ok {
						id = schema.StandardValue(std, v) // "138-0013-8000" is 13800138000
					}
					dk := b.node(target.Name, id, id, b.mention(r.cell(b.doc.Content, i, v)))
					b.edge(key, h, dk, nil, b.rowMention(r))
				}
				continue
			}
			if elsewhere {
				continue
			}
			if n.Properties == nil {
				n.Properties = map[string]any{}
			}
			if _, had := n.Properties[h]; !had {
				n.Properties[h] = b.typed(r, h, cell, p)
			}
		}
		if t != nil && t.Hypernym != "" {
			if j := strings.LastIndex(id, "-"); j > 0 {
				if parent := strings.TrimSpace(id[:j]); parent != "" {
					pk := b.node(typ, parent, parent, b.mention(r.cell(b.doc.Content, idCol, parent)))
					b.edge(key, t.Hypernym, pk, nil, b.rowMention(r))
				}
			}
		}
	}
}

// splitMulti splits a reference cell into its values: on commas,
// semicolons and bars when the cell has any, else on '、' (so a list of
// names like "服饰、鞋类与奢侈品-鞋类,轮胎" keeps its names whole).
func splitMulti(cell string) []string {
	strong := strings.ContainsAny(cell, ",，;；|")
	parts := strings.FieldsFunc(cell, func(r rune) bool {
		switch r {
		case ',', '，', ';', '；', '|':
			return true
		case '、':
			return !strong
		}
		return false
	})
	out := parts[:0]
	seen := map[string]bool{}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// typed converts a cell by its declared property type, reporting cells
// that do not parse (they are kept as text).
func (b *builder) typed(r record, col, cell string, p *Property) any {
	if p == nil {
		return value(cell, nil)
	}
	v := value(cell, p)
	if s, isText := v.(string); isText && numeric(p.Type) {
		b.fail(r, fmt.Sprintf("%s is %s but %q is not a number; kept as text", col, p.Type, extract.Clip(s, 40)))
	}
	return v
}

func numeric(typ string) bool {
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "integer", "int", "long", "float", "double", "number":
		return true
	}
	return false
}

// plainNumber is a decimal number without a leading zero or exponent.
var plainNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?$`)

// value converts a cell: numbers for Integer/Float properties and for
// undeclared columns that read as plain numbers, text otherwise.
func value(cell string, p *Property) any {
	typ := ""
	if p != nil {
		typ = strings.ToLower(strings.TrimSpace(p.Type))
	}
	switch typ {
	case "integer", "int", "long":
		if n, err := strconv.ParseInt(strings.ReplaceAll(cell, ",", ""), 10, 64); err == nil {
			return int(n)
		}
		if f, err := strconv.ParseFloat(cell, 64); err == nil {
			return f
		}
		return cell
	case "float", "double", "number":
		if f, err := strconv.ParseFloat(strings.ReplaceAll(cell, ",", ""), 64); err == nil {
			return f
		}
		return cell
	case "":
		if plainNumber.MatchString(cell) {
			if n, err := strconv.Atoi(cell); err == nil {
				return n
			}
			if f, err := strconv.ParseFloat(cell, 64); err == nil {
				return f
			}
		}
	}
	return cell
}

// A run's tables are linked through a directory of the rows its node
// tables define: references to a row defined in any document take its
// name; references that match no id of their type but one row's text
// property value are moved onto that row; and a node named without a type
// (a triple's subject or object) that no row of the default type defines
// is moved onto the one row, of any type, with that name or id, so a
// triples table and a node table of one run give one "Ebenezer Scrooge",
// a Person.

// directory holds the rows the node tables of a run define.
type directory struct {
	name    map[string]string // defined key -> row name
	typ     map[string]string // defined key -> row type
	byValue map[string]string // typed key of a row's text value -> defined key ("" when ambiguous)
	byName  map[string]string // normalized name or id -> defined key ("" when ambiguous)
}

// newDirectory collects the rows the builders define, in order.
func newDirectory(bs []*builder) *directory {
	d := &directory{name: map[string]string{}, typ: map[string]string{}, byValue: map[string]string{}, byName: map[string]string{}}
	unique := func(m map[string]string, vk, k string) {
		if old, seen := m[vk]; seen && old != k {
			m[vk] = "" // ambiguous
		} else {
			m[vk] = k
		}
	}
	for _, b := range bs {
		for _, k := range b.norder {
			if !b.defined[k] {
				continue
			}
			n := b.nodes[k]
			if _, ok := d.name[k]; !ok {
				d.name[k], d.typ[k] = n.Name, n.Type
			}
			values := []any{n.Name}
			for _, v := range n.Properties {
				values = append(values, v)
			}
			for _, v := range values {
				s, ok := v.(string)
				if !ok || s == "" {
					continue
				}
				unique(d.byValue, nodeKey(n.Type, s), k)
			}
			for _, s := range []string{extract.NormalizeName(n.Name), idOf(k)} {
				if s != "" {
					unique(d.byName, s, k)
				}
			}
		}
	}
	return d
}

// apply links one builder's nodes to the directory's rows.
func (d *directory) apply(b *builder) {
	moved := map[string]string{}
	for _, k := range b.norder {
		if _, ok := d.name[k]; ok {
			continue
		}
		if to := d.byValue[k]; to != "" {
			moved[k] = to
		} else if to := d.byName[idOf(k)]; b.untyped[k] && to != "" {
			moved[k] = to
		} else if to := extract.NodeKey(b.nodes[k].Name); b.untyped[k] && to != "" && to != k {
			// A triple's end no table defines is named, not typed: its
			// key is its name's, so it is the node the run's text
			// finds by that name, whatever type the text gives it.
			moved[k] = to
		}
	}
	if len(moved) > 0 {
		b.rekey(moved)
	}
	for _, k := range b.norder {
		if nm, ok := d.name[k]; ok && !b.defined[k] {
			b.nodes[k].Name, b.nodes[k].Type = nm, d.typ[k]
		}
	}
}

// idOf is the normalized id a typed key holds.
func idOf(key string) string {
	_, id, _ := strings.Cut(key, ":")
	return id
}

// rekey moves nodes onto other keys, merging mentions, and rewrites the
// edges' ends.
func (b *builder) rekey(moved map[string]string) {
	var order []string
	nodes := map[string]*extract.Node{}
	for _, k := range b.norder {
		n := b.nodes[k]
		if to, ok := moved[k]; ok {
			n.Key = to
		}
		if cur, ok := nodes[n.Key]; ok {
			for _, m := range n.Mentions {
				cur.Mentions = addMention(cur.Mentions, m, 0)
			}
			continue
		}
		nodes[n.Key] = n
		order = append(order, n.Key)
	}
	b.nodes, b.norder = nodes, order
	edges := b.edges
	eorder := b.eorder
	b.edges, b.eorder = make(map[extract.EdgeID]*extract.Edge, len(edges)), nil
	for _, k := range eorder {
		e := edges[k]
		src, dst := e.Source, e.Target
		if to, ok := moved[src]; ok {
			src = to
		}
		if to, ok := moved[dst]; ok {
			dst = to
		}
		nk := extract.EdgeID{Source: src, Label: e.Label, Target: dst}
		if cur, ok := b.edges[nk]; ok {
			cur.Weight += e.Weight
			for _, m := range e.Mentions {
				cur.Mentions = addMention(cur.Mentions, m, 0)
			}
			continue
		}
		e.Source, e.Target = src, dst
		b.edges[nk] = e
		b.eorder = append(b.eorder, nk)
	}
}
