package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/query"
)

// LoCoMoReport is the evidence recall of the query modes on one LoCoMo
// conversation: for each mode (and BM25 over the same chunks), the share
// of questions whose evidence turn is in one of the first K chunks.
type LoCoMoReport struct {
	Title     string             `json:"title"`
	Turns     int                `json:"turns"`
	Chunks    int                `json:"chunks"`
	Nodes     int                `json:"nodes"`
	Edges     int                `json:"edges"`
	Questions int                `json:"questions"`
	K         int                `json:"k"`
	Embedder  string             `json:"embedder"`
	Recall    map[string]float64 `json:"recall"`
	Found     map[string]int     `json:"found"`
}

// BM25Baseline is the name of the BM25 row of a LoCoMoReport.
const BM25Baseline = "bm25"

// locomoRaw is the part of a LoCoMo file the eval reads itself: the turn
// ids of each session and the questions with their evidence.
type locomoRaw struct {
	QA []struct {
		Question string `json:"question"`
		Evidence []any  `json:"evidence"`
		Category int    `json:"category"`
	} `json:"qa"`
}

var evidenceID = regexp.MustCompile(`D(\d+):(\d+)`)

// LoCoMo extracts one LoCoMo conversation offline as a dialogue run does
// (one chunk per segment, the offline memory graph), vectorizes it with
// emb, and asks every question with evidence in each mode, counting a
// question found when a chunk among the first k holds one of its evidence
// turns. BM25 over the same chunks is scored in the same run.
func LoCoMo(ctx context.Context, data []byte, emb extract.Embedder, modes []string, k int) (LoCoMoReport, error) {
	rep := LoCoMoReport{K: k, Embedder: emb.Model(), Recall: map[string]float64{}, Found: map[string]int{}}
	set, err := loadLoCoMo(ctx, data, emb)
	if err != nil {
		return rep, err
	}
	rep.Title, rep.Turns, rep.Chunks, rep.Nodes, rep.Edges = set.title, set.turns, len(set.list), set.nodes, set.edges
	for _, q := range set.questions {
		rep.Questions++
		// BM25 baseline.
		for _, id := range topBM25(set.bm.Scores(q.text), k) {
			if q.want[set.list[id-1].Index] {
				rep.Found[BM25Baseline]++
				break
			}
		}
		for _, mode := range modes {
			res, err := set.search(ctx, emb, q.text, mode, k)
			if err != nil {
				return rep, err
			}
			for _, c := range res.Chunks {
				if q.want[c.Index] {
					rep.Found[mode]++
					break
				}
			}
		}
	}
	for _, m := range append([]string{BM25Baseline}, modes...) {
		if rep.Questions > 0 {
			rep.Recall[m] = float64(rep.Found[m]) / float64(rep.Questions)
		}
	}
	return rep, nil
}

// locomoSet is one LoCoMo conversation ready to search: its chunks, graph
// corpus, BM25 over the chunks, and the questions with evidence.
type locomoSet struct {
	title               string
	turns, nodes, edges int
	list                []extract.Chunk
	bm                  *query.BM25
	corpus              *query.Corpus
	questions           []locomoQuestion
}

// locomoQuestion is a question with the chunks that hold its evidence
// turns, by chunk index.
type locomoQuestion struct {
	text     string
	category int
	want     map[int]bool
}

// search asks one question in one mode for the first k chunks.
func (set *locomoSet) search(ctx context.Context, emb extract.Embedder, question, mode string, k int) (query.Context, error) {
	high, low := query.Keywords(question)
	res, err := set.corpus.Search(ctx, emb, query.Request{Question: question, Mode: query.Mode(mode), High: high, Low: low, TopK: k})
	if err != nil {
		return res, fmt.Errorf("question %q, mode %s: %w", question, mode, err)
	}
	return res, nil
}

// loadLoCoMo extracts one LoCoMo conversation offline as a dialogue run
// does (one chunk per segment, the offline memory graph) and vectorizes
// it with emb.
func loadLoCoMo(ctx context.Context, data []byte, emb extract.Embedder) (*locomoSet, error) {
	d, err := dialogue.Parse(data)
	if err != nil {
		return nil, err
	}
	if d.Format != dialogue.FormatLoCoMo {
		return nil, extract.Errorf(extract.KindInvalid, "not a LoCoMo conversation (read as %s)", d.Format)
	}
	var raw locomoRaw
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, extract.Wrap(extract.KindInvalid, err, "read the LoCoMo questions")
	}
	turnIDs, err := locomoTurnIDs(data)
	if err != nil {
		return nil, err
	}
	set, segs, err := newDialogueSet(ctx, d, emb)
	if err != nil {
		return nil, err
	}
	chunkOf := map[string]int{}
	for _, s := range segs {
		ids := turnIDs[s.SessionID]
		for t := s.Turn; t < s.Turn+s.Turns && t < len(ids); t++ {
			chunkOf[ids[t]] = s.Index
		}
	}
	for _, q := range raw.QA {
		want := map[int]bool{}
		for _, ev := range q.Evidence {
			s, _ := ev.(string)
			for _, m := range evidenceID.FindAllStringSubmatch(s, -1) {
				if c, ok := chunkOf["D"+m[1]+":"+m[2]]; ok {
					want[c] = true
				}
			}
		}
		if len(want) == 0 || q.Question == "" {
			continue
		}
		set.questions = append(set.questions, locomoQuestion{text: q.Question, category: q.Category, want: want})
	}
	return set, nil
}

// locomoTurnIDs reads the dia_id of every turn, by session key, in order.
func locomoTurnIDs(data []byte) (map[string][]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, extract.Wrap(extract.KindInvalid, err, "read the LoCoMo conversation")
	}
	out := map[string][]string{}
	for key, raw := range top {
		rest, ok := strings.CutPrefix(key, "session_")
		if !ok {
			continue
		}
		if _, err := strconv.Atoi(rest); err != nil {
			continue
		}
		var turns []struct {
			ID string `json:"dia_id"`
		}
		if err := json.Unmarshal(raw, &turns); err != nil {
			return nil, extract.Wrap(extract.KindInvalid, err, "%s: expected a list of turns", key)
		}
		for _, t := range turns {
			out[key] = append(out[key], t.ID)
		}
	}
	return out, nil
}

// newDialogueSet extracts a dialogue offline as a dialogue run does (one
// chunk per segment, the offline memory graph), vectorizes it with emb,
// and indexes the chunks for BM25 and the query modes. It returns the
// segments too, so callers can map their turns to chunks.
func newDialogueSet(ctx context.Context, d *dialogue.Dialogue, emb extract.Embedder) (*locomoSet, []dialogue.Segment, error) {
	set := &locomoSet{title: d.Title, turns: d.TurnCount()}
	const docID = 1
	segs := dialogue.Segments(d)
	chunks := make(map[extract.ChunkRef]extract.Chunk, len(segs))
	for _, s := range segs {
		text := s.Text()
		ch := extract.Chunk{DocumentID: docID, Index: s.Index, Text: text, End: len(text), Tokens: extract.EstimateTokens(text)}
		chunks[ch.Ref()] = ch
		set.list = append(set.list, ch)
	}
	// The graph, as the offline dialogue run leaves it: the consolidated
	// memory (a run writes it over the per-turn graphs).
	mem, err := dialogue.RunDialogue(ctx, d, dialogue.NewOffline(), dialogue.RunOptions{DocumentID: docID}, func(int, extract.ChunkResult) error { return nil })
	if err != nil {
		return nil, nil, err
	}
	g := mem.Graph()
	set.nodes, set.edges = len(g.Nodes), len(g.Edges)
	vecs, _, err := query.Vectorize(ctx, emb, g, set.list, nil)
	if err != nil {
		return nil, nil, err
	}
	texts := make([]string, len(set.list))
	for i, c := range set.list {
		texts[i] = c.Text
	}
	set.bm = query.NewBM25(texts)
	// Exact search: a set answers a few questions, fewer than building
	// an approximate index would pay for, and ranks them exactly.
	set.corpus = query.NewCorpus(g, chunks, query.NewVectorIndexLimit(vecs, math.MaxInt))
	set.corpus.DateChunks(segmentDates(segs, docID))
	set.corpus.SideChunks(dialogue.SidesOf)
	if err := set.corpus.SideVectors(ctx, emb); err != nil {
		return nil, nil, err
	}
	return set, segs, nil
}

// segmentDates dates each segment's chunk by its session's start, as a
// dialogue run's operations date its turns; segments of undated sessions
// are left out.
func segmentDates(segs []dialogue.Segment, docID int) map[extract.ChunkRef]time.Time {
	out := make(map[extract.ChunkRef]time.Time, len(segs))
	for _, s := range segs {
		if t, ok := extract.ParseFactTime(s.Start, false); ok {
			out[extract.ChunkRef{DocumentID: docID, Index: s.Index}] = t
		}
	}
	return out
}
