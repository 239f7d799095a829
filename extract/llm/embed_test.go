package llm

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// fakeVector is the fake servers' embedding of a text: deterministic, so a
// test can check which text each vector belongs to.
func fakeVector(text string, dims int) []float32 {
	h := fnv.New32a()
	h.Write([]byte(text))
	v := make([]float32, dims)
	v[int(h.Sum32())%dims] = 3
	v[(int(h.Sum32())/7)%dims] += 4
	return v
}

func TestOpenAIEmbedder(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad path or key"}}`, http.StatusUnauthorized)
			return
		}
		var req oaEmbedRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "nomic-embed-text" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		if calls.Load() == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		// Answered in reverse order: the index field puts them back.
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{i, fakeVector(req.Input[i], 8)})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data, "usage": map[string]int{"prompt_tokens": 5 * len(req.Input)}})
	}))
	defer srv.Close()
	base, err := NewOpenAIEmbedder(OpenAIEmbedConfig{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "nomic-embed-text"})
	if err != nil {
		t.Fatal(err)
	}
	store := embed.NewMemoryStore()
	e := embed.Cached(WithEmbedPolicy(base, Policy{BaseDelay: 1, MaxDelay: 2}), store, 2)
	texts := []string{"alpha", "beta", "gamma", "alpha"}
	vecs, use, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range texts {
		if want := normalize(fakeVector(tx, 8)); !equal(vecs[i], want) {
			t.Errorf("vector %d = %v, want %v", i, vecs[i], want)
		}
	}
	// Three distinct texts in batches of two, one 429 retried: three requests,
	// two of them successful calls.
	if calls.Load() != 3 || use.Calls != 3 || use.Tokens != 15 || base.Dimensions() != 8 {
		t.Errorf("requests %d, usage %+v, dims %d", calls.Load(), use, base.Dimensions())
	}
	// The re-run embeds nothing.
	_, use, err = e.Embed(context.Background(), texts)
	if err != nil || use.Calls != 0 || use.Cached != 4 || calls.Load() != 3 {
		t.Errorf("re-run: usage %+v, requests %d, err %v", use, calls.Load(), err)
	}

	t.Run("refused key", func(t *testing.T) {
		bad, _ := NewOpenAIEmbedder(OpenAIEmbedConfig{BaseURL: srv.URL + "/v1", APIKey: "sk-wrong", Model: "nomic-embed-text"})
		_, _, err := bad.Embed(context.Background(), []string{"x"})
		if err == nil || strings.Contains(err.Error(), "sk-wrong") || extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("err = %v (kind %v)", err, extract.KindOf(err))
		}
	})
}

func TestGeminiEmbedder(t *testing.T) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.Header.Get("x-goog-api-key") != "g-key" {
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"error":{"code":403,"message":"bad key","status":"PERMISSION_DENIED"}}`))
			return
		}
		var req struct {
			Requests []struct {
				Content struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"content"`
				OutputDimensionality int `json:"outputDimensionality"`
			} `json:"requests"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var embs []map[string]any
		for _, rq := range req.Requests {
			embs = append(embs, map[string]any{"values": fakeVector(rq.Content.Parts[0].Text, rq.OutputDimensionality)})
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": embs})
	}))
	defer srv.Close()
	e, err := NewGeminiEmbedder(context.Background(), GeminiConfig{APIKey: "g-key", BaseURL: srv.URL}, 16)
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != DefaultGeminiEmbedModel || e.Dimensions() != 16 {
		t.Fatalf("model %s dims %d", e.Model(), e.Dimensions())
	}
	vecs, use, err := e.Embed(context.Background(), []string{"one", "two"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 2 || use.Calls != 1 || use.Tokens == 0 {
		t.Fatalf("vecs %d usage %+v", len(vecs), use)
	}
	for i, tx := range []string{"one", "two"} {
		want := fakeVector(tx, 16)
		embed.Normalize(want)
		if !equal(vecs[i], want) {
			t.Errorf("vector %d = %v, want %v", i, vecs[i], want)
		}
	}
	if len(paths) != 1 || !strings.HasSuffix(paths[0], DefaultGeminiEmbedModel+":batchEmbedContents") {
		t.Errorf("paths %v", paths)
	}
	bad, _ := NewGeminiEmbedder(context.Background(), GeminiConfig{APIKey: "other", BaseURL: srv.URL}, 16)
	if _, _, err := bad.Embed(context.Background(), []string{"x"}); err == nil || strings.Contains(err.Error(), "other") {
		t.Errorf("bad key: %v", err)
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return true
}
