package query

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// TestSearch_Sides: in a conversation with an assistant, a round is also
// scored by the user's words, so the short remark that answers a question
// about the user outranks a round whose long answer repeats the
// question's words; a question about what the assistant said is scored by
// the assistant's words instead.
func TestSearch_Sides(t *testing.T) {
	texts := []string{
		"User: Any tips for weathering?\nAssistant: " + strings.Repeat("Model kits take washes well; weathering model kits is a craft, and many model kits builders start with acrylics. ", 3),
		"User: I finished the Tamiya Spitfire model kit last week and started a tank.\nAssistant: Well done.",
		"User: I stayed at a hostel near the station once and the hostel was noisy.\nAssistant: Sorry to hear that.",
		"User: Where should I stay in Amsterdam?\nAssistant: The Flying Pig is a friendly hostel near the station.",
	}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for i, text := range texts {
		r := extract.ChunkRef{DocumentID: 1, Index: 10 * i} // not neighbours
		chunks[r] = extract.Chunk{DocumentID: 1, Index: r.Index, Text: text, End: len(text), Tokens: 200}
	}
	first := func(c *Corpus, q string) int {
		t.Helper()
		res, err := c.Search(context.Background(), nil, Request{Question: q, Mode: ModeMix, TopK: 10})
		if err != nil || len(res.Chunks) == 0 {
			t.Fatalf("%q: %v, %d chunks", q, err, len(res.Chunks))
		}
		return res.Chunks[0].Index
	}
	kits := "How many model kits have I worked on?"
	hostel := "Can you remind me of the hostel near the station you recommended?"
	plain := NewCorpus(extract.Graph{}, chunks, nil)
	if got := first(plain, kits); got != 0 {
		t.Fatalf("whole rounds: chunk %d first, want the long answer (0)", got)
	}
	sided := NewCorpus(extract.Graph{}, chunks, nil)
	sided.SideChunks(dialogue.SidesOf)
	if got := first(sided, kits); got != 10 {
		t.Errorf("with sides: chunk %d first, want the user's Spitfire (10)", got)
	}
	if got := first(sided, hostel); got != 30 {
		t.Errorf("a question about the assistant's words: chunk %d first, want its recommendation (30)", got)
	}
	// Text that is not a conversation with an assistant has no sides.
	other := NewCorpus(extract.Graph{}, chunks, nil)
	other.SideChunks(func(string) (string, string, bool) { return "", "", false })
	if got := first(other, kits); got != 0 {
		t.Errorf("no sides read: chunk %d first, want 0 as without sides", got)
	}
}

func TestAsksAssistant(t *testing.T) {
	for q, want := range map[string]bool{
		"Can you remind me of the name of the restaurant you recommended?":             true,
		"I remember you told me to dilute tea tree oil. What was the ratio?":           true,
		"In our previous chat, what did we decide for the zombie?":                     true,
		"You mentioned a few language apps; which one was free?":                       true,
		"Can you recommend some resources where I can learn more about video editing?": false,
		"How many model kits have I worked on or bought?":                              false,
		"What did I say about my sister's wedding?":                                    false,
	} {
		if got := asksAssistant(q); got != want {
			t.Errorf("asksAssistant(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestSideVectors: the user's side of each round is embedded on its own,
// and a question's side score is its cosine with it (never below zero);
// a question about the assistant's words, a question vector of another
// model, or a corpus without sides gets none.
func TestSideVectors(t *testing.T) {
	ctx := context.Background()
	texts := []string{
		"User: I bought a Fitbit and a blood sugar monitor.\nAssistant: " + strings.Repeat("Devices like these track many things. ", 5),
		"User: We went hiking in the Alps.\nAssistant: Sounds lovely.",
		"Narrator: no sides here.",
	}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	for i, text := range texts {
		r := extract.ChunkRef{DocumentID: 1, Index: i}
		chunks[r] = extract.Chunk{DocumentID: 1, Index: i, Text: text, End: len(text)}
	}
	c := NewCorpus(extract.Graph{}, chunks, nil)
	emb := embed.Offline{}
	if err := c.SideVectors(ctx, emb); err != nil || c.userVec != nil {
		t.Fatalf("without SideChunks: %v, %d vectors", err, len(c.userVec))
	}
	c.SideChunks(dialogue.SidesOf)
	if err := c.SideVectors(ctx, emb); err != nil {
		t.Fatal(err)
	}
	q := "Which health devices do I use, like a blood sugar monitor?"
	qv, _, err := emb.Embed(ctx, []string{q, "I bought a Fitbit and a blood sugar monitor."})
	if err != nil {
		t.Fatal(err)
	}
	got := c.sideVecScores(q, emb.Model(), qv[0])
	if len(got) != 3 {
		t.Fatalf("%d side scores, want 3", len(got))
	}
	pos := c.pos[extract.ChunkRef{DocumentID: 1, Index: 0}]
	if want := float64(embed.Dot(qv[0], qv[1])); want <= 0 || math.Abs(got[pos]-want) > 1e-6 {
		t.Errorf("the Fitbit round's side score %v, want its user side's cosine %v", got[pos], want)
	}
	if none := got[c.pos[extract.ChunkRef{DocumentID: 1, Index: 2}]]; none != 0 {
		t.Errorf("a chunk without sides scored %v", none)
	}
	for _, x := range got {
		if x < 0 {
			t.Errorf("negative side score %v", x)
		}
	}
	if c.sideVecScores("Remind me what you recommended for my Fitbit?", emb.Model(), qv[0]) != nil {
		t.Error("a question about the assistant's words got user-side scores")
	}
	if c.sideVecScores(q, "another-model", qv[0]) != nil {
		t.Error("a question vector of another model was compared")
	}
}
