package app

import (
	"path/filepath"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/export"
)

// ReadDocument is extract.ReadDocument plus the checks that need the
// strategies' readers: a .json file, or a document that looks like a
// dialogue, must parse as one of the known dialogue shapes. A file that is
// not valid JSON, or valid JSON of no known shape, is refused with the
// reason and, for a shape, the JSON path of the bad field: it is not stored
// as text to fail later.
//
// A graph file (this project's JSON export, networkx's node-link JSON,
// GraphML, a zip of neo4j CSV files) is not a document: it is refused
// with the form and the command that import it, instead of running to an
// empty graph.
func ReadDocument(name string, data []byte, maxBytes int) (extract.Document, error) {
	if export.IsZip(data) {
		return extract.Document{}, extract.Errorf(extract.KindInvalid,
			"%s is a zip, not a document: a zip of neo4j CSV files imports as a graph with the Extractions page's import form or kgstudio import NAME %s", name, name)
	}
	d, err := extract.ReadDocument(name, data, maxBytes)
	if err != nil {
		return d, err
	}
	if isGraphFile(name, d.Content) {
		return extract.Document{}, extract.Errorf(extract.KindInvalid,
			"%s is a graph, not a document: import it as a version with the Extractions page's import form or kgstudio import NAME %s", name, name)
	}
	if d.Kind != extract.DocDialogue && !strings.EqualFold(filepath.Ext(name), ".json") {
		return d, nil
	}
	if _, err := dialogue.ParseAll([]byte(d.Content)); err != nil {
		return extract.Document{}, extract.Errorf(extract.KindInvalid,
			"%s: %s (a .json document must hold a dialogue: LoCoMo, MemoryBank, LongMemEval or kgstudio's own shape)", name, extract.MessageOf(err))
	}
	d.Kind = extract.DocDialogue
	return d, nil
}

// isGraphFile reports whether a file holds a graph this project can import:
// GraphML, or the JSON export (nodes and edges at the top).
func isGraphFile(name, content string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".graphml":
		return true
	case ".json":
		_, err := export.ReadJSON([]byte(content))
		return err == nil
	}
	return strings.Contains(content[:min(len(content), 512)], "<graphml")
}
