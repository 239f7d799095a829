// Package export writes a graph in formats other tools read: JSON, GraphML
// (Gephi, yEd, NetworkX), CSV in the neo4j-admin import form, and a Cypher
// script of MERGE statements.
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
func JSON(w io.Writer, g extract.Graph) error {
	out := prepare(g)
	for i := range out.Edges {
		out.Edges[i].Weight = finite(out.Edges[i].Weight)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		var ut *json.UnsupportedTypeError
		var uv *json.UnsupportedValueError
		var me *json.MarshalerError
		if errors.As(err, &ut) || errors.As(err, &uv) || errors.As(err, &me) {
			return extract.Wrap(extract.KindInvalid, err, "export json: a property value cannot be written as JSON")
		}
		return extract.Wrap(extract.KindUnavailable, err, "export json: write")
	}
	return flush(bw, "export json")
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
