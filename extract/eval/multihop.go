package eval

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/query"
)

// MultiHopQuestion is one question of a multi-hop set with its gold
// passages: by title (HotpotQA and 2WikiMultiHopQA name supporting
// titles) and, where the set gives them, by text too (MuSiQue's
// supporting paragraphs), since a corpus may hold two passages of one
// title.
type MultiHopQuestion struct {
	ID       string
	Question string
	Gold     []GoldPassage
}

// GoldPassage names a supporting passage; Text is empty when the set
// names titles only.
type GoldPassage struct {
	Title string
	Text  string
}

// ReadMultiHop reads a multi-hop question file: HotpotQA or
// 2WikiMultiHopQA (a list of {_id, question, supporting_facts: [[title,
// sentence]]}) or MuSiQue (a list of {id, question, paragraphs: [{title,
// paragraph_text, is_supporting}]}). Questions without gold passages are
// dropped.
func ReadMultiHop(data []byte) ([]MultiHopQuestion, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var raw []struct {
		ID       string            `json:"id"`
		HotpotID string            `json:"_id"`
		Question string            `json:"question"`
		Facts    []json.RawMessage `json:"supporting_facts"`
		Paras    []struct {
			Title      string `json:"title"`
			Text       string `json:"paragraph_text"`
			Supporting bool   `json:"is_supporting"`
		} `json:"paragraphs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, extract.Wrap(extract.KindInvalid, err, "read the questions: expected a HotpotQA, 2WikiMultiHopQA or MuSiQue list")
	}
	var out []MultiHopQuestion
	for i, r := range raw {
		q := MultiHopQuestion{ID: cmp.Or(r.ID, r.HotpotID, fmt.Sprint(i+1)), Question: strings.TrimSpace(r.Question)}
		seen := map[GoldPassage]bool{}
		add := func(g GoldPassage) {
			if g.Title != "" && !seen[g] {
				seen[g] = true
				q.Gold = append(q.Gold, g)
			}
		}
		for _, f := range r.Facts {
			// [title, sentence index]; 2Wiki writes the same pairs.
			var pair []any
			if err := json.Unmarshal(f, &pair); err != nil || len(pair) == 0 {
				return nil, extract.Errorf(extract.KindInvalid, "question %s: a supporting fact is not [title, sentence]", q.ID)
			}
			title, _ := pair[0].(string)
			add(GoldPassage{Title: title})
		}
		for _, p := range r.Paras {
			if p.Supporting {
				add(GoldPassage{Title: p.Title, Text: p.Text})
			}
		}
		if q.Question == "" || len(q.Gold) == 0 {
			continue
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "no question with supporting passages (expected supporting_facts or paragraphs with is_supporting)")
	}
	return out, nil
}

// MultiHopReport is passage recall of the query modes on a multi-hop set,
// with BM25 over the same passages: recall@k is |top-k ∩ gold| / |gold|,
// averaged over the questions (HippoRAG's metric).
type MultiHopReport struct {
	Questions int    `json:"questions"`
	Passages  int    `json:"passages"`
	Embedder  string `json:"embedder"`
	Nodes     int    `json:"nodes"`
	Edges     int    `json:"edges"`
	// Unmatched counts gold passages no corpus passage matches (they
	// count as missed).
	Unmatched int                `json:"unmatched"`
	RecallAt2 map[string]float64 `json:"recall_at_2"`
	RecallAt5 map[string]float64 `json:"recall_at_5"`
}

// MultiHopCorpus builds the in-memory version a multi-hop evaluation
// searches: each passage its own document and chunk (title and text),
// extracted by ex, merged and vectorized by emb.
func MultiHopCorpus(ctx context.Context, passages []extract.Passage, ex extract.Extractor, emb extract.Embedder) (*query.Corpus, extract.Graph, error) {
	chunks := make([]extract.Chunk, len(passages))
	for i, p := range passages {
		text := p.Content()
		chunks[i] = extract.Chunk{DocumentID: i + 1, Index: 0, Text: text, End: len(text), Tokens: extract.EstimateTokens(text)}
	}
	graphs := make([]extract.Graph, len(passages))
	errs := make([]error, len(passages))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := chunks[i]
				doc := extract.Document{ID: c.DocumentID, Name: passages[i].Title, Kind: "text", Content: c.Text}
				res, err := ex.Extract(ctx, doc, c)
				graphs[i], errs[i] = res.Graph, err
			}
		}()
	}
	for i := range passages {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, extract.Graph{}, err
	}
	var g extract.Graph
	for i := range graphs {
		if errs[i] != nil {
			return nil, g, fmt.Errorf("passage %q: %w", passages[i].Title, errs[i])
		}
		extract.MergeGraph(&g, graphs[i], 8)
	}
	var vi *query.VectorIndex
	if emb != nil {
		vecs, _, err := query.Vectorize(ctx, emb, g, chunks, nil)
		if err != nil {
			return nil, g, err
		}
		vi = query.NewVectorIndex(vecs)
	}
	byRef := make(map[extract.ChunkRef]extract.Chunk, len(chunks))
	for _, c := range chunks {
		byRef[c.Ref()] = c
	}
	return query.NewCorpus(g, byRef, vi), g, nil
}

// MultiHop scores every question in each mode and BM25 over the same
// passages (recall@2 and recall@5).
func MultiHop(ctx context.Context, questions []MultiHopQuestion, passages []extract.Passage, ex extract.Extractor, emb extract.Embedder, modes []string) (MultiHopReport, error) {
	rep := MultiHopReport{Passages: len(passages), RecallAt2: map[string]float64{}, RecallAt5: map[string]float64{}}
	if emb != nil {
		rep.Embedder = emb.Model()
	}
	if len(passages) == 0 {
		return rep, extract.Errorf(extract.KindInvalid, "the corpus has no passages")
	}
	corpus, g, err := MultiHopCorpus(ctx, passages, ex, emb)
	if err != nil {
		return rep, err
	}
	scored, err := score(ctx, corpus, questions, passages, emb, modes)
	scored.Embedder, scored.Nodes, scored.Edges = rep.Embedder, len(g.Nodes), len(g.Edges)
	return scored, err
}

// score asks every question of a built corpus in each mode.
func score(ctx context.Context, corpus *query.Corpus, questions []MultiHopQuestion, passages []extract.Passage, emb extract.Embedder, modes []string) (MultiHopReport, error) {
	rep := MultiHopReport{Passages: len(passages), RecallAt2: map[string]float64{}, RecallAt5: map[string]float64{}}

	// Gold passages by title and by title and text: document IDs.
	byTitle := map[string][]int{}
	byText := map[GoldPassage]int{}
	for i, p := range passages {
		byTitle[p.Title] = append(byTitle[p.Title], i+1)
		byText[GoldPassage{Title: p.Title, Text: strings.TrimSpace(p.Text)}] = i + 1
	}
	texts := make([]string, len(passages))
	for i, p := range passages {
		texts[i] = p.Content()
	}
	bm := query.NewBM25(texts)
	names := append([]string{BM25Baseline}, modes...)
	sum2, sum5 := map[string]float64{}, map[string]float64{}
	for _, q := range questions {
		gold := map[int]bool{}
		for _, gp := range q.Gold {
			if gp.Text != "" {
				if id, ok := byText[GoldPassage{Title: gp.Title, Text: strings.TrimSpace(gp.Text)}]; ok {
					gold[id] = true
					continue
				}
			}
			ids := byTitle[gp.Title]
			if len(ids) == 0 {
				rep.Unmatched++
				continue
			}
			gold[ids[0]] = true
		}
		n := float64(len(q.Gold))
		rep.Questions++
		ranked := map[string][]int{BM25Baseline: topBM25(bm.Scores(q.Question), 5)}
		high, low := query.Keywords(q.Question)
		for _, mode := range modes {
			res, err := corpus.Search(ctx, emb, query.Request{Question: q.Question, Mode: query.Mode(mode), High: high, Low: low, TopK: 5})
			if err != nil {
				return rep, fmt.Errorf("question %q, mode %s: %w", q.Question, mode, err)
			}
			for _, c := range res.Chunks {
				ranked[mode] = append(ranked[mode], c.DocumentID)
			}
		}
		for _, m := range names {
			sum2[m] += float64(hits(ranked[m], gold, 2)) / n
			sum5[m] += float64(hits(ranked[m], gold, 5)) / n
		}
	}
	for _, m := range names {
		rep.RecallAt2[m] = round3(sum2[m] / float64(max(rep.Questions, 1)))
		rep.RecallAt5[m] = round3(sum5[m] / float64(max(rep.Questions, 1)))
	}
	return rep, nil
}

// topBM25 returns the document IDs (index + 1) of the k best scores,
// ties in corpus order.
func topBM25(sc []float64, k int) []int {
	order := make([]int, 0, len(sc))
	for i, s := range sc {
		if s > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case sc[a] > sc[b]:
			return -1
		case sc[a] < sc[b]:
			return 1
		}
		return 0
	})
	out := make([]int, 0, k)
	for _, i := range order[:min(k, len(order))] {
		out = append(out, i+1)
	}
	return out
}

func hits(ranked []int, gold map[int]bool, k int) int {
	n := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if gold[id] {
			n++
		}
	}
	return n
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }
