package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// extract --from NAME@V FILE... makes the next version of the extraction
// with the version's documents and the new file, extracting only the new
// file's chunks.
func TestExtract_From(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("KGSTUDIO_EMBEDDER", "offline")
	data := t.TempDir()
	a := writeFile(t, "a.txt", "Ada Lovelace wrote to Charles Babbage from London. Charles Babbage answered Ada Lovelace.")
	b := writeFile(t, "b.txt", "Mary Somerville met Michael Faraday in London. Michael Faraday thanked Mary Somerville.")
	c := writeFile(t, "c.txt", "Isambard Brunel built a bridge in Bristol. Isambard Brunel met Charles Babbage.")
	mustCLI(t, data, "extract", "--name", "letters", a, b)
	type out struct {
		extractJSON
		ParentID    int   `json:"parent_id"`
		ChunksTotal int   `json:"chunks_total"`
		Documents   []int `json:"document_ids"`
	}
	var first, grown out
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "letters@1", "--json")), &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "extract", "--from", "letters@1", "--json", c)), &grown); err != nil {
		t.Fatal(err)
	}
	if grown.Extraction != "letters" || grown.Version != 2 || grown.ParentID != first.ID || grown.Status != "done" || grown.Nodes <= first.Nodes {
		t.Errorf("grown %+v from %+v", grown, first)
	}
	graph := mustCLI(t, data, "export", "letters@2", "--format", "json")
	for _, name := range []string{"Ada Lovelace", "Mary Somerville", "Isambard Brunel"} {
		if !strings.Contains(graph, name) {
			t.Errorf("the grown graph lacks %s", name)
		}
	}
	if _, err := runCLI(t, data, "extract", "--from", "letters@2", c); err == nil || !strings.Contains(err.Error(), "nothing to add") {
		t.Errorf("growing by a file it holds: %v", err)
	}
	if _, err := runCLI(t, data, "extract", "--from", "letters@2"); err == nil {
		t.Error("--from without files was accepted")
	}
	// Settings given with --from would be ignored: refused, named.
	if _, err := runCLI(t, data, "extract", "--from", "letters@2", "--max-gleaning", "3", "--chunk-size", "400", c); err == nil ||
		!strings.Contains(err.Error(), "--max-gleaning") || !strings.Contains(err.Error(), "--chunk-size") {
		t.Errorf("--from with settings: %v", err)
	}
	// Taking b.txt out again: the next version has no Faraday.
	var without out
	if err := json.Unmarshal([]byte(mustCLI(t, data, "extract", "--from", "letters@2", "--without", "b.txt", "--json")), &without); err != nil {
		t.Fatal(err)
	}
	if without.Version != 3 || without.ParentID != grown.ID || without.Status != "done" {
		t.Errorf("without b.txt: %+v", without)
	}
	graph = mustCLI(t, data, "export", "letters@3", "--format", "json")
	if strings.Contains(graph, "Faraday") || !strings.Contains(graph, "Isambard Brunel") {
		t.Errorf("letters@3 without b.txt still names Faraday, or lost Brunel")
	}
	if _, err := runCLI(t, data, "extract", "--from", "letters@3", "--without", "b.txt"); err == nil || !strings.Contains(err.Error(), "no document") {
		t.Errorf("taking out a document it lacks: %v", err)
	}
}
