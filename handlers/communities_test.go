package handlers_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/kgstudio/kgstudio/app"
)

// TestCommunities_API: the sample's graph splits into communities with a
// modularity above a graph's with no structure (the sample is fiction:
// few of its sentences state a relation, most of its names stand
// alone); every community has a report with findings that name
// their passages; a level beyond the last is a 400.
func TestCommunities_API(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := mustCarol(t, a)
	var out app.CommunitiesJSON
	if code := getJSON(t, a, fmt.Sprintf("/api/versions/%d/communities", v.ID), &out); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if out.Levels < 1 || out.Level != 0 || len(out.LevelModularity) != out.Levels || out.Modularity < 0.25 || len(out.Communities) == 0 {
		t.Fatalf("levels %d, modularity %.3f, %d communities", out.Levels, out.Modularity, len(out.Communities))
	}
	size, reported := 0, 0
	for _, c := range out.Communities {
		size += c.Size
		if c.Title == "" || c.Summary == "" || c.Parent != -1 || len(c.TopNodes) == 0 {
			t.Fatalf("community %+v", c)
		}
		if len(c.Findings) == 0 || len(c.Findings[0].Chunks) == 0 {
			t.Fatalf("community %d (%s) has no finding with passages: %+v", c.ID, c.Title, c.Findings)
		}
		reported++
	}
	if size != v.Nodes || reported != len(out.Communities) {
		t.Fatalf("communities hold %d of %d nodes; %d have findings", size, v.Nodes, reported)
	}
	if out.Levels > 1 {
		var fine app.CommunitiesJSON
		getJSON(t, a, fmt.Sprintf("/api/versions/%d/communities?level=%d", v.ID, out.Levels-1), &fine)
		if len(fine.Communities) < len(out.Communities) || fine.Communities[0].Parent < 0 {
			t.Fatalf("finest level: %d communities, parent %d", len(fine.Communities), fine.Communities[0].Parent)
		}
	}
	for _, q := range []string{"level=99", "level=x", "level=-1"} {
		if code := getJSON(t, a, fmt.Sprintf("/api/versions/%d/communities?%s", v.ID, q), nil); code != http.StatusBadRequest {
			t.Errorf("%s: status %d", q, code)
		}
	}
}
