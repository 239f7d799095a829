package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/query"
)

// TestQuery_CLI extracts with the OpenAI-compatible embedder against a
// local /v1/embeddings server, checks the re-run embeds nothing, and asks
// the version in every mode.
func TestQuery_CLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	var requests, texts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "local-embed" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		texts.Add(int32(len(req.Input)))
		var data []map[string]any
		for i, in := range req.Input {
			// The offline embedder stands in for a model here.
			data = append(data, map[string]any{"index": i, "embedding": embed.Offline{}.Vector(in)[:64]})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data, "usage": map[string]int{"prompt_tokens": 3 * len(req.Input)}})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_EMBED_MODEL", "local-embed")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)

	mustCLI(t, data, "extract", "--name", "emb", "--embedder", "openai", doc)
	first := requests.Load()
	if first == 0 || texts.Load() == 0 {
		t.Fatalf("the run embedded nothing (%d requests)", first)
	}
	mustCLI(t, data, "extract", "--name", "emb", "--embedder", "openai", doc)
	if requests.Load() != first {
		t.Errorf("the re-run made %d embedding requests, want none", requests.Load()-first)
	}

	for _, mode := range query.Modes {
		t.Run(mode, func(t *testing.T) {
			out := mustCLI(t, data, "query", "emb@2", "Who was Marley's partner?", "--mode", mode, "--top-k", "3", "--json", "--provider", "none")
			var res struct {
				Mode     string `json:"mode"`
				Embedder string `json:"embedder"`
				Keywords struct {
					Low []string `json:"low"`
				} `json:"keywords"`
				Entities []any `json:"entities"`
				Chunks   []struct {
					Ref      string  `json:"ref"`
					Document string  `json:"document"`
					Index    int     `json:"index"`
					Text     string  `json:"text"`
					Score    float64 `json:"score"`
				} `json:"chunks"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if res.Mode != mode || res.Embedder != "local-embed" || len(res.Keywords.Low) == 0 {
				t.Errorf("mode %q embedder %q keywords %v", res.Mode, res.Embedder, res.Keywords.Low)
			}
			if len(res.Chunks) == 0 || res.Chunks[0].Document != "marley.txt" || !strings.Contains(res.Chunks[0].Text, "Marley") || res.Chunks[0].Ref != "C1" {
				t.Errorf("chunks %+v", res.Chunks)
			}
			if (mode == query.ModeNaive) != (len(res.Entities) == 0) {
				t.Errorf("mode %s: %d entities", mode, len(res.Entities))
			}
		})
	}
	if _, err := runCLI(t, data, "query", "emb@1", "x", "--mode", "sideways"); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("bad mode: %v", err)
	}
}
