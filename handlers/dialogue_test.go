package handlers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
)

const (
	dlgLoCoMoPath     = "dialogues/locomo10_conv26.json"
	dlgMemoryBankPath = "dialogues/memorybank_en_users1-8.json"
	dlgSeedPath       = "../extract/dialogue/testdata/seed_segment_ops.json"
)

// dlgDoc stores a file as a document and checks it reads as a dialogue.
func dlgDoc(tb testing.TB, a *testApp, name string, data []byte) extract.Document {
	tb.Helper()
	d, err := extract.ReadDocument(name, data, extract.DefaultMaxBytes)
	if err != nil {
		tb.Fatal(err)
	}
	if d.Kind != extract.DocDialogue {
		tb.Fatalf("%s read as %q, want dialogue", name, d.Kind)
	}
	d, _, err = a.AddDocument(context.Background(), d)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// dlgFile reads a dialogue file: a data file found by internal/testkit,
// or a path of the repository.
func dlgFile(tb testing.TB, path string) []byte {
	tb.Helper()
	if strings.HasPrefix(path, "dialogues/") {
		return testkit.Read(tb, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// memoryBankUser cuts one user out of the MemoryBank file.
func memoryBankUser(tb testing.TB, user string) []byte {
	tb.Helper()
	var all map[string]json.RawMessage
	if err := json.Unmarshal(dlgFile(tb, dlgMemoryBankPath), &all); err != nil {
		tb.Fatal(err)
	}
	one, err := json.Marshal(map[string]json.RawMessage{user: all[user]})
	if err != nil {
		tb.Fatal(err)
	}
	return one
}

// dlgVersion prepares a config and creates a queued version.
func dlgVersion(tb testing.TB, a *testApp, name string, cfg extract.Config, docs ...extract.Document) record.Version {
	tb.Helper()
	ctx := context.Background()
	ids := make([]int, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: name, Config: cfg, DocumentIDs: ids})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// operations returns a dialogue run's stored operation log, as its
// timeline reads it.
func operations(tb testing.TB, a *testApp, id int) []extract.Operation {
	tb.Helper()
	tl, err := a.App.Memory.Timeline(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	return tl.Ops
}

func dlgRun(tb testing.TB, a *testApp, v record.Version) record.Version {
	tb.Helper()
	if err := a.App.Runs.Run(context.Background(), v, nil); err != nil {
		tb.Fatalf("run %s: %v", v.Label(), err)
	}
	v, err := a.App.Versions.Get(context.Background(), v.ID)
	if err != nil {
		tb.Fatal(err)
	}
	if v.Status != record.StatusDone {
		tb.Fatalf("%s is %s (%s), want done", v.Label(), v.Status, v.Error)
	}
	return v
}

// timelineJSON mirrors the JSON of GET /api/versions/:id/timeline.
type timelineJSON struct {
	Turns []struct {
		Turn       int            `json:"turn"`
		DocumentID int            `json:"document_id"`
		Chunk      int            `json:"chunk"`
		Done       bool           `json:"done"`
		Counts     map[string]int `json:"counts"`
		Coverage   float64        `json:"coverage"`
	} `json:"turns"`
	Totals       map[string]int `json:"totals"`
	MeanCoverage float64        `json:"mean_coverage"`
	Finished     int            `json:"finished"`
	Offset       int            `json:"offset"`
	TotalTurns   int            `json:"total_turns"`
}

// turnJSON mirrors the JSON of GET /api/versions/:id/timeline/:turn.
type turnJSON struct {
	Turn    int `json:"turn"`
	Segment struct {
		Index     int    `json:"index"`
		User      string `json:"user"`
		Assistant string `json:"assistant"`
	} `json:"segment"`
	Operations []extract.Operation `json:"operations"`
	Coverage   float64             `json:"coverage"`
	Graph      struct {
		Turn  int `json:"turn"`
		Nodes []struct {
			ID      string `json:"id"`
			Touched bool   `json:"touched"`
		} `json:"nodes"`
		Links []struct {
			Source string `json:"source"`
			Target string `json:"target"`
			Label  string `json:"label"`
		} `json:"links"`
	} `json:"graph"`
}

func dlgJSON(tb testing.TB, a *testApp, path string, v any) int {
	tb.Helper()
	resp, err := http.Get(a.Server.URL + path)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			tb.Fatalf("GET %s: %v", path, err)
		}
	}
	return resp.StatusCode
}

// dlgCount returns the number of matches of a selector.
func dlgCount(s interface {
	Find(string) *goquery.Selection
}, sel string) int {
	return s.Find(sel).Length()
}

func TestDialogueRun_NLPOffline(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	locomo := dlgDoc(t, a, "locomo10_conv26.json", dlgFile(t, dlgLoCoMoPath))
	v := dlgRun(t, a, dlgVersion(t, a, "locomo", extract.DefaultConfig(), locomo))

	var tl timelineJSON
	if code := dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline", v.ID), &tl); code != http.StatusOK {
		t.Fatalf("timeline API: status %d", code)
	}

	t.Run("OneChunkPerSegment", func(t *testing.T) {
		chunks, err := a.App.Documents.Chunks(ctx, locomo.ID, app.DialogueChunkSet)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) < 100 || len(chunks) != len(tl.Turns) || v.ChunksTotal != len(chunks) || v.ChunksDone != len(chunks) {
			t.Fatalf("%d chunks, %d turns, version %d/%d; want one chunk per turn (100+)", len(chunks), len(tl.Turns), v.ChunksDone, v.ChunksTotal)
		}
		if !strings.HasPrefix(chunks[0].Text, "Caroline: Hey Mel!") || !strings.Contains(chunks[0].Text, "\nMelanie: ") {
			t.Errorf("chunk 0 = %q, want the first segment's speaker lines", chunks[0].Text)
		}
		_, doc := a.Get(t, fmt.Sprintf("/versions/%d/chunks/%d/1", v.ID, locomo.ID))
		if !hasText(doc.Selection, "LGBTQ support group") {
			t.Error("chunk page of turn 1 does not show the segment text")
		}
	})

	t.Run("NodeKeysArePaths", func(t *testing.T) {
		g, err := a.App.Graphs.Load(ctx, v.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]extract.Node{}
		for _, n := range g.Nodes {
			if !strings.HasPrefix(n.Key, "/") {
				t.Errorf("node key %q is not a memory path", n.Key)
			}
			keys[n.Key] = n
		}
		for _, k := range []string{"/User/Profile/Name", "/Assistant/Profile/Name", "/User/RelatedEvents", "/Events/Session"} {
			if _, ok := keys[k]; !ok {
				t.Errorf("node %s missing", k)
			}
		}
		if n := keys["/User/Profile/Name"]; n.Name != "Caroline" {
			t.Errorf("/User/Profile/Name is %q, want Caroline", n.Name)
		}
	})

	t.Run("TimelineAPI", func(t *testing.T) { checkLoCoMoTimelineAPI(t, a, v, locomo.ID, tl) })

	t.Run("TimelinePage", func(t *testing.T) { checkLoCoMoTimelinePage(t, a, v, tl) })

	t.Run("NotADialogueRun", func(t *testing.T) {
		text := a.MustExtract(t, "prose", "prose.txt", "Marie Curie worked in Paris with Pierre Curie.", extract.DefaultConfig())
		resp, _ := a.Get(t, fmt.Sprintf("/versions/%d/timeline", text.ID))
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("timeline of a text run: status %d, want 400", resp.StatusCode)
		}
	})
}

// checkLoCoMoTimelineAPI checks v's timeline tl covers every turn of document docID, and the turn API serves turn 1, the last turn and 404 past it.
func checkLoCoMoTimelineAPI(t *testing.T, a *testApp, v record.Version, docID int, tl timelineJSON) {
	t.Helper()
	if tl.Finished != len(tl.Turns) || tl.MeanCoverage <= 0 || tl.MeanCoverage > 1 {
		t.Errorf("finished %d of %d, mean coverage %v", tl.Finished, len(tl.Turns), tl.MeanCoverage)
	}
	if tl.Totals["add_node"] == 0 || tl.Totals["add_relation"] == 0 || tl.Totals["update_node"] == 0 {
		t.Errorf("totals %v, want adds, updates and relations", tl.Totals)
	}
	for i, tr := range tl.Turns {
		if tr.Turn != i || tr.Chunk != i || tr.DocumentID != docID || !tr.Done {
			t.Fatalf("turn %d = %+v", i, tr)
		}
	}
	var one turnJSON
	if code := dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline/1", v.ID), &one); code != http.StatusOK {
		t.Fatalf("turn API: status %d", code)
	}
	if one.Turn != 1 || one.Segment.Index != 1 || !strings.Contains(one.Segment.User, "LGBTQ") || len(one.Operations) == 0 {
		t.Errorf("turn 1 = turn %d, segment %d %q, %d ops", one.Turn, one.Segment.Index, one.Segment.User, len(one.Operations))
	}
	var last turnJSON
	dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline/%d", v.ID, len(tl.Turns)-1), &last)
	if len(last.Graph.Nodes) <= len(one.Graph.Nodes) {
		t.Errorf("graph grows from %d nodes at turn 1 to %d at the end", len(one.Graph.Nodes), len(last.Graph.Nodes))
	}
	touched := 0
	for _, n := range one.Graph.Nodes {
		if n.Touched {
			touched++
		}
	}
	if touched == 0 {
		t.Error("turn 1 touched no node of its graph")
	}
	if code := dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline/%d", v.ID, len(tl.Turns)), &last); code != http.StatusNotFound {
		t.Errorf("turn past the end: status %d, want 404", code)
	}
}

// checkLoCoMoTimelinePage checks v's timeline page at turn 1 lists the turns and shows turn 1's text, operations, coverage, graph and navigation.
func checkLoCoMoTimelinePage(t *testing.T, a *testApp, v record.Version, tl timelineJSON) {
	t.Helper()
	resp, doc := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=1", v.ID))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := dlgCount(doc, "[data-testid=turn-row]"); got != min(len(tl.Turns), 200) {
		t.Errorf("%d turn rows, want %d (a page of at most 200)", got, min(len(tl.Turns), 200))
	}
	det := doc.Find("[data-testid=turn-detail]")
	if det.AttrOr("data-turn", "") != "1" {
		t.Errorf("detail shows turn %q", det.AttrOr("data-turn", ""))
	}
	if !hasText(det.Find("[data-testid=turn-user]"), "LGBTQ support group") || !hasText(det.Find("[data-testid=turn-assistant]"), "Melanie") {
		t.Error("turn text missing")
	}
	if dlgCount(det.Find("[data-testid=operations]"), "[data-testid=operation]") == 0 {
		t.Error("no operations listed for turn 1")
	}
	if !hasText(det.Find("[data-testid=count-add_node]"), "add_node") {
		t.Error("no add_node count")
	}
	cov := strings.TrimSuffix(det.Find("[data-testid=turn-coverage-detail]").Text(), "%")
	if n, err := strconv.Atoi(cov); err != nil || n <= 0 {
		t.Errorf("turn coverage %q", cov)
	}
	if mc := doc.Find("[data-testid=mean-coverage]").Text(); mc == "" || mc == "0%" {
		t.Errorf("mean coverage %q", mc)
	}
	var g struct {
		Turn  int               `json:"turn"`
		Nodes []json.RawMessage `json:"nodes"`
		Links []json.RawMessage `json:"links"`
	}
	if err := json.Unmarshal([]byte(det.Find("script#timeline-graph").Text()), &g); err != nil {
		t.Fatalf("graph data: %v", err)
	}
	if g.Turn != 1 || len(g.Nodes) < 20 || len(g.Links) == 0 {
		t.Errorf("graph of turn %d: %d nodes, %d links", g.Turn, len(g.Nodes), len(g.Links))
	}
	if doc.Find("[data-testid=turn-prev]").AttrOr("href", "") == "" || doc.Find("[data-testid=turn-next]").AttrOr("href", "") == "" {
		t.Error("prev/next links missing")
	}
	if doc.Find("[data-testid=turn-range]").AttrOr("max", "") != strconv.Itoa(len(tl.Turns)-1) {
		t.Error("slider range does not span the turns")
	}
}

func TestDialogueRun_MemoryBankCollection(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	mb := dlgDoc(t, a, "memorybank_en_users1-8.json", dlgFile(t, dlgMemoryBankPath))
	v := dlgRun(t, a, dlgVersion(t, a, "memorybank", extract.DefaultConfig(), mb))
	var tl timelineJSON
	dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline", v.ID), &tl)
	chunks, err := a.App.Documents.Chunks(ctx, mb.ID, app.DialogueChunkSet)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != len(tl.Turns) || len(chunks) < 8*10 {
		t.Fatalf("%d chunks for %d turns", len(chunks), len(tl.Turns))
	}
	for i, tr := range tl.Turns {
		if tr.Chunk != i || tr.Turn != i {
			t.Fatalf("turn %d numbered chunk %d", tr.Turn, tr.Chunk)
		}
	}
	// Every user keeps a memory of their own.
	g, err := a.App.Graphs.Load(ctx, v.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, n := range g.Nodes {
		if scope, path, ok := strings.Cut(n.Key, ":"); ok && path == "/User/Profile/Name" {
			names[scope] = n.Name
		}
	}
	if names["Emily"] != "Emily" || names["Frank"] != "Frank" || len(names) != 8 {
		t.Errorf("user names by dialogue: %v", names)
	}
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=%d", v.ID, len(tl.Turns)-1))
	if !hasText(doc.Find("[data-testid=turn-detail]"), "Ivy") {
		t.Error("the last turn is not the last user's")
	}
}

// fakeRules answers the LoCoMo turn about the support group with the
// recorded seed output, and every other segment with a small answer that
// holds one relation from a bare root (rejected).
func fakeRules(tb testing.TB) []fakellm.Rule {
	seed := fakellm.Load(tb, dlgSeedPath)
	other := `{"add_node": [{"node_id": "/User/Status/CurrentFocus/Conversation", "node_details": {"label": "Conversation", "description": "Talking with the assistant.", "status": "active"}}], "update_node": [], "add_relation": [{"source_node_id": "/User", "target_node_id": "/User/Status/CurrentFocus/Conversation", "relation_details": {"label": "FOCUSES_ON"}}]}`
	return []fakellm.Rule{
		{Contains: "LGBTQ support group yesterday", Text: seed},
		{Text: other},
	}
}

func geminiProviders(fake *fakellm.Server) app.Providers {
	return app.Providers{GeminiAPIKey: "test-key", GeminiBaseURL: fake.GeminiURL(), GeminiModel: "gemini-2.5-flash", Concurrency: 2}
}

func dialogueConfig() extract.Config {
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyDialogue
	cfg.Provider = "gemini"
	return cfg
}

func TestDialogueRun_FakeGemini(t *testing.T) {
	t.Parallel()
	fake := fakellm.New(t, fakellm.Options{Rules: fakeRules(t)})
	a := MustAppWith(t, geminiProviders(fake))
	ctx := context.Background()
	locomo := dlgDoc(t, a, "locomo10_conv26.json", dlgFile(t, dlgLoCoMoPath))
	emily := dlgDoc(t, a, "memorybank_emily.json", memoryBankUser(t, "Emily"))
	v := dlgRun(t, a, dlgVersion(t, a, "chat", dialogueConfig(), locomo, emily))

	var tl timelineJSON
	dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline", v.ID), &tl)
	if fake.Count() != len(tl.Turns) || v.Calls != len(tl.Turns) {
		t.Errorf("%d model calls (%d recorded) for %d turns; want one per turn", fake.Count(), v.Calls, len(tl.Turns))
	}

	t.Run("SeedTurn", func(t *testing.T) {
		// The seed answers LoCoMo's turn 1: 18 add_node, 5 update_node,
		// 21 add_relation.
		tr := tl.Turns[1]
		if tr.Counts["add_node"] != 18 || tr.Counts["update_node"] != 5 || tr.Counts["add_relation"] != 21 {
			t.Errorf("turn 1 counts %v", tr.Counts)
		}
		_, doc := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=1", v.ID))
		det := doc.Find("[data-testid=turn-detail]")
		if got := dlgCount(det, "[data-testid=operation]"); got != 18+5+21 {
			t.Errorf("%d operation rows, want 44", got)
		}
		if !hasText(det.Find("[data-testid=operations]"), "/Knowledge/SoftwareApplication") {
			t.Error("seed knowledge nodes not listed")
		}
	})

	t.Run("RejectedShown", func(t *testing.T) {
		_, doc := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=2", v.ID))
		rej := doc.Find("[data-testid=turn-detail] [data-testid=operation][data-status=rejected]")
		if rej.Length() != 1 || !hasText(rej.Find("[data-testid=operation-reason]"), "bare root /User") {
			t.Errorf("rejected rows %d: %q", rej.Length(), rej.Text())
		}
		if tl.Totals["rejected"] != len(tl.Turns)-1 {
			t.Errorf("%d rejected, want one per turn but the seed's", tl.Totals["rejected"])
		}
	})

	t.Run("OtherAttributesKept", func(t *testing.T) {
		// The model's "status" beside label and description is stored
		// with the operation and becomes the node's attribute.
		ops := operations(t, a, v.ID)
		kept := 0
		for _, op := range ops {
			if op.Attributes["status"] == "active" {
				kept++
			}
		}
		if kept == 0 {
			t.Fatal("no stored operation kept the status attribute")
		}
		g, err := a.App.Graphs.Load(ctx, v.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range g.Nodes {
			if strings.HasSuffix(n.Key, "/User/Status/CurrentFocus/Conversation") {
				if attrs, _ := n.Properties["attributes"].(map[string]any); attrs["status"] != "active" {
					t.Errorf("%s: properties %v; want attributes.status active", n.Key, n.Properties)
				}
				return
			}
		}
		t.Error("no conversation node in the graph")
	})

	t.Run("SecondDocumentContinuesTurns", func(t *testing.T) {
		first := -1
		for _, tr := range tl.Turns {
			if tr.DocumentID == emily.ID {
				if first < 0 {
					first = tr.Turn
				}
				if tr.Chunk != tr.Turn-first {
					t.Fatalf("turn %d of Emily is chunk %d, want %d", tr.Turn, tr.Chunk, tr.Turn-first)
				}
			}
		}
		if first <= 0 {
			t.Fatal("no turns of the MemoryBank document after LoCoMo's")
		}
		var one turnJSON
		dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline/%d", v.ID, first), &one)
		if len(one.Operations) == 0 || one.Operations[0].Turn != first {
			t.Errorf("first Emily turn ops %+v", one.Operations)
		}
		// Emily's memory starts afresh: none of LoCoMo's seed nodes.
		for _, n := range one.Graph.Nodes {
			if strings.HasPrefix(n.ID, "/Knowledge/SoftwareApplication") {
				t.Fatalf("Emily's graph holds %s from the other dialogue", n.ID)
			}
		}
		g, err := a.App.Graphs.Load(ctx, v.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		scoped := 0
		for _, n := range g.Nodes {
			if strings.HasPrefix(n.Key, "Emily:/") {
				scoped++
			}
		}
		if scoped == 0 {
			t.Error("no node keyed under Emily's dialogue")
		}
	})
}

func TestDialogueRun_ResumeAfterInterruption(t *testing.T) {
	t.Parallel()
	fake := fakellm.New(t, fakellm.Options{Rules: fakeRules(t)})
	a := MustAppWith(t, geminiProviders(fake))
	ctx := context.Background()
	emily := dlgDoc(t, a, "memorybank_emily.json", memoryBankUser(t, "Emily"))

	// Interrupt after five turns.
	v := dlgVersion(t, a, "resumed", dialogueConfig(), emily)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := a.App.Runs.Run(runCtx, v, func(p extract.Progress) {
		if p.ChunksDone == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v, want context.Canceled", err)
	}
	part := operations(t, a, v.ID)
	if len(part) == 0 || part[len(part)-1].Turn != 4 {
		t.Fatalf("interrupted log ends at turn %d, want 4", part[len(part)-1].Turn)
	}
	callsBefore := fake.Count()

	// Run the same version again to the end.
	resumed := dlgRun(t, a, v)
	ops := operations(t, a, v.ID)
	seen := map[string]bool{}
	for _, op := range ops {
		k := fmt.Sprintf("%d/%d", op.Turn, op.Seq)
		if seen[k] {
			t.Fatalf("operation %s logged twice", k)
		}
		seen[k] = true
	}
	if fake.Count()-callsBefore != resumed.ChunksTotal-5 {
		t.Errorf("resume made %d calls for %d remaining turns", fake.Count()-callsBefore, resumed.ChunksTotal-5)
	}

	// An uninterrupted run of the same config logs the same operations
	// and stores the same graph.
	whole := dlgRun(t, a, dlgVersion(t, a, "whole", dialogueConfig(), emily))
	want := operations(t, a, whole.ID)
	if len(ops) != len(want) {
		t.Fatalf("resumed run logged %d operations, uninterrupted %d", len(ops), len(want))
	}
	for i := range ops {
		// When each run wrote an operation is its own.
		ops[i].RecordedAt, want[i].RecordedAt = "", ""
		if !reflect.DeepEqual(ops[i], want[i]) {
			t.Fatalf("operation %d: resumed %+v, uninterrupted %+v", i, ops[i], want[i])
		}
	}
	if resumed.Nodes != whole.Nodes || resumed.Edges != whole.Edges || resumed.ChunksDone != whole.ChunksDone {
		t.Errorf("resumed %d nodes %d edges %d chunks; uninterrupted %d, %d, %d",
			resumed.Nodes, resumed.Edges, resumed.ChunksDone, whole.Nodes, whole.Edges, whole.ChunksDone)
	}
}

func TestTimeline_Browser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	locomo := dlgDoc(t, a, "locomo10_conv26.json", dlgFile(t, dlgLoCoMoPath))
	v := dlgRun(t, a, dlgVersion(t, a, "locomo", extract.DefaultConfig(), locomo))

	poll := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Fatalf("waiting for %s: %v", expr, err)
		}
	}
	type state struct {
		Turn   int  `json:"turn"`
		Nodes  int  `json:"nodes"`
		Links  int  `json:"links"`
		Loaded int  `json:"loaded"`
		Detail int  `json:"detail"`
		Marker bool `json:"marker"`
	}
	read := func() state {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[state](`({turn: kgTimeline.turn, nodes: kgTimeline.nodes, links: kgTimeline.links,
			loaded: kgTimeline.loaded, detail: +document.querySelector('[data-testid=turn-detail]').dataset.turn, marker: window.sameDocument === true})`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d/timeline?turn=0", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	poll(`window.kgTimeline && kgTimeline.loaded >= 1`)
	first := read()
	if first.Turn != 0 || first.Nodes < 19 || first.Links == 0 {
		t.Fatalf("turn 0 drawn as %+v", first)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.sameDocument = true`)); err != nil {
		t.Fatal(err)
	}

	t.Run("NextLink", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="turn-next"]`))); err != nil {
			t.Fatal(err)
		}
		poll(`kgTimeline.turn === 1`)
		if s := read(); s.Detail != 1 || !s.Marker {
			t.Errorf("after next: %+v (the page must swap the turn, not reload)", s)
		}
	})

	t.Run("Slider", func(t *testing.T) {
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){
			var r = document.getElementById('turn-range'); r.value = 150;
			r.dispatchEvent(new Event('input', {bubbles: true})); return true })()`))
		if err != nil {
			t.Fatal(err)
		}
		poll(`kgTimeline.turn === 150`)
		s := read()
		if s.Detail != 150 || !s.Marker || s.Nodes <= first.Nodes {
			t.Errorf("after scrubbing to 150: %+v; turn 0 had %d nodes", s, first.Nodes)
		}
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(loc, "turn=150") {
			t.Errorf("location %s does not name the turn", loc)
		}
		poll(`kgTimeline.settled`)
		if err := forPicture(ctx, 500*time.Millisecond); err != nil { // the zoom-to-fit animation
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if len(png) < 10000 {
			t.Errorf("screenshot of %d bytes", len(png))
		}
		if dir := screenshotDir(); dir != "" {
			if err := os.WriteFile(dir+"/timeline.png", png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// BenchmarkDialogueRun_LoCoMoOffline measures a whole offline dialogue run
// of the LoCoMo conversation (215 turns) through the runner and the store.
func BenchmarkDialogueRun_LoCoMoOffline(b *testing.B) {
	a := MustApp(b)
	locomo := dlgDoc(b, a, "locomo10_conv26.json", dlgFile(b, dlgLoCoMoPath))
	turns := 0
	for b.Loop() {
		v := dlgRun(b, a, dlgVersion(b, a, "bench", extract.DefaultConfig(), locomo))
		turns = v.ChunksDone
	}
	b.ReportMetric(float64(turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}

// BenchmarkTimelineTurnAPI measures one scrub step: the JSON of the last
// LoCoMo turn, which parses the document and rebuilds the memory from the
// whole operation log.
func BenchmarkTimelineTurnAPI(b *testing.B) {
	a := MustApp(b)
	locomo := dlgDoc(b, a, "locomo10_conv26.json", dlgFile(b, dlgLoCoMoPath))
	v := dlgRun(b, a, dlgVersion(b, a, "bench", extract.DefaultConfig(), locomo))
	path := fmt.Sprintf("/api/versions/%d/timeline/%d", v.ID, v.ChunksDone-1)
	for b.Loop() {
		var one turnJSON
		if code := dlgJSON(b, a, path, &one); code != http.StatusOK {
			b.Fatalf("status %d", code)
		}
	}
}

// A long dialogue's timeline is paged: the page lists 200 turns around the
// selected one, the API at most 1,000 from an offset.
func TestTimeline_Paged(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	var turns []string
	for i := 0; i < 450; i++ {
		turns = append(turns, fmt.Sprintf(`{"speaker": "Ann", "role": "user", "text": "I visited Lisbon on day %d."}`, i),
			fmt.Sprintf(`{"speaker": "Bot", "role": "assistant", "text": "Lisbon on day %d sounds lovely."}`, i))
	}
	dlg := `{"title": "long", "sessions": [{"id": "s1", "start": "2024-01-02", "turns": [` + strings.Join(turns, ",") + `]}]}`
	v := dlgRun(t, a, dlgVersion(t, a, "long", extract.DefaultConfig(), dlgDoc(t, a, "long.json", []byte(dlg))))
	var tl timelineJSON
	dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline", v.ID), &tl)
	n := tl.TotalTurns
	if n < 400 || len(tl.Turns) != n {
		t.Fatalf("%d turns listed of %d", len(tl.Turns), n)
	}
	_, doc := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=1", v.ID))
	if got := dlgCount(doc, "[data-testid=turn-row]"); got != 200 || doc.Find("[data-testid=turns-later]").Length() != 1 {
		t.Errorf("first page: %d rows, want 200 and a link to later turns", got)
	}
	last := n - 1
	_, far := a.Get(t, fmt.Sprintf("/versions/%d/timeline?turn=%d", v.ID, last))
	if far.Find(fmt.Sprintf("[data-testid=turn-row][data-turn='%d']", last)).Length() != 1 ||
		far.Find("[data-testid=turn-row][data-turn='1']").Length() != 0 || far.Find("[data-testid=turns-earlier]").Length() != 1 {
		t.Errorf("the page of turn %d does not list its own rows", last)
	}
	var page timelineJSON
	dlgJSON(t, a, fmt.Sprintf("/api/versions/%d/timeline?offset=200&limit=50", v.ID), &page)
	if page.Offset != 200 || page.TotalTurns != n || len(page.Turns) != 50 || page.Turns[0].Turn != 200 {
		t.Errorf("API page: offset %d, total %d, %d turns", page.Offset, page.TotalTurns, len(page.Turns))
	}
}
