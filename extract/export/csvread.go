package export

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// CSVFile is one file of a neo4j CSV export: its name (for errors; empty
// for a file read alone, whose errors name the line only) and content.
type CSVFile struct {
	Name string
	Data []byte
}

// Limits of a CSV import, checked as its files are read: at most
// MaxCSVRecords records (header lines not counted), maxCSVBytes of CSV
// over all the files, and records estimated to take at most maxCSVMemory
// of the server's memory once read and stored (see csvBudget). A zip may
// besides unpack to at most maxZipRatio times its own size (at least
// minZipLimit): CSV compresses five to fifteen times, and a zip bomb
// (102 KB that unpack to 3.5 GiB) is refused by what it declares, before
// anything is unpacked.
const (
	MaxCSVRecords = 1_000_000
	maxCSVBytes   = 64 << 20
	maxCSVMemory  = 384 << 20
	maxZipRatio   = 64
	minZipLimit   = 16 << 20
)

// What a record read is estimated to take in the server's memory (its
// node or edge, its text, its properties) from its reading to its
// storing, garbage collection's room included, fitted to imports
// measured by their peak RSS (a node of a short row without properties
// 430 bytes; with one property of 100 bytes 1,260; of 250 bytes 1,715).
const (
	recordCost = 384 // a node or an edge and its key
	byteCost   = 4   // a byte of its cells: held, copied to be stored
	propsCost  = 512 // its properties' map, when it has any
	propCost   = 160 // each property after the first: its map entry, its name, its boxed value
)

// csvBudget counts the records an import has read and their estimated
// memory, and refuses the record past either limit.
type csvBudget struct {
	records int
	memory  int64
}

// add counts one record of p (at line, with props properties).
func (b *csvBudget) add(p *csvPart, line int, rec []string, props int) error {
	cost := int64(recordCost)
	for _, f := range rec {
		cost += byteCost * int64(len(f)+1)
	}
	if props > 0 {
		cost += propsCost + propCost*int64(props-1)
	}
	b.records++
	b.memory += cost
	switch {
	case b.records > MaxCSVRecords:
		return extract.Errorf(extract.KindInvalid, "%sline %d: the import has more than %d records (nodes and relationships): import the graph in parts",
			p.label(), line, MaxCSVRecords)
	case b.memory > maxCSVMemory:
		return extract.Errorf(extract.KindInvalid, "%sline %d: the %d records read so far would take more than %d MiB of the server's memory (an import may take that much): import the graph in parts",
			p.label(), line, b.records, maxCSVMemory>>20)
	}
	return nil
}

// MaxCSVColumns bounds a header's columns: a node or relationship of
// more properties is refused before its rows are read (one record of two
// million properties took 810 MB to import, and its node's panel 2.5 GB).
const MaxCSVColumns = 4096

// checkWidth refuses a header of more than MaxCSVColumns columns.
func checkWidth(label string, n int) error {
	if n > MaxCSVColumns {
		return extract.Errorf(extract.KindInvalid, "%sheader: %d columns, at most %d (a node or relationship of that many properties): keep the properties a graph needs",
			label, n, MaxCSVColumns)
	}
	return nil
}

// zipLimit is how many bytes a zip of n bytes may unpack to.
func zipLimit(n int) int64 {
	return min(max(int64(n)*maxZipRatio, minZipLimit), maxCSVBytes)
}

// headerKind tells what a CSV file holds by its header (0: not a neo4j
// export's).
func headerKind(cols []csvColumn) csvKind {
	has := func(name, typ string) bool {
		for _, c := range cols {
			if c.Name == name && c.Type == typ {
				return true
			}
		}
		return false
	}
	switch {
	case has("", "START_ID") && has("", "END_ID"):
		return csvEdges
	case hasType(cols, "ID"):
		return csvNodes
	case has("_id", "") && has("_labels", "") && has("_start", "") && has("_end", ""):
		return csvAPOC
	}
	return 0
}

// MayBeCSVZip reports whether a zip may be a neo4j CSV export: one of its
// .csv files starts with a neo4j header. It reads the first line of each
// (at most 64 KiB), never a whole file, so telling a zip of CSV tables
// from a graph costs next to nothing (ReadCSVZip says for sure).
func MayBeCSVZip(data []byte) bool {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return false
	}
	for _, f := range zr.File {
		if !csvMember(f) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			continue
		}
		line, _ := bufio.NewReader(io.LimitReader(rc, 64<<10)).ReadString('\n')
		rc.Close()
		rec, err := newCSVReader(strings.NewReader(line), delimiterOf([]byte(line))).Read()
		if err != nil {
			continue
		}
		cols := make([]csvColumn, len(rec))
		for i, h := range rec {
			cols[i] = parseColumn(h)
		}
		if headerKind(cols) != 0 {
			return true
		}
	}
	return false
}

// csvMember says a zip's file is one of its CSV files (not a folder, not
// hidden).
func csvMember(f *zip.File) bool {
	return !f.FileInfo().IsDir() && strings.EqualFold(path.Ext(f.Name), ".csv") && !strings.HasPrefix(path.Base(f.Name), ".")
}

// IsZip reports whether data starts like a zip archive.
func IsZip(data []byte) bool { return bytes.HasPrefix(data, []byte("PK\x03\x04")) }

// ReadCSVZip reads a zip archive of a neo4j CSV export (see ReadCSV); its
// .csv files are read, in the archive's order, the rest ignored. The
// files are unpacked as they are read, never held whole: what the zip
// declares is checked against the limit first, and the zip reader
// refuses a file that unpacks to more than it declared.
func ReadCSVZip(data []byte) (extract.Graph, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return extract.Graph{}, extract.Wrap(extract.KindInvalid, err, "not a zip archive")
	}
	var srcs []csvSource
	total, limit := int64(0), zipLimit(len(data))
	for _, f := range zr.File {
		if !csvMember(f) {
			continue
		}
		if f.UncompressedSize64 > uint64(limit-total) {
			return extract.Graph{}, extract.Errorf(extract.KindInvalid, "%s: the zip unpacks to more than %d bytes (at most %d times its %d bytes, and %d in all)",
				f.Name, limit, maxZipRatio, len(data), int64(maxCSVBytes))
		}
		total += int64(f.UncompressedSize64)
		srcs = append(srcs, csvSource{name: f.Name, open: func() (io.ReadCloser, error) {
			rc, err := f.Open()
			if err != nil {
				return nil, extract.Wrap(extract.KindInvalid, err, "%s in the zip cannot be unpacked (damaged, or packed by a method not read here)", f.Name)
			}
			return zipMember{rc, f.Name}, nil
		}})
	}
	return readCSV(srcs)
}

// zipMember reads a file of a zip; a read error (it unpacks to more than
// it declares, its checksum fails, it is cut off) says so by its name.
type zipMember struct {
	io.ReadCloser
	name string
}

// Read implements io.Reader.
func (m zipMember) Read(p []byte) (int, error) {
	n, err := m.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = extract.Wrap(extract.KindInvalid, err, "%s: the zip is damaged (the file unpacks to more than it declares, fails its checksum or is cut off): nothing was imported", m.name)
	}
	return n, err
}

// ReadCSVFS reads the neo4j CSV export in the named files of fsys (see
// ReadCSV), named in errors by their base names. The files are read as
// they are needed, never held whole; together they may hold at most
// maxCSVBytes.
func ReadCSVFS(fsys fs.FS, names []string) (extract.Graph, error) {
	var srcs []csvSource
	total := int64(0)
	for _, name := range names {
		base := path.Base(name)
		info, err := fs.Stat(fsys, name)
		if err != nil {
			return extract.Graph{}, extract.Wrap(extract.KindInvalid, err, "%s", base)
		}
		if total += info.Size(); total > maxCSVBytes {
			return extract.Graph{}, tooManyBytes(base)
		}
		srcs = append(srcs, csvSource{name: base, open: func() (io.ReadCloser, error) {
			f, err := fsys.Open(name)
			if err != nil {
				return nil, extract.Wrap(extract.KindInvalid, err, "%s", base)
			}
			return f, nil
		}})
	}
	return readCSV(srcs)
}

// tooManyBytes refuses an import whose CSV files hold more than
// maxCSVBytes, naming the file that passes the limit.
func tooManyBytes(name string) error {
	return extract.Errorf(extract.KindInvalid, "%s: the CSV files hold more than %d bytes in all: an import reads at most %d MiB of CSV (import the graph in parts)",
		name, int64(maxCSVBytes), maxCSVBytes>>20)
}

// csvSource is one file of a CSV import, opened each time it is read
// (its header, a first pass typing apoc's columns, its rows), so no file
// need be held whole.
type csvSource struct {
	name string
	open func() (io.ReadCloser, error)
}

// csvKind is what a CSV file holds, told by its header.
type csvKind int

const (
	csvNodes csvKind = iota + 1 // neo4j-admin nodes: an :ID column
	csvEdges                    // neo4j-admin relationships: :START_ID, :END_ID
	csvAPOC                     // apoc.export.csv.all: _id, _labels, ..., _start, _end, _type
)

// csvColumn is one header field: the property name and its neo4j type
// ("ID", "LABEL", "START_ID", "long", "string[]" ...; "" when untyped), and
// an ID space in parentheses.
type csvColumn struct {
	Name, Type, Group string
}

func parseColumn(h string) csvColumn {
	h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
	name, typ, ok := strings.Cut(h, ":")
	if !ok {
		return csvColumn{Name: h}
	}
	c := csvColumn{Name: name, Type: typ}
	if i := strings.IndexByte(typ, '('); i >= 0 && strings.HasSuffix(typ, ")") {
		c.Type, c.Group = typ[:i], typ[i+1:len(typ)-1]
	}
	c.Type = strings.TrimSpace(c.Type)
	return c
}

// ReadCSV reads a neo4j CSV export, in either of its two layouts:
//
//   - neo4j-admin import files (what CSV writes): node files with an :ID
//     column (":ID", "id:ID", "personId:ID(Person)") and :LABEL, and
//     relationship files with :START_ID, :END_ID and :TYPE; other columns
//     are properties typed by their header (name:long, name:double,
//     name:boolean, name:string[] split on ';', untyped as text); a
//     header may be a file of its own, "nodes_header.csv" for
//     "nodes.csv" or parts "nodes-part1.csv" ... (see withHeaders);
//   - the single file of apoc.export.csv.all: _id, _labels, the property
//     columns, then _start, _end, _type; node rows fill _id and _labels,
//     relationship rows _start, _end and _type; a column whose values are
//     all integers, numbers or true/false is read as such.
//
// A node's key is its id (prefixed "Group:" when the id has an ID space;
// with APOC, its "key" property when it has one), its name the name column
// (else the key), its type the type column (else its first label other
// than BaseLabel). An edge's label is its label column, else its
// relationship type. The columns this program's CSV writes (description,
// keywords, weight, a property written with ReservedPrefix) read back as
// it wrote them; text holding a JSON list or object reads back as one; an
// empty cell is an absent property. A file that is neither layout, a row
// whose field count differs from its header, a bad typed value or an edge
// naming an unknown node is a KindInvalid error naming the file and line.
//
// The files are read record by record, each record made a node or an edge
// as it is read. An import reads at most MaxCSVRecords records (header
// lines not counted), maxCSVBytes of CSV in all, and records estimated to
// take at most maxCSVMemory (see csvBudget): the record past a limit is
// refused, naming its file and line, so what an import holds stays
// bounded whatever it is given.
func ReadCSV(files []CSVFile) (extract.Graph, error) {
	srcs := make([]csvSource, len(files))
	total := 0
	for i, f := range files {
		if total += len(f.Data); total > maxCSVBytes {
			return extract.Graph{}, tooManyBytes(f.Name)
		}
		srcs[i] = csvSource{name: f.Name, open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.Data)), nil }}
	}
	return readCSV(srcs)
}

// readCSV reads the files of a CSV import: see ReadCSV.
func readCSV(srcs []csvSource) (extract.Graph, error) {
	if len(srcs) == 0 {
		return extract.Graph{}, extract.Errorf(extract.KindInvalid, "no CSV files to read")
	}
	parts, err := withHeaders(srcs)
	if err != nil {
		return extract.Graph{}, err
	}
	for i := range parts {
		if err := parts[i].readHeader(); err != nil {
			return extract.Graph{}, err
		}
	}
	// Nodes first, so relationships in any file can name them.
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].kind == csvNodes && parts[j].kind != csvNodes })

	// The graph's lists and the keys are made once at the size the
	// files' lines allow (a record is a line at least), not grown row by
	// row: growing them left copies of up to twice their size to collect.
	var nodeLines, edgeLines int
	for i := range parts {
		n, err := parts[i].lines()
		if err != nil {
			return extract.Graph{}, err
		}
		// apoc's file holds both, in shares unknown until it is read.
		switch parts[i].kind {
		case csvNodes:
			nodeLines += n
		case csvEdges:
			edgeLines += n
		case csvAPOC: // nodes and edges, in shares known once read
		}
	}
	var (
		g = extract.Graph{Nodes: make([]extract.Node, 0, min(nodeLines, MaxCSVRecords)),
			Edges: make([]extract.Edge, 0, min(edgeLines, MaxCSVRecords))}
		kinds = make([][]string, len(parts))
	)
	keys := make(map[string]string, min(nodeLines, MaxCSVRecords)) // id as relationships name it -> node key
	var budget csvBudget
	for i := range parts {
		p := &parts[i]
		if p.kind == csvAPOC {
			// apoc's columns are typed by their values: a first pass.
			var err error
			if kinds[i], err = apocKinds(p, &budget); err != nil {
				return extract.Graph{}, err
			}
		}
		if p.kind == csvEdges {
			continue
		}
		err := p.eachRow(func(rec []string, line int) error {
			var (
				n   extract.Node
				err error
				ok  bool
			)
			if p.kind == csvNodes {
				n, err = adminNode(p.header, rec, keys)
				ok = true
			} else {
				n, ok, err = apocNode(p.header, kinds[i], rec, keys)
			}
			if err != nil {
				return extract.Errorf(extract.KindInvalid, "%sline %d: %s", p.label(), line, extract.MessageOf(err))
			}
			if p.kind == csvNodes {
				if err := budget.add(p, line, rec, len(n.Properties)); err != nil {
					return err
				}
			}
			if ok {
				g.Nodes = append(g.Nodes, n)
			}
			return nil
		})
		if err != nil {
			return extract.Graph{}, err
		}
	}
	for i := range parts {
		p := &parts[i]
		if p.kind == csvNodes {
			continue
		}
		err := p.eachRow(func(rec []string, line int) error {
			var (
				e   extract.Edge
				ok  = true
				err error
			)
			if p.kind == csvEdges {
				e, err = adminEdge(p.header, rec, keys)
			} else {
				e, ok, err = apocEdge(p.header, kinds[i], rec, keys)
			}
			if err != nil {
				return extract.Errorf(extract.KindInvalid, "%sline %d: %s", p.label(), line, extract.MessageOf(err))
			}
			if p.kind == csvEdges {
				if err := budget.add(p, line, rec, len(e.Properties)); err != nil {
					return err
				}
			}
			if ok {
				g.Edges = append(g.Edges, e)
			}
			return nil
		})
		if err != nil {
			return extract.Graph{}, err
		}
	}
	// neo4j-admin's ids were checked unique as they were read and are
	// the keys; apoc's key property may repeat.
	keyed := !slices.ContainsFunc(parts, func(p csvPart) bool { return p.kind == csvAPOC })
	return cleanGraph(g, keyed)
}

// csvPart is one data file to read: with the columns of its separate
// header file (named headerName), or its own first line's (own).
type csvPart struct {
	src        csvSource
	header     []csvColumn
	headerName string
	own        bool // the file's first line is its header
	comma      rune // the delimiter: the header file's, else the file's own
	kind       csvKind
}

// label is the part's file name and a space, or "" for a file read alone
// (whose caller names it).
func (p *csvPart) label() string {
	if p.src.name == "" {
		return ""
	}
	return path.Base(strings.ReplaceAll(p.src.name, "\\", "/")) + " "
}

// lines counts the lines of the part's file that are not empty (the CSV
// reader skips empty ones): a bound on its records.
func (p *csvPart) lines() (int, error) {
	rc, err := p.src.open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	n, last := 0, byte('\n')
	buf := make([]byte, 64<<10)
	for {
		k, err := rc.Read(buf)
		for _, c := range buf[:k] {
			if c == '\n' && last != '\n' {
				n++
			}
			last = c
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, p.readErr(err)
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// readHeader reads the columns of a part whose first line is its header
// and tells the part's kind by them.
func (p *csvPart) readHeader() error {
	if p.own {
		rc, err := p.src.open()
		if err != nil {
			return err
		}
		r := newCSVReader(rc, p.comma)
		rec, err := r.Read()
		rc.Close()
		if err == io.EOF {
			return extract.Errorf(extract.KindInvalid, "%sis empty: want a header line", p.label())
		}
		if err != nil {
			return p.readErr(err)
		}
		if err := checkWidth(p.label(), len(rec)); err != nil {
			return err
		}
		for _, h := range rec {
			p.header = append(p.header, parseColumn(h))
		}
	}
	at := "line 1"
	if p.headerName != "" {
		at = "header " + p.headerName
	}
	if p.kind = headerKind(p.header); p.kind == 0 {
		return extract.Errorf(extract.KindInvalid,
			"%s%s: not a neo4j CSV export: want a node header with an :ID column, a relationship header with :START_ID and :END_ID, or apoc's _id,_labels,...,_start,_end,_type", p.label(), at)
	}
	return nil
}

// readErr is a read error of the part, with its line when the reader
// knows it.
func (p *csvPart) readErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return extract.Errorf(extract.KindInvalid, "%sline %d: %v", p.label(), pe.Line, pe.Err)
	}
	if extract.KindOf(err) == extract.KindInvalid {
		return err
	}
	return extract.Wrap(extract.KindInvalid, err, "%sread", p.label())
}

// eachRow reads the part's data records one at a time (the header line
// skipped) and calls f with each and its line; rec is reused by the next
// record. It stops at f's first error.
func (p *csvPart) eachRow(f func(rec []string, line int) error) error {
	rc, err := p.src.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	r := newCSVReader(rc, p.comma)
	r.ReuseRecord = true
	r.FieldsPerRecord = len(p.header)
	first := true
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return p.readErr(err)
		}
		line, _ := r.FieldPos(0)
		if first {
			first = false
			if p.own {
				continue
			}
			if sameHeader(rec, p.header) {
				return extract.Errorf(extract.KindInvalid, "%sline %d repeats the header of %s: a data file beside its header file has no header line", p.label(), line, p.headerName)
			}
		}
		if err := f(rec, line); err != nil {
			return err
		}
	}
}

// newCSVReader reads a file of a neo4j export, past a byte-order mark,
// with the delimiter comma.
func newCSVReader(in io.Reader, comma rune) *csv.Reader {
	br := bufio.NewReaderSize(in, 64<<10)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	r := csv.NewReader(br)
	r.Comma = comma
	return r
}

// firstLine is the first line of a source (at most 64 KiB of it).
func firstLine(src csvSource) ([]byte, error) {
	rc, err := src.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(rc, 64<<10), 64<<10).ReadSlice('\n')
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		if extract.KindOf(err) == extract.KindInvalid {
			return nil, err
		}
		return nil, extract.Wrap(extract.KindInvalid, err, "%s: cannot be read", src.name)
	}
	return line, nil
}

// delimiterOf is the delimiter of a file whose first line is a header:
// a tab when that line has tabs and no comma (neo4j-admin's
// --delimiter=TAB), else a comma.
func delimiterOf(data []byte) rune {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	if bytes.IndexByte(line, '\t') >= 0 && bytes.IndexByte(line, ',') < 0 {
		return '\t'
	}
	return ','
}

// withHeaders pairs the data files of a neo4j-admin import with their
// separate header files, as `neo4j-admin database import
// --nodes=nodes_header.csv,nodes.csv` takes them: a file whose name ends
// in "_header.csv", "-header.csv" or ".header.csv" holds the
// header line only, and its columns are those of every file in the same
// folder named by what comes before ("nodes.csv", or parts
// "nodes-part1.csv", "nodes_2.csv", "nodes.part3.csv": the prefix and a
// '-', '_' or '.'); those files have no header line. A data file matching
// several header files belongs to the longest prefix. Every other file
// holds its own header. A header file with more than one line, or with no
// data file, is invalid.
func withHeaders(files []csvSource) ([]csvPart, error) {
	type header struct {
		name, prefix string
		cols         []csvColumn
		comma        rune
		used         bool
	}
	var headers []*header
	isHeader := make([]bool, len(files))
	for i, f := range files {
		name := strings.ReplaceAll(f.name, "\\", "/")
		stem := strings.TrimSuffix(name, path.Ext(name))
		lower := strings.ToLower(stem)
		if f.name == "" || !(strings.HasSuffix(lower, "_header") || strings.HasSuffix(lower, "-header") || strings.HasSuffix(lower, ".header")) {
			continue
		}
		prefix := stem[:len(stem)-len("_header")]
		if prefix == "" || strings.HasSuffix(prefix, "/") {
			continue // "_header.csv" names no data files
		}
		first, err := firstLine(f)
		if err != nil {
			return nil, err
		}
		h := &header{name: path.Base(name), prefix: prefix, comma: delimiterOf(first)}
		if err := readHeaderFile(f, h.name, path.Base(prefix), h.comma, &h.cols); err != nil {
			return nil, err
		}
		headers = append(headers, h)
		isHeader[i] = true
	}
	out := make([]csvPart, 0, len(files))
	for i, f := range files {
		if isHeader[i] {
			continue
		}
		name := strings.ReplaceAll(f.name, "\\", "/")
		stem := strings.TrimSuffix(name, path.Ext(name))
		var best *header
		for _, h := range headers {
			rest, ok := strings.CutPrefix(stem, h.prefix)
			if !ok || (rest != "" && !strings.ContainsRune("-_.", rune(rest[0]))) {
				continue
			}
			if best == nil || len(h.prefix) > len(best.prefix) {
				best = h
			}
		}
		p := csvPart{src: f, own: true}
		if best != nil {
			p.header, p.headerName, p.comma, p.own, best.used = best.cols, best.name, best.comma, false, true
		} else {
			first, err := firstLine(f)
			if err != nil {
				return nil, err
			}
			p.comma = delimiterOf(first)
		}
		out = append(out, p)
	}
	for _, h := range headers {
		if !h.used {
			base := path.Base(h.prefix)
			return nil, extract.Errorf(extract.KindInvalid, "%s: no data files for this header (want %s.csv, or parts like %s-part1.csv, beside it)", h.name, base, base)
		}
	}
	return out, nil
}

// readHeaderFile reads the columns of a header file, which holds its
// header line only (base names its data files in the error otherwise).
func readHeaderFile(f csvSource, name, base string, comma rune, cols *[]csvColumn) error {
	rc, err := f.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	r := newCSVReader(rc, comma)
	rec, err := r.Read()
	if err == io.EOF {
		return extract.Errorf(extract.KindInvalid, "%s is empty: want the header line", name)
	}
	if err != nil {
		return csvError(name, err)
	}
	if err := checkWidth(name+" ", len(rec)); err != nil {
		return err
	}
	for _, c := range rec {
		*cols = append(*cols, parseColumn(c))
	}
	switch _, err := r.Read(); {
	case err == io.EOF:
		return nil
	case err != nil:
		return csvError(name, err)
	default:
		line, _ := r.FieldPos(0)
		return extract.Errorf(extract.KindInvalid, "%s line %d: a header file holds the header line only; the rows go in %s.csv (or parts like %s-part1.csv)",
			name, line, base, base)
	}
}

// sameHeader reports whether a record reads as the header cols.
func sameHeader(rec []string, cols []csvColumn) bool {
	if len(rec) != len(cols) {
		return false
	}
	for i, h := range rec {
		if parseColumn(h) != cols[i] {
			return false
		}
	}
	return true
}

// csvError is a CSV read error of the named file, with its line when the
// reader knows it.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return extract.Errorf(extract.KindInvalid, "%s line %d: %v", name, pe.Line, pe.Err)
	}
	return extract.Wrap(extract.KindInvalid, err, "%s", name)
}

func hasType(cols []csvColumn, typ string) bool {
	for _, c := range cols {
		if c.Type == typ {
			return true
		}
	}
	return false
}

// idKey is the key an id of an ID space stands for.
func idKey(group, id string) string {
	if group == "" {
		return id
	}
	return group + ":" + id
}

// adminNode reads one row of a neo4j-admin nodes file.
func adminNode(cols []csvColumn, rec []string, keys map[string]string) (extract.Node, error) {
	var n extract.Node
	var labels []string
	space := ""
	for i, c := range cols {
		v := rec[i]
		switch {
		case c.Type == "ID":
			if strings.TrimSpace(v) == "" {
				return n, extract.Errorf(extract.KindInvalid, "a node without an id")
			}
			n.Key = idKey(c.Group, v)
			space = c.Group
			if c.Name != "" && c.Name != "id" {
				if err := setTyped(&n.Properties, c.Name, "", v, nodeFields); err != nil {
					return n, err
				}
			}
		case c.Type == "LABEL":
			labels = append(labels, strings.Split(v, ";")...)
		case c.Type == "IGNORE":
		case c.Name == "name" && c.Type == "":
			n.Name = v
		case c.Name == "type" && c.Type == "":
			n.Type = v
		case c.Name == "description" && c.Type == "":
			n.Description = v
		default:
			if err := setTyped(&n.Properties, c.Name, c.Type, v, nodeFields); err != nil {
				return n, err
			}
		}
	}
	finishNode(&n, labels)
	if n.Type == "" {
		// No label in the file (neo4j-admin takes it from the command
		// line, --nodes=Person=people.csv): the ID space names the kind.
		n.Type = space
	}
	if _, dup := keys[n.Key]; dup {
		return n, extract.Errorf(extract.KindInvalid, "node id %q appears twice", n.Key)
	}
	keys[n.Key] = n.Key
	return n, nil
}

// finishNode names a node by its key when it has no name and types it by
// its first label other than BaseLabel when it has no type. Its other
// labels (a neo4j node may have several: Person;Employee) are kept in
// the property "labels", a list, unless it has one of that name.
func finishNode(n *extract.Node, labels []string) {
	if n.Name == "" {
		n.Name = n.Key
	}
	var extra []any
	for _, l := range labels {
		l = strings.TrimSpace(l)
		if l == "" || l == BaseLabel {
			continue
		}
		if n.Type == "" {
			n.Type = l
			continue
		}
		if l != n.Type && l != SanitizeLabel(n.Type) {
			extra = append(extra, l)
		}
	}
	if _, taken := n.Properties["labels"]; len(extra) > 0 && !taken {
		if n.Properties == nil {
			n.Properties = map[string]any{}
		}
		n.Properties["labels"] = extra
	}
}

// adminEdge reads one row of a neo4j-admin relationships file.
func adminEdge(cols []csvColumn, rec []string, keys map[string]string) (extract.Edge, error) {
	var e extract.Edge
	var relType string
	hasWeight := false
	for i, c := range cols {
		v := rec[i]
		switch {
		case c.Type == "START_ID" || c.Type == "END_ID":
			k, ok := keys[idKey(c.Group, v)]
			if !ok {
				return e, extract.Errorf(extract.KindInvalid, "no node with id %q", v)
			}
			if c.Type == "START_ID" {
				e.Source = k
			} else {
				e.Target = k
			}
		case c.Type == "TYPE":
			relType = v
		case c.Type == "IGNORE":
		default:
			if field, err := setEdgeField(&e, c.Name, v, &hasWeight); err != nil || field {
				if err != nil {
					return e, err
				}
				continue
			}
			if err := setTyped(&e.Properties, c.Name, c.Type, v, edgeFields); err != nil {
				return e, err
			}
		}
	}
	finishEdge(&e, relType, hasWeight)
	return e, nil
}

// setEdgeField fills the edge field a column named name holds (label,
// keywords, description, weight; an empty weight is none); field is false
// for any other column.
func setEdgeField(e *extract.Edge, name, v string, hasWeight *bool) (field bool, err error) {
	switch name {
	case "label":
		e.Label = v
	case "keywords":
		e.Keywords = v
	case "description":
		e.Description = v
	case "weight":
		if v == "" {
			return true, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return true, extract.Errorf(extract.KindInvalid, "weight %q is not a number", v)
		}
		e.Weight, *hasWeight = f, true
	default:
		return false, nil
	}
	return true, nil
}

// finishEdge labels an edge by its relationship type when it has no
// label, and weighs it 1 when the file gave no weight.
func finishEdge(e *extract.Edge, relType string, hasWeight bool) {
	if e.Label == "" {
		e.Label = relType
	}
	if !hasWeight {
		e.Weight = 1
	}
}

// apocKinds types the property columns of an apoc file by their values
// (a pass over its rows, each counted in the budget): long, double or
// boolean when every non-empty cell reads as one, else string.
func apocKinds(p *csvPart, budget *csvBudget) ([]string, error) {
	kinds := make([]string, len(p.header))
	err := p.eachRow(func(rec []string, line int) error {
		props := 0
		for i, c := range p.header {
			if rec[i] != "" && !apocField(c.Name) {
				props++
			}
		}
		if err := budget.add(p, line, rec, props); err != nil {
			return err
		}
		for i, kind := range kinds {
			v := strings.TrimSpace(rec[i])
			if v == "" || kind == kindString {
				continue
			}
			k := kindString
			if _, err := strconv.ParseInt(v, 10, 64); err == nil {
				k = kindLong
			} else if _, err := strconv.ParseFloat(v, 64); err == nil {
				k = kindDouble
			} else if v == "true" || v == "false" {
				k = kindBoolean
			}
			kinds[i] = mergeKind(kind, k)
		}
		return nil
	})
	return kinds, err
}

// apocField says a column of an apoc file holds no property.
func apocField(name string) bool {
	switch name {
	case "_id", "_labels", "_start", "_end", "_type", "key", "name", "type", "description", "label", "keywords", "weight":
		return true
	}
	return false
}

// apocNode reads a node row of an apoc file; ok is false for a
// relationship row.
func apocNode(cols []csvColumn, kinds []string, rec []string, keys map[string]string) (extract.Node, bool, error) {
	var n extract.Node
	var id string
	var labels []string
	for i, c := range cols {
		v := rec[i]
		switch c.Name {
		case "_id":
			id = v
		case "_labels":
			labels = strings.Split(strings.TrimPrefix(v, ":"), ":")
		case "_start", "_end", "_type":
		case "key":
			n.Key = v
		case "name":
			n.Name = v
		case "type":
			n.Type = v
		case "description":
			n.Description = v
		default:
			if err := setTyped(&n.Properties, c.Name, kinds[i], v, nodeFields); err != nil {
				return n, false, err
			}
		}
	}
	if id == "" {
		return n, false, nil
	}
	if n.Key == "" {
		n.Key = id
	}
	finishNode(&n, labels)
	if _, dup := keys[id]; dup {
		return n, false, extract.Errorf(extract.KindInvalid, "node _id %q appears twice", id)
	}
	keys[id] = n.Key
	return n, true, nil
}

// apocEdge reads a relationship row of an apoc file; ok is false for a
// node row.
func apocEdge(cols []csvColumn, kinds []string, rec []string, keys map[string]string) (extract.Edge, bool, error) {
	var e extract.Edge
	var start, end, relType string
	hasWeight := false
	for i, c := range cols {
		v := rec[i]
		switch c.Name {
		case "_start":
			start = v
		case "_end":
			end = v
		case "_type":
			relType = v
		case "_id", "_labels":
			if v != "" {
				return e, false, nil
			}
		default:
			if field, err := setEdgeField(&e, c.Name, v, &hasWeight); err != nil || field {
				if err != nil {
					return e, false, err
				}
				continue
			}
			if err := setTyped(&e.Properties, c.Name, kinds[i], v, edgeFields); err != nil {
				return e, false, err
			}
		}
	}
	if start == "" && end == "" {
		return e, false, nil
	}
	for _, id := range []string{start, end} {
		if _, ok := keys[id]; !ok {
			return e, false, extract.Errorf(extract.KindInvalid, "no node with _id %q", id)
		}
	}
	e.Source, e.Target = keys[start], keys[end]
	finishEdge(&e, relType, hasWeight)
	return e, true, nil
}

// setTyped stores one property cell, read by its header type; an empty
// cell is an absent property; a value that does not read as its type is
// invalid. Array types (long[] ...) split on ';'.
func setTyped(props *map[string]any, name, typ, text string, fields map[string]bool) error {
	if text == "" || name == "" {
		return nil
	}
	typ = strings.ToLower(typ)
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		list := []any{}
		for _, part := range strings.Split(text, ";") {
			var m map[string]any
			if err := setTyped(&m, "v", elem, part, nil); err != nil {
				return err
			}
			list = append(list, m["v"])
		}
		if rest, ok := strings.CutPrefix(name, ReservedPrefix); ok && fields[rest] {
			name = rest
		}
		if *props == nil {
			*props = map[string]any{}
		}
		(*props)[name] = list
		return nil
	}
	t := strings.TrimSpace(text)
	switch typ {
	case kindLong, "int", "short", "byte":
		if _, err := strconv.ParseInt(t, 10, 64); err != nil {
			return extract.Errorf(extract.KindInvalid, "%s: %q is not an integer", name, text)
		}
	case kindDouble, "float":
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			return extract.Errorf(extract.KindInvalid, "%s: %q is not a number", name, text)
		}
	case kindBoolean:
		if _, err := strconv.ParseBool(t); err != nil {
			return extract.Errorf(extract.KindInvalid, "%s: %q is not true or false", name, text)
		}
	case "", kindString, "char", "date", "datetime", "localdatetime", "time", "localtime", "duration", "point":
		typ = kindString
	default:
		return extract.Errorf(extract.KindInvalid, "%s: unknown column type %q", name, typ)
	}
	setProp(props, name, typ, text, fields)
	return nil
}
