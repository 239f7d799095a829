package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/PuerkitoBio/goquery"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// csvRiskMining stores the RiskMining tables and schema and runs an nlp
// extraction pinned to the schema; it returns the finished version and the
// documents by file name.
func csvRiskMining(t *testing.T, a *testApp) (record.Version, map[string]extract.Document) {
	t.Helper()
	ctx := context.Background()
	sc, err := schema.ParseKAGString(string(testkit.Read(t, "kag-schemas/RiskMining.schema")))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.App.Schemas.Save(ctx, "RiskMining", 0, sc, "imported"); err != nil {
		t.Fatal(err)
	}
	names := testkit.Glob(t, "corpora/kag-riskmining", "*.csv")
	if len(names) != 12 {
		t.Fatalf("RiskMining tables: %v", names)
	}
	sort.Strings(names)
	docs := map[string]extract.Document{}
	var ids []int
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		d, err := extract.ReadDocument(filepath.Base(n), data, extract.DefaultMaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		d, _, err = a.AddDocument(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		docs[d.Name] = d
		ids = append(ids, d.ID)
	}
	v, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: "riskmining-csv", Config: extract.DefaultConfig(), SchemaRef: "RiskMining", DocumentIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	var last extract.Progress
	if err := a.App.Runs.Run(ctx, v, func(p extract.Progress) { last = p }); err != nil {
		t.Fatal(err)
	}
	if last.ChunksDone != 12 || last.ChunksTotal != 12 || last.Nodes != 363 {
		t.Errorf("last progress %+v, want 12/12 chunks and 363 nodes", last)
	}
	v, err = a.App.Versions.Get(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	return v, docs
}

func TestCSVRun_RiskMining(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	v, docs := csvRiskMining(t, a)
	if v.Status != record.StatusDone || v.ChunksTotal != 12 || v.ChunksDone != 12 {
		t.Fatalf("version %s %d/%d: %s", v.Status, v.ChunksDone, v.ChunksTotal, v.Error)
	}
	g, err := a.App.Graphs.Load(ctx, v.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, n := range g.Nodes {
		types[n.Type]++
	}
	want := map[string]int{"App": 200, "Cert": 30, "Company": 10, "Device": 100, "Person": 20, "TaxOfRiskApp": 1, "TaxOfRiskUser": 2}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("node types %v, want %v", types, want)
	}
	labels := map[string]int{}
	var fund *extract.Edge
	for i, e := range g.Edges {
		labels[e.Label]++
		if e.Source == "person:10" && e.Label == "fundTrans" && e.Target == "person:0" {
			fund = &g.Edges[i]
		}
	}
	// Distinct (src, dst) pairs of the edge tables; install and useCert come
	// from the node tables' reference columns; release and developed are
	// derived by the schema's rules over the tables.
	wantLabels := map[string]int{"developed": 15, "fundTrans": 3, "hasCert": 193, "hasDevice": 58, "holdShare": 3, "install": 731,
		"release": 20, "useCert": 200}
	if fmt.Sprint(labels) != fmt.Sprint(wantLabels) {
		t.Errorf("edge labels %v, want %v", labels, wantLabels)
	}
	if v.Nodes != len(g.Nodes) || v.Edges != len(g.Edges) {
		t.Errorf("version counts %d/%d, graph %d/%d", v.Nodes, v.Edges, len(g.Nodes), len(g.Edges))
	}
	// An edge from an edge table, with its properties and a row mention.
	if fund == nil {
		t.Fatal("no fundTrans edge person:10 -> person:0")
	}
	if amts, ok := fund.Properties["transAmt"].([]any); !ok || len(amts) < 2 || fmt.Sprint(amts[0]) != "6282" {
		t.Errorf("fundTrans properties %v", fund.Properties)
	}
	ft := docs["Person_fundTrans_Person.csv"]
	if len(fund.Mentions) == 0 || fund.Mentions[0].DocumentID != ft.ID ||
		ft.Content[fund.Mentions[0].Start:fund.Mentions[0].End] != "10,0,20230906,6282" {
		t.Errorf("fundTrans mentions %+v", fund.Mentions)
	}
	nodes, err := a.App.Graphs.Nodes(ctx, v.ID, []string{"person:0"})
	person, ok := nodes["person:0"]
	if err != nil || !ok || person.Name != "裘**" || person.Type != "Person" {
		t.Errorf("person:0 = %+v %v", person, err)
	}

	// The version page lists one chunk per table with its counts.
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	rows := page.Find(`[data-testid="chunks"] tbody tr`)
	if rows.Length() != 12 {
		t.Fatalf("%d chunk rows, want 12", rows.Length())
	}
	found := false
	rows.Each(func(_ int, r *goquery.Selection) {
		cells := r.Find("td")
		if strings.TrimSpace(cells.Eq(0).Text()) == "Person.csv" {
			found = true
			if n := strings.TrimSpace(cells.Eq(3).Text()); n != "20" {
				t.Errorf("Person.csv chunk nodes %q, want 20", n)
			}
		}
	})
	if !found {
		t.Error("no chunk row for Person.csv")
	}
	// The chunk view of Person.csv highlights its rows as Person nodes.
	pd := docs["Person.csv"]
	resp, cv := a.Get(t, fmt.Sprintf("/versions/%d/chunks/%d/0", v.ID, pd.ID))
	if resp.StatusCode != 200 {
		t.Fatalf("chunk view status %d", resp.StatusCode)
	}
	marks := cv.Find(`[data-testid="chunk-text"] [data-testid="mention"]`)
	if marks.Length() != 20 {
		t.Errorf("%d highlighted rows, want 20", marks.Length())
	}
	if first := marks.First(); first.Text() != "0,裘**,58,154****7458" || !strings.Contains(first.AttrOr("title", ""), "Person: person:0") {
		t.Errorf("first mark %q title %q", first.Text(), first.AttrOr("title", ""))
	}
	if got := cv.Find(`[data-testid="chunk-text"]`).Text(); !strings.Contains(got, "id,name,age,hasPhone") {
		t.Errorf("chunk text lacks the header: %.80q", got)
	}
	if ents := cv.Find(`[data-testid="chunk-entities"] tr`).Length(); ents != 20 {
		t.Errorf("%d entities in the chunk view, want 20", ents)
	}
}

// A rerun of a finished CSV version adds nothing; mixed documents keep the
// text path.
func TestCSVRun_ResumeAndMixed(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	var mixedIDs []int
	v, _ := csvRiskMining(t, a)
	if err := a.App.Runs.Run(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	again, err := a.App.Versions.Get(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.Nodes != v.Nodes || again.Edges != v.Edges || again.ChunksDone != 12 {
		t.Errorf("rerun changed counts: %d/%d/%d -> %d/%d/%d", v.Nodes, v.Edges, v.ChunksDone, again.Nodes, again.Edges, again.ChunksDone)
	}

	// A table, a text and a dialogue in one run: each document takes its
	// own route.
	chat := `{"title":"chat","sessions":[{"id":"s1","turns":[{"speaker":"Ann","text":"My name is Ann and I live in Oslo."},{"speaker":"Bot","text":"Nice to meet you, Ann."}]}]}`
	for _, d := range []struct{ name, text string }{{"People.csv", "id,name\n1,Ann Smith\n"}, {"notes.txt", "Ada Lovelace worked with Charles Babbage in London."}, {"chat.json", chat}} {
		doc, err := app.ReadDocument(t.Context(), d.name, []byte(d.text), 0)
		if err != nil {
			t.Fatal(err)
		}
		if doc, _, err = a.AddDocument(ctx, doc); err != nil {
			t.Fatal(err)
		}
		mixedIDs = append(mixedIDs, doc.ID)
	}
	mv, _, err := a.App.Runs.NewRun(ctx, app.RunRequest{Extraction: "mixed", Config: extract.DefaultConfig(), DocumentIDs: mixedIDs})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.App.Runs.Run(ctx, mv, nil); err != nil {
		t.Fatal(err)
	}
	if nodes, err := a.App.Graphs.Nodes(ctx, mv.ID, []string{"concept:1"}); err != nil || len(nodes) != 1 {
		t.Errorf("a mixed run did not map the CSV rows: %d nodes %v", len(nodes), err)
	}
	g, err := a.App.Graphs.Load(ctx, mv.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	var text, memory bool
	for _, n := range g.Nodes {
		text = text || n.Name == "Ada Lovelace"
		memory = memory || strings.HasPrefix(n.Key, "/User")
	}
	for _, e := range g.Edges {
		if e.Label == "speaker" || e.Label == "sessions" || e.Label == "turns" {
			t.Errorf("the dialogue was read as text: edge %s", e.Label)
		}
	}
	if !text || !memory {
		t.Errorf("mixed run: text nodes %v, dialogue memory %v: %+v", text, memory, g.Nodes)
	}
	mv, err = a.App.Versions.Get(ctx, mv.ID)
	if err != nil || mv.ChunksDone != mv.ChunksTotal || mv.ChunksTotal < 3 {
		t.Errorf("mixed run chunks %d/%d: %v", mv.ChunksDone, mv.ChunksTotal, err)
	}
	// Its timeline shows the dialogue's turns.
	if resp, _ := a.Get(t, fmt.Sprintf("/versions/%d/timeline", mv.ID)); resp.StatusCode != http.StatusOK {
		t.Errorf("timeline of a mixed run: %d", resp.StatusCode)
	}
}

// Broken rows of an uploaded table become failures on the chunk view.
func TestCSVRun_Failures(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "broken", "Person.csv", "id,name,age\n1,Ann,41\n2,Bob\n3,\"Cy,40\n", extract.DefaultConfig())
	if v.Status != record.StatusDone || v.Nodes != 1 || v.ChunksTotal != 1 {
		t.Fatalf("version %s nodes %d chunks %d: %s", v.Status, v.Nodes, v.ChunksTotal, v.Error)
	}
	runs, err := a.App.Versions.ChunkRuns(context.Background(), v.ID)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v %v", runs, err)
	}
	_, cv := a.Get(t, fmt.Sprintf("/versions/%d/chunks/%d/0", v.ID, runs[0].DocumentID))
	fails := cv.Find(`[data-testid="failures"] tbody tr`)
	text := fails.Text()
	if fails.Length() != 2 || !strings.Contains(text, "row 3: 2,Bob") || !strings.Contains(text, "row 4:") {
		t.Errorf("failures (%d): %s", fails.Length(), text)
	}
	if m := cv.Find(`[data-testid="mention"]`); m.Length() != 1 || m.Text() != "1,Ann,41" {
		t.Errorf("mentions %d %q", m.Length(), m.Text())
	}
}
