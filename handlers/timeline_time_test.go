package handlers_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// The timeline shows each turn's session date, and a turn that ended
// facts lists them with why; the graph after it draws the ended relation
// marked, and leaves out none that still hold.
func TestTimeline_FactTimes(t *testing.T) {
	t.Parallel()
	a, v := movedVersion(t)
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=1", v.ID))
	if got := doc.Find(`[data-testid=turn-detail] [data-testid=turn-date]`).Text(); got != "2023-06-01" {
		t.Errorf("turn 1 is dated %q; want its session's 2023-06-01", got)
	}
	var dates []string
	doc.Find(`[data-testid=turn-table] [data-testid=turn-date]`).Each(func(_ int, s *goquery.Selection) { dates = append(dates, s.Text()) })
	if !slices.Equal(dates, []string{"2023-01-10", "2023-06-01"}) {
		t.Errorf("the turn table dates %v", dates)
	}
	facts := doc.Find(`[data-testid=turn-retired] [data-testid=retired-fact]`)
	if facts.Length() != 2 {
		t.Fatalf("turn 1 lists %d ended facts: %q; want the Boston home and the old focus", facts.Length(), facts.Text())
	}
	rel := facts.Filter(`[data-kind=relation]`)
	if !hasText(rel, "LIVES_IN") || !hasText(rel, "Boston") || !hasText(rel.Find(`[data-testid=retired-reason]`), "Denver") {
		t.Errorf("the ended relation reads %q", rel.Text())
	}
	if val := facts.Filter(`[data-kind=value]`); !hasText(val, "Life in Boston") || !hasText(val, "2023-01-10 → 2023-06-01") {
		t.Errorf("the ended value reads %q", val.Text())
	}
	_, first := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=0", v.ID))
	if first.Find(`[data-testid=turn-retired]`).Length() != 0 {
		t.Error("turn 0 ended nothing but lists ended facts")
	}

	var one struct {
		Retired []struct {
			Kind   string `json:"kind"`
			Reason string `json:"reason"`
		} `json:"retired"`
		Graph struct {
			Links []struct {
				Target  string `json:"target"`
				Label   string `json:"label"`
				Retired bool   `json:"retired"`
			} `json:"links"`
		} `json:"graph"`
	}
	dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline/1", v.ID), &one)
	var lives []string
	for _, l := range one.Graph.Links {
		if l.Label == "LIVES_IN" {
			lives = append(lives, fmt.Sprintf("%s retired=%v", l.Target, l.Retired))
		}
	}
	slices.Sort(lives)
	if want := []string{"/Knowledge/Place/City/Boston retired=true", "/Knowledge/Place/City/Denver retired=false"}; !slices.Equal(lives, want) || len(one.Retired) != 2 {
		t.Errorf("turn 1's graph homes %v, %d retired; want %v", lives, len(one.Retired), want)
	}
}
