package kag_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// replay answers every call with the same output.
type replay string

func (r replay) Complete(_ context.Context, _ llm.Request) (llm.Response, error) {
	return llm.Response{Text: string(r)}, nil
}

// FuzzExtract_ModelOutput feeds any text to the schema strategy's output
// readers (NER, standardisation, relations, events) as every model answer:
// the chunk graph is well formed (every edge joins stored nodes) and
// unreadable output is reported as parse failures, never an error.
func FuzzExtract_ModelOutput(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "recorded", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 8<<10 {
			f.Add(string(b))
		}
	}
	f.Add(`<think>x</think>{"entities": [{"name": "Scrooge", "category": "Person", "properties": {"worksFor": ["Scrooge and Marley"]}}]}`)
	f.Add(`[{"subject": "Scrooge", "predicate": "partnerOf", "object": "Marley"}] trailing`)
	f.Add(`{"entities": null}`)
	text := "Scrooge was Marley's partner at Scrooge and Marley."
	chunk := extract.Chunk{DocumentID: 1, Text: text, End: len(text)}
	f.Fuzz(func(t *testing.T, out string) {
		x, err := kag.New(replay(out), extract.Config{Language: "en"}, enTypes, kag.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := x.Extract(context.Background(), extract.Document{ID: 1, Content: text}, chunk)
		if err != nil {
			t.Fatalf("error on model output %q: %v", out, err)
		}
		keys := map[string]bool{}
		for _, n := range res.Graph.Nodes {
			if strings.TrimSpace(n.Key) == "" {
				t.Fatalf("node without a key from %q", out)
			}
			keys[n.Key] = true
		}
		for _, e := range res.Graph.Edges {
			if !keys[e.Source] || !keys[e.Target] {
				t.Fatalf("edge %q -%s-> %q joins a missing node (output %q)", e.Source, e.Label, e.Target, out)
			}
		}
	})
}
