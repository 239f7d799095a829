package csvmap

import (
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// Tables maps the CSV tables of one run a row chunk at a time, so a table
// of a million rows is never held as one graph: NewTables reads what the
// chunks share (the rows the node tables define, which references in any
// table resolve to), and Map maps one chunk's rows as MapAll maps a whole
// table. A table mapped in one chunk gives what MapAll gives.
//
// Across chunks, what one table's rows say twice is merged by whoever
// merges the chunks' results: an edge repeated in two chunks is one edge
// of the summed weight; a node table's id repeated in another chunk keeps
// its first row's values, as within a chunk.
type Tables struct {
	opts Options
	dir  *directory
	// firstRows holds, by document ID, the line of each id's first row
	// in the node tables.
	firstRows map[int]map[string]int
}

// NewTables checks the documents of a run (valid UTF-8, at most MaxRows
// rows in all) and reads the rows their node tables define. Only the node
// tables are mapped here, one at a time; the others are only counted.
func NewTables(docs []extract.Document, opts Options) (*Tables, error) {
	t := &Tables{opts: opts, firstRows: map[int]map[string]int{}}
	var defining []*builder
	rows := 0
	for _, d := range docs {
		if !utf8.ValidString(d.Content) {
			return nil, extract.Errorf(extract.KindInvalid, "%s is not valid UTF-8", d.Name)
		}
		b := newBuilder(d, opts)
		if header, _, ok := readHeader(d); !ok || b.nodeTable(header) {
			b.mapTable(&rows)
			if b.err != nil {
				return nil, b.err
			}
			t.firstRows[d.ID] = b.firstRows
			defining = append(defining, b)
			continue
		}
		var err error
		if rows, err = CountRows(d, rows); err != nil {
			return nil, err
		}
	}
	t.dir = newDirectory(defining)
	return t, nil
}

// Map maps the rows of one chunk of a table (see RowChunks; a chunk
// covering the whole table maps it whole), linked to the rows the run's
// node tables define.
func (t *Tables) Map(doc extract.Document, ch extract.Chunk) Result {
	b := newBuilder(doc, t.opts)
	b.chunk = ch.Index
	b.firstRows = t.firstRows[doc.ID]
	b.mapSpan(max(0, ch.Start), min(len(doc.Content), ch.End), nil)
	t.dir.apply(b)
	return Result{Graph: b.graph(), Failures: b.failures, Layout: b.layout}
}

// nodeTable reports whether a table with this header maps as a node table
// (neither triples nor an edge table).
func (b *builder) nodeTable(header []string) bool {
	return !isTriples(header) && b.edgeTable(header) == nil
}

// LayoutOf says how a table is read (Result.Layout), from its header
// alone.
func LayoutOf(doc extract.Document, opts Options) string {
	header, _, ok := readHeader(doc)
	if !ok {
		return "an empty table: no header row"
	}
	_, layout := newBuilder(doc, opts).layoutOf(header)
	return layout
}

// RowChunks splits a table into chunks of at most rows rows each, at
// record boundaries: the first chunk starts at the document's start (with
// the header), each other at its first row's record, and together they
// cover the document. With rows <= 0, or a table of no more rows, the
// table is one chunk.
func RowChunks(doc extract.Document, rows int) []extract.Chunk {
	var starts []int // the starts of the chunks after the first
	if rows > 0 {
		n := -1 // the header is no row
		readTable(doc.Name, doc.Content, func(r record) bool {
			if n++; n > rows && (n-1)%rows == 0 {
				starts = append(starts, r.start)
			}
			return true
		})
	}
	starts = append(starts, len(doc.Content))
	out := make([]extract.Chunk, len(starts))
	begin := 0
	for i, end := range starts {
		text := doc.Content[begin:end]
		out[i] = extract.Chunk{DocumentID: doc.ID, Index: i, Text: text, Start: begin, End: end, Tokens: extract.EstimateTokens(text)}
		begin = end
	}
	return out
}
