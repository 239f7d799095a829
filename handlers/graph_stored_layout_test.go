package handlers_test

import (
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// A version a serving worker finished has a stored layout: the graph API
// places every node, and the page draws them there at once, no layout
// iteration run, in the same shape (each node where the layout put it, up
// to the page's scale and offset); with ?layout=live the page lays the
// graph out itself. window.kgstudioGraph says when the drawing is settled
// and where each node and its label are.
func TestGraphPage_StoredLayout(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustExtract(t, "lincoln", "a.txt", lincolnText, extract.DefaultConfig())
	waitLayout(t, a, v.ID)
	var res struct {
		Nodes []struct {
			ID  string      `json:"id"`
			Pos *[2]float64 `json:"pos"`
		} `json:"nodes"`
		Layout string `json:"layout"`
	}
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/graph", v.ID), http.StatusOK, &res)
	if res.Layout != "stored" || len(res.Nodes) < 5 {
		t.Fatalf("layout %q with %d nodes", res.Layout, len(res.Nodes))
	}
	pos := map[string][2]float64{}
	for _, n := range res.Nodes {
		if n.Pos == nil {
			t.Fatalf("node %q has no place", n.ID)
		}
		pos[n.ID] = *n.Pos
	}
	type drawn struct {
		Key   string  `json:"key"`
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
		Label *struct {
			X0, Y0, X1, Y1 float64
		} `json:"label"`
	}
	type state struct {
		Stored     bool    `json:"stored"`
		Iterations int     `json:"iterations"`
		Coarse     int     `json:"coarse"`
		Nodes      []drawn `json:"nodes"`
	}
	read := func(page string) state {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(a.Server.URL+page)); err != nil {
			t.Fatal(err)
		}
		if err := pollTrue(ctx, `window.kgstudioGraph && window.kgGraph.loaded && window.kgstudioGraph.settled`); err != nil {
			t.Fatalf("%s: not settled: %v", page, err)
		}
		s, err := chromedp.Run(ctx, chromedp.Evaluate[state](`({stored: kgstudioGraph.stored, iterations: kgGraph.iterations,
			coarse: kgGraph.coarseIterations || 0, nodes: kgstudioGraph.nodes()})`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	page := fmt.Sprintf("/versions/%d/graph", v.ID)
	s := read(page)
	if !s.Stored || s.Iterations != 0 || s.Coarse != 0 || len(s.Nodes) == 0 {
		t.Fatalf("stored layout: stored %v, %d iterations (+%d), %d nodes drawn", s.Stored, s.Iterations, s.Coarse, len(s.Nodes))
	}
	// Drawn = stored * k + offset, one k and offset for every node.
	var k float64
	first := s.Nodes[0]
	p0 := pos[first.Key]
	for _, d := range s.Nodes[1:] {
		p := pos[d.Key]
		if dx := p[0] - p0[0]; math.Abs(dx) > 1e-3 {
			k = (d.X - first.X) / dx
			break
		}
	}
	if k <= 0 {
		t.Fatalf("no scale between the stored and the drawn places (k %v)", k)
	}
	labels := 0
	for _, d := range s.Nodes {
		p := pos[d.Key]
		if math.Abs(first.X+(p[0]-p0[0])*k-d.X) > 1 || math.Abs(first.Y+(p[1]-p0[1])*k-d.Y) > 1 {
			t.Errorf("%q drawn at %.1f, %.1f, not where the stored layout puts it", d.Key, d.X, d.Y)
		}
		if d.Label != nil {
			labels++
			if d.Label.X1 <= d.Label.X0 || d.Label.Y1 <= d.Label.Y0 {
				t.Errorf("%q: label box %+v", d.Key, *d.Label)
			}
		}
	}
	if labels == 0 {
		t.Error("no label drawn")
	}
	live := read(page + "?layout=live")
	if live.Stored || live.Iterations == 0 {
		t.Fatalf("?layout=live: stored %v after %d iterations", live.Stored, live.Iterations)
	}
}

// A big version with no stored layout yet (written, not run by a serving
// worker) is laid out on the server once its graph is asked for: the
// layout API says so (202) until the layout is stored, and the page,
// which began laying the graph out itself, draws the stored layout when
// it comes.
func TestGraphPage_LayoutArrives(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustGraphVersion(t, "big", "synthetic", synthetic(20000, 60000))
	layoutURL := fmt.Sprintf("%s/api/versions/%d/layout", a.Server.URL, v.ID)
	resp, err := http.Get(layoutURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("layout API before any layout: %d, want 202", resp.StatusCode)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(a.Server.URL+fmt.Sprintf("/versions/%d/graph?all=1", v.ID))); err != nil {
		t.Fatal(err)
	}
	if err := pollTrue(ctx, `window.kgstudioGraph && window.kgstudioGraph.stored && window.kgstudioGraph.settled`); err != nil {
		s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({stored: kgstudioGraph.stored, settled: kgstudioGraph.settled, it: kgGraph.iterations})`))
		t.Fatalf("the stored layout never came: %v (%s)", err, s)
	}
	var body struct {
		Keys []string  `json:"keys"`
		XY   []float64 `json:"xy"`
	}
	a.MustGetJSON(t, fmt.Sprintf("/api/versions/%d/layout", v.ID), http.StatusOK, &body)
	if len(body.Keys) != 20000 || len(body.XY) != 2*len(body.Keys) {
		t.Fatalf("the stored layout places %d of 20000 nodes (%d numbers)", len(body.Keys), len(body.XY))
	}
}

// waitLayout waits until a version's layout is stored: the serving
// worker stores it just after the run ends (and the layout API starts it
// for a version that has none).
func waitLayout(t *testing.T, a *testApp, id int) {
	t.Helper()
	testkit.Eventually(t, time.Minute, func() error {
		resp, err := http.Get(fmt.Sprintf("%s/api/versions/%d/layout", a.Server.URL, id))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("layout API: %d", resp.StatusCode)
		}
		return nil
	})
}
