package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kgstudio/kgstudio/app"
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
	t.Setenv("KGSTUDIO_PRICES", "local-embed=2/0")
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

	// The version shows the embedding calls, tokens and cost; the re-run's
	// are all cached and free.
	type shown struct {
		Embedding *app.EmbeddingJSON `json:"embedding"`
	}
	var v1, v2 shown
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "emb@1", "--json")), &v1); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "emb@2", "--json")), &v2); err != nil {
		t.Fatal(err)
	}
	e1, e2 := v1.Embedding, v2.Embedding
	if e1 == nil || e2 == nil {
		t.Fatalf("version show --json has no embedding stats: %+v %+v", v1, v2)
	}
	wantTokens := 3 * int(texts.Load())
	wantCost := fmt.Sprintf("$%.4f", float64(wantTokens)*2/1e6)
	if e1.Embedder != "openai" || e1.Model != "local-embed" || e1.Dimensions != 64 || e1.Calls != int(first) || e1.Tokens != wantTokens || e1.Cost != wantCost || e1.Vectors == 0 {
		t.Errorf("first run's embedding stats %+v, want %d calls, %d tokens, cost %s", *e1, first, wantTokens, wantCost)
	}
	// A text given twice (the edges of one sentence share it) is embedded
	// once, so the cache answers each text the first run sent.
	if e2.Calls != 0 || e2.Tokens != 0 || e2.Cached != int(texts.Load()) || e2.Vectors != e1.Vectors || e2.Cost != "$0.0000" {
		t.Errorf("re-run's embedding stats %+v, want the %d texts the first run sent all cached", *e2, texts.Load())
	}
	if out := mustCLI(t, data, "version", "show", "emb@1"); !strings.Contains(out, "cost "+wantCost) {
		t.Errorf("version show (text) lacks the embedding cost:\n%s", out)
	}

	for _, mode := range query.ModeNames() {
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
			if (mode == string(query.ModeNaive)) != (len(res.Entities) == 0) {
				t.Errorf("mode %s: %d entities", mode, len(res.Entities))
			}
		})
	}
	if _, err := runCLI(t, data, "query", "emb@1", "x", "--mode", "sideways"); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := runCLI(t, data, "query", "emb@1", " "); err == nil || !strings.Contains(err.Error(), "a question is required") {
		t.Errorf("blank question: %v", err)
	}
}
