package eval

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/embed"
	"github.com/kgstudio/kgstudio/extract/query"
)

// LongMemEval defaults: distractor sessions per question, rounds counted
// for turn recall, sessions counted for session recall.
const (
	DefaultDistractors = 20
	LongMemTurnK       = 10
	LongMemSessionK    = 5
)

// LongMemQuestion is one LongMemEval question with its haystack.
type LongMemQuestion struct {
	ID       string          `json:"question_id"`
	Type     string          `json:"question_type"`
	Question string          `json:"question"`
	Date     string          `json:"question_date"`
	Dates    []string        `json:"haystack_dates"`
	Sessions [][]LongMemTurn `json:"haystack_sessions"`
	IDs      []string        `json:"haystack_session_ids"`
	Answer   []string        `json:"answer_session_ids"`
}

// LongMemTurn is one message of a haystack session; HasAnswer marks the
// evidence turns.
type LongMemTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// ReadLongMemEval reads a LongMemEval file (a list of questions, as in
// longmemeval_oracle.json or longmemeval_s.json) and checks that every
// question's sessions, dates and ids line up.
func ReadLongMemEval(data []byte) ([]LongMemQuestion, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, extract.Wrap(extract.KindInvalid, err, "read the questions: expected a LongMemEval list of {question_id, question_type, haystack_sessions, ...}")
	}
	qs := make([]LongMemQuestion, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &qs[i]); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return nil, extract.Errorf(extract.KindInvalid, "question %d: %s: expected %s, got %s", i+1, te.Field, te.Type, te.Value)
			}
			return nil, extract.Wrap(extract.KindInvalid, err, "question %d", i+1)
		}
	}
	for i, q := range qs {
		switch {
		case q.ID == "" || q.Question == "":
			return nil, extract.Errorf(extract.KindInvalid, "question %d: question_id or question missing", i+1)
		case len(q.Dates) != len(q.Sessions) || len(q.IDs) != len(q.Sessions):
			return nil, extract.Errorf(extract.KindInvalid, "question %s: %d sessions, %d dates, %d session ids", q.ID, len(q.Sessions), len(q.Dates), len(q.IDs))
		}
		for j, d := range q.Dates {
			if _, err := longMemDate(d); err != nil {
				return nil, extract.Errorf(extract.KindInvalid, "question %s: haystack_dates[%d]: %v", q.ID, j, err)
			}
		}
	}
	return qs, nil
}

// longMemDate reads LongMemEval's "2023/05/25 (Thu) 20:21".
func longMemDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("2006/01/02 (Mon) 15:04", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006/01/02", s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("unreadable date %q", s)
}

// LongMemOptions are the settings of a LongMemEval run.
type LongMemOptions struct {
	// Distractors is the number of other questions' sessions added to
	// each haystack (DefaultDistractors when negative is not allowed; 0
	// keeps the oracle haystack).
	Distractors int
	// Limit scores only the first Limit questions (0: all).
	Limit int
	// Modes are the query modes scored beside BM25.
	Modes []string
	// Workers is the number of questions built at once (GOMAXPROCS when 0).
	Workers int
}

// LongMemReport is what `kgstudio eval --format longmemeval` prints.
type LongMemReport struct {
	Questions   int    `json:"questions"`
	Distractors int    `json:"distractors"`
	Embedder    string `json:"embedder"`
	Rounds      int    `json:"rounds"`
	// Sessions is the mean haystack size: each question's own sessions and
	// its distractors (fewer than asked when the file holds fewer others).
	Sessions  float64                 `json:"sessions"`
	Overall   LongMemRecalls          `json:"overall"`
	Types     map[string]*LongMemType `json:"types"`
	Knowledge LongMemUpdates          `json:"knowledge_update"`
	Methods   []string                `json:"methods"`
}

// LongMemRecalls are the mean recalls of each method (bm25 and the modes):
// the share of a question's evidence turns in the first LongMemTurnK
// rounds, and the share of its answer sessions among the first
// LongMemSessionK sessions those rounds come from.
type LongMemRecalls struct {
	TurnRecall    map[string]float64 `json:"turn_recall_at_10"`
	SessionRecall map[string]float64 `json:"session_recall_at_5"`
}

// LongMemType is one question type's recalls.
type LongMemType struct {
	Questions int `json:"questions"`
	LongMemRecalls
}

// LongMemUpdates scores knowledge-update questions whose evidence spans
// sessions of different dates: the share, per method, in which a turn of
// the latest such session (the current value) ranks above every turn of
// the earlier ones (the superseded values).
type LongMemUpdates struct {
	Questions    int                `json:"questions"`
	CurrentFirst map[string]float64 `json:"current_first"`
}

// longMemResult is one question's scores by method.
type longMemResult struct {
	typ         string
	rounds      int
	sessions    int
	turn, sess  map[string]float64
	hasTurns    bool
	hasSessions bool
	update      bool
	current     map[string]bool
}

// LongMemEval scores a LongMemEval file: each question's haystack is its
// own sessions plus opt.Distractors sessions of the questions after it (in
// file order, wrapping), sorted by date; it is extracted offline as a
// dialogue run does (one chunk per user+assistant round, the offline
// memory graph, each round dated by its session), and the question is
// asked of BM25 over the rounds and of every mode, on its question_date. Embeddings are cached across questions, since distractor
// sessions recur.
func LongMemEval(ctx context.Context, qs []LongMemQuestion, emb extract.Embedder, opt LongMemOptions) (LongMemReport, error) {
	methods := append([]string{BM25Baseline}, opt.Modes...)
	rep := LongMemReport{Distractors: opt.Distractors, Embedder: emb.Model(), Methods: methods, Types: map[string]*LongMemType{},
		Overall:   LongMemRecalls{TurnRecall: map[string]float64{}, SessionRecall: map[string]float64{}},
		Knowledge: LongMemUpdates{CurrentFirst: map[string]float64{}}}
	if opt.Distractors < 0 {
		return rep, extract.Errorf(extract.KindInvalid, "--distractors must be 0 or more")
	}
	n := len(qs)
	if opt.Limit > 0 {
		n = min(n, opt.Limit)
	}
	if n == 0 {
		return rep, extract.Errorf(extract.KindInvalid, "no questions to score")
	}
	emb = cachedEmbedder(emb)
	results := make([]longMemResult, n)
	errs := make([]error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < cmp.Or(opt.Workers, runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i], errs[i] = longMemQuestion(ctx, qs, i, emb, opt, methods)
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	for _, err := range errs {
		if err != nil {
			return rep, err
		}
	}
	// Means over the questions that have evidence turns (answer sessions).
	type sums struct {
		qs, turnN, sessN int
		turn, sess       map[string]float64
	}
	newSums := func() *sums { return &sums{turn: map[string]float64{}, sess: map[string]float64{}} }
	all := newSums()
	byType := map[string]*sums{}
	var updates int
	current := map[string]int{}
	for _, r := range results {
		rep.Rounds += r.rounds
		rep.Sessions += float64(r.sessions) / float64(n)
		t := byType[r.typ]
		if t == nil {
			t = newSums()
			byType[r.typ] = t
		}
		for _, s := range []*sums{all, t} {
			s.qs++
			if r.hasTurns {
				s.turnN++
			}
			if r.hasSessions {
				s.sessN++
			}
			for _, m := range methods {
				s.turn[m] += r.turn[m]
				s.sess[m] += r.sess[m]
			}
		}
		if r.update {
			updates++
			for _, m := range methods {
				if r.current[m] {
					current[m]++
				}
			}
		}
	}
	mean := func(s *sums) LongMemRecalls {
		out := LongMemRecalls{TurnRecall: map[string]float64{}, SessionRecall: map[string]float64{}}
		for _, m := range methods {
			if s.turnN > 0 {
				out.TurnRecall[m] = round3(s.turn[m] / float64(s.turnN))
			}
			if s.sessN > 0 {
				out.SessionRecall[m] = round3(s.sess[m] / float64(s.sessN))
			}
		}
		return out
	}
	rep.Questions = all.qs
	rep.Sessions = round3(rep.Sessions)
	rep.Overall = mean(all)
	for typ, s := range byType {
		rep.Types[typ] = &LongMemType{Questions: s.qs, LongMemRecalls: mean(s)}
	}
	rep.Knowledge.Questions = updates
	for _, m := range methods {
		if updates > 0 {
			rep.Knowledge.CurrentFirst[m] = round3(float64(current[m]) / float64(updates))
		}
	}
	return rep, nil
}

// longMemSession is one session of a haystack.
type longMemSession struct {
	id    string
	date  time.Time
	turns []LongMemTurn
	own   bool
}

// haystack is question i's sessions plus n distractors, by date.
func haystack(qs []LongMemQuestion, i, n int) []longMemSession {
	q := qs[i]
	var out []longMemSession
	seen := map[string]bool{}
	for j, s := range q.Sessions {
		d, _ := longMemDate(q.Dates[j])
		out = append(out, longMemSession{id: q.IDs[j], date: d, turns: s, own: true})
		seen[q.IDs[j]] = true
	}
	added := 0
	for step := 1; step < len(qs) && added < n; step++ {
		o := qs[(i+step)%len(qs)]
		for j, s := range o.Sessions {
			if added == n {
				break
			}
			if seen[o.IDs[j]] {
				continue
			}
			seen[o.IDs[j]] = true
			d, _ := longMemDate(o.Dates[j])
			// A distractor's turns carry no evidence for this question.
			turns := make([]LongMemTurn, len(s))
			for k, t := range s {
				turns[k] = LongMemTurn{Role: t.Role, Content: t.Content}
			}
			out = append(out, longMemSession{id: o.IDs[j], date: d, turns: turns})
			added++
		}
	}
	slices.SortStableFunc(out, func(a, b longMemSession) int { return a.date.Compare(b.date) })
	return out
}

// longMemQuestion builds question i's haystack and scores every method.
func longMemQuestion(ctx context.Context, qs []LongMemQuestion, i int, emb extract.Embedder, opt LongMemOptions, methods []string) (longMemResult, error) {
	q := qs[i]
	res := longMemResult{typ: q.Type, turn: map[string]float64{}, sess: map[string]float64{}, current: map[string]bool{}}
	hay := haystack(qs, i, opt.Distractors)
	d := &dialogue.Dialogue{Title: q.ID, Format: dialogue.FormatLongMemEval}
	for _, s := range hay {
		sess := dialogue.Session{ID: s.id, Start: s.date.Format(time.RFC3339)}
		for _, t := range s.turns {
			role := dialogue.Role(strings.ToLower(strings.TrimSpace(t.Role)))
			if role != dialogue.RoleUser && role != dialogue.RoleAssistant {
				return res, extract.Errorf(extract.KindInvalid, "question %s, session %s: role %q is not user or assistant", q.ID, s.id, t.Role)
			}
			sess.Turns = append(sess.Turns, dialogue.Turn{Role: role, Text: t.Content})
		}
		d.Sessions = append(d.Sessions, sess)
	}
	set, segs, err := newDialogueSet(ctx, d, emb)
	if err != nil {
		return res, fmt.Errorf("question %s: %w", q.ID, err)
	}
	res.rounds, res.sessions = len(segs), len(hay)
	// Evidence: each has_answer turn's round; the round's session.
	chunkSession := make([]int, len(segs))
	var evidence []int // round per evidence turn
	evidenceDate := map[int]time.Time{}
	for _, s := range segs {
		chunkSession[s.Index] = s.Session
		for t := s.Turn; t < s.Turn+s.Turns; t++ {
			if hay[s.Session].turns[t].HasAnswer {
				evidence = append(evidence, s.Index)
				evidenceDate[s.Index] = hay[s.Session].date
			}
		}
	}
	answer := map[int]bool{}
	for si, s := range hay {
		if s.own && slices.Contains(q.Answer, s.id) {
			answer[si] = true
		}
	}
	res.hasTurns, res.hasSessions = len(evidence) > 0, len(answer) > 0
	// Knowledge updates: the rounds of the latest evidence date against
	// those of earlier dates.
	var latest time.Time
	for _, t := range evidenceDate {
		if t.After(latest) {
			latest = t
		}
	}
	cur, old := map[int]bool{}, map[int]bool{}
	for c, t := range evidenceDate {
		if t.Equal(latest) {
			cur[c] = true
		} else {
			old[c] = true
		}
	}
	res.update = q.Type == "knowledge-update" && len(cur) > 0 && len(old) > 0

	// The question is asked on its date: "two weeks ago" is read from it.
	asked, _ := longMemDate(q.Date)
	high, low := query.Keywords(q.Question)
	for _, m := range methods {
		var ranked []int // chunk indexes, best first
		if m == BM25Baseline {
			for _, id := range topBM25(set.bm.Scores(q.Question), LongMemTurnK) {
				ranked = append(ranked, set.list[id-1].Index)
			}
		} else {
			out, err := set.corpus.Search(ctx, emb, query.Request{Question: q.Question, Mode: query.Mode(m), High: high, Low: low, Now: asked,
				TopK: LongMemTurnK, Budget: query.Budget{Chunks: 1 << 30}})
			if err != nil {
				return res, fmt.Errorf("question %s, mode %s: %w", q.ID, m, err)
			}
			for _, c := range out.Chunks {
				ranked = append(ranked, c.Index)
			}
		}
		ranked = ranked[:min(len(ranked), LongMemTurnK)]
		if res.hasTurns {
			found := 0
			for _, c := range evidence {
				if slices.Contains(ranked, c) {
					found++
				}
			}
			res.turn[m] = float64(found) / float64(len(evidence))
		}
		if res.hasSessions {
			var sessions []int
			for _, c := range ranked {
				if s := chunkSession[c]; !slices.Contains(sessions, s) && len(sessions) < LongMemSessionK {
					sessions = append(sessions, s)
				}
			}
			found := 0
			for s := range answer {
				if slices.Contains(sessions, s) {
					found++
				}
			}
			res.sess[m] = float64(found) / float64(len(answer))
		}
		if res.update {
			for _, c := range ranked {
				if cur[c] || old[c] {
					res.current[m] = cur[c]
					break
				}
			}
		}
	}
	return res, nil
}

// cachedEmbedder answers repeated texts from memory (at most
// longMemCacheSize of them, the oldest dropped first), keeping a split
// embedder's routing so each text still goes to the model that serves it.
// The hashed offline embedder is cheaper than a lookup and is not cached.
func cachedEmbedder(e extract.Embedder) extract.Embedder {
	return embed.CachedSplit(e, embed.NewMemoryStoreLimit(longMemCacheSize), 256)
}

// longMemCacheSize bounds the embedding cache of a LongMemEval run: about
// 200 MB of 512-dimension vectors.
const longMemCacheSize = 100_000
