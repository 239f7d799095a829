package export

import (
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

// Headers of the neo4j-admin import files.
var (
	NodesHeader = []string{"id:ID", "name", "description", ":LABEL"}
	EdgesHeader = []string{":START_ID", ":END_ID", ":TYPE", "description", "keywords", "weight:double"}
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
// id:ID,name,description,:LABEL) and edges to edges (header
// :START_ID,:END_ID,:TYPE,description,keywords,weight:double). Fields are
// quoted as RFC 4180 requires (doubled quotes), so descriptions may hold
// commas, quotes and newlines; import those with
// `neo4j-admin database import full --multiline-fields=true`.
// Node labels are BaseLabel plus the sanitised type (see SanitizeLabel);
// relationship types are sanitised with SanitizeRelType.
func CSV(nodes, edges io.Writer, g extract.Graph) error {
	g = prepare(g)
	bn := bufio.NewWriterSize(nodes, 64<<10)
	cn := csv.NewWriter(bn)
	if err := cn.Write(NodesHeader); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv nodes")
	}
	rec := make([]string, 6)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		label := BaseLabel
		if t := SanitizeLabel(n.Type); t != "" && t != BaseLabel {
			label += ";" + t
		}
		rec[0], rec[1], rec[2], rec[3] = n.Key, n.Name, n.Description, label
		if err := cn.Write(rec[:4]); err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "export csv nodes")
		}
	}
	cn.Flush()
	if err := cn.Error(); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv nodes")
	}
	if err := flush(bn, "export csv nodes"); err != nil {
		return err
	}

	be := bufio.NewWriterSize(edges, 64<<10)
	ce := csv.NewWriter(be)
	if err := ce.Write(EdgesHeader); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export csv edges")
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		rec[0], rec[1], rec[2] = e.Source, e.Target, SanitizeRelType(e.Label)
		rec[3], rec[4] = e.Description, e.Keywords
		rec[5] = strconv.FormatFloat(finite(e.Weight), 'g', -1, 64)
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

// SanitizeRelType turns an edge label into a neo4j relationship type in the
// usual UPPER_SNAKE form ("works at" -> "WORKS_AT"); scripts without case
// stay as they are. An empty result becomes DefaultRelType.
func SanitizeRelType(s string) string {
	out := strings.ToUpper(SanitizeLabel(s))
	if out == "" {
		return DefaultRelType
	}
	return out
}
