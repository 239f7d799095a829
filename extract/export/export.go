// Package export writes a graph in formats other tools read: JSON, GraphML
// (Gephi, yEd, NetworkX), CSV in the neo4j-admin import form (values
// exact) or for a spreadsheet (text a spreadsheet would run as a formula
// quoted), and a Cypher script of MERGE statements. Every writer streams:
// it holds the graph, never the file.
//
// Every format writes each node key once (the first node with a key wins)
// and adds a bare node for any edge endpoint that names no node, so that the
// output always loads: neo4j-admin and GraphML readers reject dangling
// relationships. Mentions are kept by JSON only. Node and edge properties
// are kept by every format: as typed GraphML keys, typed CSV columns and
// Cypher SET clauses (lists and maps as JSON strings where the format has
// no such values; integral numbers as integers).
package export

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"math"

	"github.com/kgstudio/kgstudio/extract"
)

// Formats lists the format names accepted by Write.
var Formats = []string{"json", "graphml", "csv", "cypher"}

// Write writes g to w in the named single-stream format: "json", "graphml"
// or "cypher". CSV needs two streams; use CSV or CSVDir. An unknown format
// is a KindInvalid error.
func Write(w io.Writer, format string, g extract.Graph) error {
	switch format {
	case "json":
		return JSON(w, g)
	case "graphml":
		return GraphML(w, g)
	case "cypher":
		return Cypher(w, g)
	case "csv":
		return extract.Errorf(extract.KindInvalid, "the csv format writes two files (nodes.csv and edges.csv): give a folder")
	}
	return extract.Errorf(extract.KindInvalid, "unknown export format %q (want json, graphml, csv or cypher)", format)
}

// JSON writes g as one indented JSON object {"nodes":[...],"edges":[...]}
// with the field names of extract.Node and extract.Edge. Non-finite edge
// weights are written as 0, since JSON has no NaN or infinity.
//
// The graph is written as it goes, one node or edge at a time, so the
// memory it takes is that of the largest item, not of the file. Lists
// and maps nested more than indentDepth (8) levels deep inside an item
// (the item, its properties map and six levels of a property value) are
// written compact on one line: indenting every level would make a value
// nested n deep take about n² bytes (a 20 KB property 10,000 levels deep
// took 200 MB), while compact text is as long as the value itself.
func JSON(w io.Writer, g extract.Graph) error {
	g = prepare(g)
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	item := func(v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			var ut *json.UnsupportedTypeError
			var uv *json.UnsupportedValueError
			var me *json.MarshalerError
			if errors.As(err, &ut) || errors.As(err, &uv) || errors.As(err, &me) {
				return extract.Wrap(extract.KindInvalid, err, "export json: a property value cannot be written as JSON")
			}
			return extract.Wrap(extract.KindInternal, err, "export json")
		}
		buf = indentJSON(buf[:0], data, "    ", "  ", indentDepth)
		_, err = bw.Write(buf)
		return err
	}
	bw.WriteString("{\n  \"nodes\": [")
	for i := range g.Nodes {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		if err := item(&g.Nodes[i]); err != nil {
			return jsonWriteErr(err)
		}
	}
	if len(g.Nodes) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"edges\": [")
	for i := range g.Edges {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		e := g.Edges[i]
		e.Weight = finite(e.Weight)
		if err := item(&e); err != nil {
			return jsonWriteErr(err)
		}
	}
	if len(g.Edges) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return flush(bw, "export json")
}

// jsonWriteErr keeps the kind of an error of ours and makes a write error
// unavailable.
func jsonWriteErr(err error) error {
	var e *extract.Error
	if errors.As(err, &e) {
		return err
	}
	return extract.Wrap(extract.KindUnavailable, err, "export json: write")
}

// indentDepth is how many levels of lists and maps of one node or edge
// the JSON export indents.
const indentDepth = 8

// indentJSON appends src, compact JSON as json.Marshal writes it, to dst
// indented as json.Indent indents it (prefix before each new line, indent
// per level, empty lists and maps kept as [] and {}), except that a list
// or map that opens deeper than maxDepth levels is copied compact.
func indentJSON(dst, src []byte, prefix, indent string, maxDepth int) []byte {
	newline := func(depth int) {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	depth := 0    // open lists and maps
	flat := 0     // open lists and maps inside the first one past maxDepth
	open := false // the last byte opened a list or map
	inString, escaped := false, false
	for _, c := range src {
		if inString {
			dst = append(dst, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			newline(depth)
		}
		if flat > 0 {
			switch c {
			case '{', '[':
				flat++
			case '}', ']':
				flat--
			case '"':
				inString = true
			}
			dst = append(dst, c)
			continue
		}
		switch c {
		case '{', '[':
			if depth >= maxDepth {
				flat = 1
			} else {
				open = true
			}
			dst = append(dst, c)
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				newline(depth)
			}
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline(depth)
		case ':':
			dst = append(dst, c, ' ')
		case '"':
			inString = true
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// prepare returns a copy of g with unique node keys, a node for every edge
// endpoint, and non-nil slices. Edge and node slices are fresh; their
// elements share maps with g.
func prepare(g extract.Graph) extract.Graph {
	out := extract.Graph{
		Nodes: make([]extract.Node, 0, len(g.Nodes)),
		Edges: make([]extract.Edge, len(g.Edges)),
	}
	seen := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		if seen[n.Key] {
			continue
		}
		seen[n.Key] = true
		out.Nodes = append(out.Nodes, n)
	}
	copy(out.Edges, g.Edges)
	for _, e := range g.Edges {
		for _, k := range [2]string{e.Source, e.Target} {
			if !seen[k] {
				seen[k] = true
				out.Nodes = append(out.Nodes, extract.Node{Key: k, Name: k})
			}
		}
	}
	return out
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func flush(bw *bufio.Writer, what string) error {
	if err := bw.Flush(); err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "%s: write", what)
	}
	return nil
}
