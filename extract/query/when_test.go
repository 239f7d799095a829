package query

import (
	"context"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

func TestPeriodOf(t *testing.T) {
	now := time.Date(2023, 5, 30, 14, 0, 0, 0, time.UTC)
	day := func(m time.Month, d int) time.Time { return time.Date(2023, m, d, 12, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		question string
		in, out  []time.Time
	}{
		{"What gardening-related activity did I do two weeks ago?", []time.Time{day(5, 16), day(5, 13)}, []time.Time{day(5, 29), day(4, 30)}},
		{"What charity event did I participate in a month ago?", []time.Time{day(4, 30), day(4, 25)}, []time.Time{day(5, 25), day(3, 30)}},
		{"How many dinner parties have I attended in the past month?", []time.Time{day(5, 2), day(5, 30)}, []time.Time{day(4, 20)}},
		{"How many times did I bake egg tarts in the past two weeks?", []time.Time{day(5, 17)}, []time.Time{day(5, 1)}},
		{"Which pair of shoes did I clean last month?", []time.Time{day(4, 10), day(5, 20)}, []time.Time{day(3, 20)}},
		{"What type of cocktail recipe did I try last weekend?", []time.Time{day(5, 27)}, []time.Time{day(5, 10)}},
		{"How many doctor's appointments did I go to in March?", []time.Time{day(3, 1), day(3, 31), day(4, 5)}, []time.Time{day(2, 20), day(5, 1)}},
		{"How many days did I spend on faith-related activities in December?", []time.Time{time.Date(2022, 12, 24, 0, 0, 0, 0, time.UTC)}, []time.Time{time.Date(2023, 1, 20, 0, 0, 0, 0, time.UTC)}},
		{"How much have I made from selling eggs this month?", []time.Time{day(5, 3)}, []time.Time{day(4, 15)}},
	} {
		p, ok := periodOf(tc.question, now)
		if !ok {
			t.Errorf("%q: no period", tc.question)
			continue
		}
		for _, d := range tc.in {
			if !p.contains(d) {
				t.Errorf("%q: %s outside %s..%s", tc.question, d.Format(time.DateOnly), p.from.Format(time.DateOnly), p.to.Format(time.DateOnly))
			}
		}
		for _, d := range tc.out {
			if p.contains(d) {
				t.Errorf("%q: %s inside %s..%s", tc.question, d.Format(time.DateOnly), p.from.Format(time.DateOnly), p.to.Format(time.DateOnly))
			}
		}
	}
	for _, q := range []string{"How many days ago did I buy a smoker?", "What is the name of my cat?", "When did I last see the dentist?", "What did I buy in the store?"} {
		if p, ok := periodOf(q, now); ok {
			t.Errorf("%q: period %v", q, p)
		}
	}
	if _, ok := periodOf("What did I do two weeks ago?", time.Time{}); ok {
		t.Error("a period without a date to read it against")
	}
}

// TestSearch_TimeSpan: a question that names a span of time ("two weeks
// ago") prefers, in mix, the chunk said in that span over one that
// matches the words better but was said months before; undated chunks,
// or a request the corpus cannot date, rank by the words alone.
func TestSearch_TimeSpan(t *testing.T) {
	texts := []string{
		"User: I went to a gardening workshop and repotted the gardening herbs.\nAssistant: Gardening workshops are fun.",
		"User: The bakery opens at six.\nAssistant: Good to know.",
		"User: I planted tomatoes in the garden bed this morning.\nAssistant: Tomatoes like sun; what gardening tools do you use?",
		"User: The weather turned cold.\nAssistant: Stay warm.",
	}
	said := []time.Time{
		time.Date(2023, 1, 10, 9, 0, 0, 0, time.UTC),
		time.Date(2023, 3, 1, 9, 0, 0, 0, time.UTC),
		time.Date(2023, 4, 20, 9, 0, 0, 0, time.UTC),
		time.Date(2023, 5, 1, 9, 0, 0, 0, time.UTC),
	}
	chunks := map[extract.ChunkRef]extract.Chunk{}
	dates := map[extract.ChunkRef]time.Time{}
	for i, text := range texts {
		r := extract.ChunkRef{DocumentID: 1, Index: 10 * i} // not neighbours
		chunks[r] = extract.Chunk{DocumentID: 1, Index: r.Index, Text: text, End: len(text), Tokens: 200}
		dates[r] = said[i]
	}
	q := "What gardening activity did I do two weeks ago?"
	now := time.Date(2023, 5, 4, 12, 0, 0, 0, time.UTC)
	first := func(c *Corpus, mode Mode, now time.Time) int {
		t.Helper()
		res, err := c.Search(context.Background(), nil, Request{Question: q, Mode: mode, TopK: 10, Now: now})
		if err != nil || len(res.Chunks) == 0 {
			t.Fatalf("%s: %v, %d chunks", mode, err, len(res.Chunks))
		}
		return res.Chunks[0].Index
	}
	plain := NewCorpus(extract.Graph{}, chunks, nil)
	if got := first(plain, ModeMix, now); got != 0 {
		t.Fatalf("undated: chunk %d first, want the workshop (0)", got)
	}
	dated := NewCorpus(extract.Graph{}, chunks, nil)
	dated.DateChunks(dates)
	if got := first(dated, ModeMix, now); got != 20 {
		t.Errorf("dated, asked on %s: chunk %d first, want the tomatoes two weeks before (20)", now.Format(time.DateOnly), got)
	}
	// Without Now the latest chunk's date (1 May) stands for it.
	if got := first(dated, ModeMix, time.Time{}); got != 20 {
		t.Errorf("dated, asked on the latest chunk's date: chunk %d first, want 20", got)
	}
	// Asked in January, two weeks ago is the workshop's time.
	if got := first(dated, ModeMix, time.Date(2023, 1, 24, 0, 0, 0, 0, time.UTC)); got != 0 {
		t.Errorf("dated, asked on 24 January: chunk %d first, want 0", got)
	}
	if got := first(dated, ModeNaive, now); got != 0 {
		t.Errorf("naive ranks by the words only: chunk %d first, want 0", got)
	}
}
