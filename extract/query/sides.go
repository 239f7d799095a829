package query

import (
	"context"
	"regexp"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// SideChunks records what each party said in the chunks of a
// conversation between a user and an assistant: sides reads a chunk's
// text into the user's and the assistant's words, ok false for a chunk
// that is not such a conversation's (see dialogue.SidesOf). Searches then
// score a chunk by one side's words as well as by its whole text: the
// user's, which hold what the memory is about ("I picked up the Tamiya
// Spitfire kit last week"), or, when the question asks what the
// assistant said ("the restaurant you recommended"), the assistant's. A
// round whose long answer repeats the question's common words no longer
// outranks the short remark that answers it. Call it before the corpus
// is shared between searches.
//
// Measured on the LongMemEval dev questions, evidence-turn recall@10 of
// the same rounds: BM25 alone 0.867 by the whole round, 0.891 with the
// side's score added (the questions about the assistant's words keep
// 0.963, where the user's side alone fell to 0.926). Mix with the hashed
// offline embedder (wSide 1): 0.879 to 0.904 overall (BM25 0.868),
// multi-session 0.722 to 0.783, knowledge updates 0.949 to 1.000; a
// weight of 0.5 gave 0.902 and 2 gave 0.892.
func (c *Corpus) SideChunks(sides func(text string) (user, assistant string, ok bool)) {
	c.conversation = true
	users := make([]string, len(c.refs))
	assistants := make([]string, len(c.refs))
	n := 0
	for i, r := range c.refs {
		if u, a, ok := sides(c.chunks[r].Text); ok {
			users[i], assistants[i] = u, a
			n++
		}
	}
	if n == 0 {
		c.userBM25, c.assistantBM25 = nil, nil
		return
	}
	c.userBM25, c.assistantBM25 = NewBM25(users), NewBM25(assistants)
	c.users = users
}

// SideVectors embeds the user's side of each chunk SideChunks found (with
// a split embedder, only the sides its own model serves), so a question
// is also matched by meaning against what the user said, which a long
// answer would otherwise drown in the round's vector. Call it after
// SideChunks and before the corpus is shared between searches.
func (c *Corpus) SideVectors(ctx context.Context, emb extract.Embedder) error {
	c.userVec, c.userVecModel = nil, ""
	if c.users == nil || emb == nil {
		return nil
	}
	var texts []string
	var at []int
	for i, u := range c.users {
		if strings.TrimSpace(u) == "" {
			continue
		}
		if se, ok := emb.(extract.SplitEmbedder); ok && !se.Serves(u) {
			continue
		}
		texts = append(texts, u)
		at = append(at, i)
	}
	if len(texts) == 0 {
		return nil
	}
	vs, _, err := emb.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if err := embed.Check(emb, texts, vs); err != nil {
		return err
	}
	c.userVec = make([][]float32, len(c.users))
	for k, i := range at {
		c.userVec[i] = vs[k]
	}
	c.userVecModel = emb.Model()
	return nil
}

// sideVecScores is every chunk's user-side cosine with the question's
// vector qv (of model), nil when there are none to compare.
func (c *Corpus) sideVecScores(question, model string, qv []float32) []float64 {
	if c.userVec == nil || qv == nil || model != c.userVecModel || asksAssistant(question) {
		return nil
	}
	out := make([]float64, len(c.userVec))
	for i, v := range c.userVec {
		if v != nil {
			out[i] = max(0, float64(embed.Dot(qv, v)))
		}
	}
	return out
}

// sideScores is every chunk's BM25 score on the side the question asks
// of (scaled to the best chunk's), nil when the corpus has no sides.
func (c *Corpus) sideScores(question string) []float64 {
	if c.userBM25 == nil {
		return nil
	}
	side := c.userBM25
	if asksAssistant(question) {
		side = c.assistantBM25
	}
	return scale(side.Scores(question))
}

// assistantCue finds a question about the assistant's own earlier words:
// "the hostel you recommended", "you mentioned", "remind me", "in our
// previous chat".
var assistantCue = regexp.MustCompile(`\byou(?:'ve| have| had)? (?:recommended|suggested|mentioned|told|said|provided|gave|listed|wrote|created|explained|described|shared|came up with|gave me|made)\b|\bremind me\b|\b(?:our|the) (?:previous|last|earlier|past) (?:chat|conversation|discussion)\b`)

// asksAssistant reports whether a question asks what the assistant said.
func asksAssistant(question string) bool {
	return assistantCue.MatchString(strings.ToLower(question))
}
