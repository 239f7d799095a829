package eval

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/embed/uselite"
	"github.com/kgstudio/kgstudio/extract/nlp"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// BenchmarkQuery6119 measures what one question costs on a version the
// size of 2WikiMultiHopQA's corpus (6,119 passages): the shared HotpotQA
// and MuSiQue passages, repeated under new titles to that count,
// extracted offline, with a 512-dimension vector for every chunk, node
// and distinct edge text as the default encoder stores (random unit vectors: the cost
// of a search depends on their number and length, not their values), and
// the question embedded by the real encoder. The corpus is built once, as
// the app keeps a finished version's; every question of both sets is
// asked in each mode and the median and 90th percentile are reported
// (ms/question).
func BenchmarkQuery6119(b *testing.B) {
	const size = 6119
	ctx := context.Background()
	var passages []extract.Passage
	var questions []MultiHopQuestion
	for _, set := range []string{"hotpotqa", "musique"} {
		ps, err := extract.ReadCorpus(bytes.NewReader(testkit.Read(b, "multihop/"+set+"_train_corpus.json")))
		if err != nil {
			b.Fatal(err)
		}
		passages = append(passages, ps...)
		qs, err := ReadMultiHop(testkit.Read(b, "multihop/"+set+"_train.json"))
		if err != nil {
			b.Fatal(err)
		}
		questions = append(questions, qs...)
	}
	for i := 0; len(passages) < size; i++ {
		p := passages[i]
		passages = append(passages, extract.Passage{Title: fmt.Sprintf("%s (%d)", p.Title, i), Text: p.Text})
	}
	ex, err := nlp.New(nlp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	_, g, err := MultiHopCorpus(ctx, passages, ex, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	unit := func() []float32 {
		v := make([]float32, uselite.Dimensions)
		n := 0.0
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			n += float64(v[i] * v[i])
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	vecs := &query.Vectors{Model: uselite.Model, Chunks: map[extract.ChunkRef][]float32{}, Nodes: map[string][]float32{}, Edges: map[string][]float32{}}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for i, p := range passages {
		text := p.Content()
		c := extract.Chunk{DocumentID: i + 1, Text: text, End: len(text), Tokens: extract.EstimateTokens(text)}
		chunks[c.Ref()] = c
		vecs.Chunks[c.Ref()] = unit()
	}
	for _, n := range g.Nodes {
		vecs.Nodes[n.Key] = unit()
	}
	for _, e := range g.Edges {
		if k := query.EdgeVectorKey(e); vecs.Edges[k] == nil {
			vecs.Edges[k] = unit()
		}
	}
	start := time.Now()
	corpus := query.NewCorpus(g, chunks, query.NewVectorIndex(vecs))
	built := time.Since(start)
	emb := embed.USELite{}
	// The first ppr question builds the walk graph.
	start = time.Now()
	if _, err := corpus.Search(ctx, emb, query.Request{Question: questions[0].Question, Mode: query.ModePPR}); err != nil {
		b.Fatal(err)
	}
	walk := time.Since(start)
	b.Logf("%d passages, %d nodes, %d edges; corpus built in %v, first ppr question (walk graph) %v", len(passages), len(g.Nodes), len(g.Edges), built, walk)
	times := map[string][]float64{}
	for b.Loop() {
		for _, m := range query.ModeNames() {
			for _, q := range questions {
				high, low := query.Keywords(q.Question)
				t := time.Now()
				if _, err := corpus.Search(ctx, emb, query.Request{Question: q.Question, Mode: query.Mode(m), High: high, Low: low}); err != nil {
					b.Fatal(err)
				}
				times[m] = append(times[m], float64(time.Since(t).Microseconds())/1000)
			}
		}
	}
	for _, m := range query.ModeNames() {
		ts := times[m]
		slices.Sort(ts)
		b.ReportMetric(ts[len(ts)/2], m+"-p50-ms")
		b.ReportMetric(ts[len(ts)*9/10], m+"-p90-ms")
	}
}
