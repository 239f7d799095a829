package export

import (
	"archive/zip"
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// Leading columns of the neo4j-admin import files; one column per
// property name follows.
var (
	NodesHeader = []string{"id:ID", "name", "description", ":LABEL", "type"}
	EdgesHeader = []string{":START_ID", ":END_ID", ":TYPE", "description", "keywords", "weight:double", "label"}
)

// File names written by CSVDir.
const (
	NodesFile = "nodes.csv"
	EdgesFile = "edges.csv"
)

// BaseLabel is the label every exported node carries besides its type, so
// that Cypher can find nodes by key with one index.
const BaseLabel = "Entity"

// DefaultRelType is the relationship type of an edge without a usable label.
const DefaultRelType = "RELATED_TO"

// CSV writes g in the neo4j-admin import form: nodes to nodes (header
// id:ID,name,description,:LABEL,type) and edges to edges (header
// :START_ID,:END_ID,:TYPE,description,keywords,weight:double,label), each
// followed by one column per node or edge property name, typed in the
// header as all its values fit (age:long, score:double, flag:boolean, or
// untyped for strings; lists and maps as JSON strings; empty when an item
// lacks the property; a property named like a field is written as
// ReservedPrefix + name, and a ':' in a name as '_'). Fields are quoted as
// RFC 4180 requires (doubled quotes), so descriptions may hold commas,
// quotes and newlines; import those with
// `neo4j-admin database import full --multiline-fields=true`.
// Node labels are BaseLabel plus the sanitised type (see SanitizeLabel);
// relationship types are sanitised with SanitizeRelType. The type and
// label columns keep the type and label as written, so ReadCSV reads the
// graph back as it was.
//
// Every value is written exactly as it is, including text that starts
// with '=', '+', '-' or '@', which a spreadsheet would run as a formula:
// these files are neo4j-admin's input, and a quote put before such text
// (the spreadsheet's escape) would be imported into Neo4j and read back
// as part of the value (an "@handle" or a "+44" phone number would gain a
// quote). To look at a graph in a spreadsheet, use WriteSpreadsheetZip.
func CSV(nodes, edges io.Writer, g extract.Graph) error {
	cw := newCSVWriter(g, false)
	if err := cw.nodes(nodes); err != nil {
		return err
	}
	return cw.edges(edges)
}

// SpreadsheetCell is s as a spreadsheet shows it and never evaluates: s
// with a single quote before it when it starts with a character that
// makes a spreadsheet read a cell as a formula ('=', '+', '-', '@', tab,
// carriage return), else s.
func SpreadsheetCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// csvWriter writes the node and edge files of one graph, streaming: a
// row at a time.
type csvWriter struct {
	g      extract.Graph // prepared
	np, ep []propCol
	// text writes a text cell: as it is, or with SpreadsheetCell.
	text func(string) string
}

func newCSVWriter(g extract.Graph, spreadsheet bool) *csvWriter {
	g = prepare(g)
	cw := &csvWriter{g: g, np: nodeProps(g), ep: edgeProps(g), text: func(s string) string { return s }}
	if spreadsheet {
		cw.text = SpreadsheetCell
	}
	return cw
}

// nodes writes the node file.
func (cw *csvWriter) nodes(w io.Writer) error {
	bn := bufio.NewWriterSize(w, 64<<10)
	cn := csv.NewWriter(bn)
	if err := cn.Write(cw.header(NodesHeader, cw.np)); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv nodes")
	}
	rec := make([]string, len(NodesHeader)+len(cw.np))
	for i := range cw.g.Nodes {
		n := &cw.g.Nodes[i]
		label := BaseLabel
		if t := SanitizeLabel(n.Type); t != "" && t != BaseLabel {
			label += ";" + t
		}
		rec[0], rec[1], rec[2], rec[3], rec[4] = cw.text(n.Key), cw.text(n.Name), cw.text(n.Description), cw.text(label), cw.text(n.Type)
		cw.propCells(rec[len(NodesHeader):], cw.np, n.Properties)
		if err := cn.Write(rec); err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "export csv nodes")
		}
	}
	cn.Flush()
	if err := cn.Error(); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv nodes")
	}
	return flush(bn, "export csv nodes")
}

// edges writes the edge file.
func (cw *csvWriter) edges(w io.Writer) error {
	be := bufio.NewWriterSize(w, 64<<10)
	ce := csv.NewWriter(be)
	if err := ce.Write(cw.header(EdgesHeader, cw.ep)); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv edges")
	}
	rec := make([]string, len(EdgesHeader)+len(cw.ep))
	for i := range cw.g.Edges {
		e := &cw.g.Edges[i]
		rec[0], rec[1], rec[2] = cw.text(e.Source), cw.text(e.Target), cw.text(SanitizeRelType(e.Label))
		rec[3], rec[4] = cw.text(e.Description), cw.text(e.Keywords)
		rec[5] = strconv.FormatFloat(finite(e.Weight), 'g', -1, 64)
		rec[6] = cw.text(e.Label)
		cw.propCells(rec[len(EdgesHeader):], cw.ep, e.Properties)
		if err := ce.Write(rec); err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "export csv edges")
		}
	}
	ce.Flush()
	if err := ce.Error(); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv edges")
	}
	return flush(be, "export csv edges")
}

// header is base followed by one column per property: the name
// (':' replaced, since neo4j-admin reads it as the type separator) and,
// except for strings, ":" and the neo4j type.
func (cw *csvWriter) header(base []string, cols []propCol) []string {
	out := append([]string(nil), base...)
	for _, c := range cols {
		h := strings.ReplaceAll(c.Out, ":", "_")
		if c.Kind != kindString {
			h += ":" + c.Kind
		}
		out = append(out, cw.text(h))
	}
	return out
}

// propCells fills the property cells of one row; text goes through
// cw.text, numbers and booleans of typed columns do not.
func (cw *csvWriter) propCells(cells []string, cols []propCol, props map[string]any) {
	for i, c := range cols {
		cells[i] = ""
		if v, ok := props[c.Name]; ok {
			cells[i], _ = formatProp(v, c.Kind)
			if c.Kind == kindString {
				cells[i] = cw.text(cells[i])
			}
		}
	}
}

// CSVDir writes nodes.csv and edges.csv into dir, creating dir when needed.
func CSVDir(dir string, g extract.Graph) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return extract.Wrap(extract.KindInvalid, err, "export csv: cannot create folder %s", dir)
	}
	nf, err := os.Create(filepath.Join(dir, NodesFile))
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "export csv: cannot create %s", NodesFile)
	}
	defer func() { err = errors.Join(err, closeErr(nf)) }()
	ef, err := os.Create(filepath.Join(dir, EdgesFile))
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "export csv: cannot create %s", EdgesFile)
	}
	defer func() { err = errors.Join(err, closeErr(ef)) }()
	return CSV(nf, ef, g)
}

func closeErr(f *os.File) error {
	if err := f.Close(); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv: close %s", filepath.Base(f.Name()))
	}
	return nil
}

// SanitizeLabel turns a node type into a neo4j label usable unquoted:
// letters (any script), digits and underscores, other runs of characters
// replaced by one underscore, no leading or trailing underscore, and a
// leading underscore when it would start with a digit. An empty result
// means "no type label".
func SanitizeLabel(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
			continue
		}
		under = true
	}
	out := b.String()
	if out != "" && unicode.IsDigit([]rune(out)[0]) {
		out = "_" + out
	}
	return out
}

// SanitizeRelType turns an edge label into the neo4j relationship type of
// both the CSV and the Cypher export: the label as written, sanitised like
// a node label ("works at" -> "works_at"). An empty result becomes
// DefaultRelType.
func SanitizeRelType(s string) string {
	out := SanitizeLabel(s)
	if out == "" {
		return DefaultRelType
	}
	return out
}

// CSVZip writes nodes.csv and edges.csv as the two entries of one zip
// archive at path: the same files CSVDir writes, in one file to move about.
func CSVZip(path string, g extract.Graph) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "export csv: cannot create %s", path)
	}
	defer func() { err = errors.Join(err, closeErr(f)) }()
	return WriteCSVZip(f, g)
}

// WriteCSVZip writes nodes.csv and edges.csv as the two entries of a zip
// archive to w, as it goes: the files are never whole in memory.
func WriteCSVZip(w io.Writer, g extract.Graph) error {
	return writeZip(w, newCSVWriter(g, false))
}

// WriteSpreadsheetZip writes the CSV files for a spreadsheet to open as
// the two entries of a zip archive to w: every text cell (header names
// included) that starts with '=', '+', '-', '@', a tab or a carriage
// return gets a leading single quote, so that Excel, LibreOffice and
// Google Sheets show it as text instead of running it as a formula (see
// SpreadsheetCell). Numbers and booleans of typed columns are written as
// CSV writes them. The quotes change those values, so these files are for
// reading, not for neo4j-admin or ReadCSV.
func WriteSpreadsheetZip(w io.Writer, g extract.Graph) error {
	return writeZip(w, newCSVWriter(g, true))
}

func writeZip(w io.Writer, cw *csvWriter) error {
	zw := zip.NewWriter(w)
	for _, e := range []struct {
		name  string
		write func(io.Writer) error
	}{{NodesFile, cw.nodes}, {EdgesFile, cw.edges}} {
		fw, err := zw.Create(e.name)
		if err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "export csv: zip %s", e.name)
		}
		if err := e.write(fw); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv: finish the zip")
	}
	return nil
}
