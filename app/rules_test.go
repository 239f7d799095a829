package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// releaseSchema is the part of KAG's RiskMining schema its release rule
// needs: whoever holds a share of a company whose certificate an app uses
// releases the app.
const releaseSchema = `namespace Risk

Cert(证书): EntityType
	properties:
		certNum(证书编号): Text

App(应用): EntityType
	properties:
		useCert(使用证书): Cert

Company(企业): EntityType
	relations:
		hasCert(拥有证书): Cert

Person(自然人): EntityType
	relations:
		holdShare(持股): Company
		release(发布): App
			rule: [[
				Define (s:Person)-[p:release]->(o:App) {
					STRUCTURE {
						(s)-[:holdShare]->(c:Company),
						(c)-[:hasCert]->(cert:Cert)<-[useCert]-(o)
					}
					CONSTRAINT {
					}
				}
			]]
`

// rulesApp is an app on a fresh SQLite store with the offline embedder and,
// when srv is set, srv as its openai provider; schemaText is saved as
// the schema "risk".
func rulesApp(t *testing.T, srv *fakellm.Server, schemaText string) (*App, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := Providers{Embedder: extract.EmbedderOffline}
	if srv != nil {
		p.OpenAIBaseURL, p.OpenAIModel = srv.OpenAIURL(), "local"
	}
	sc, err := schema.ParseKAGString(schemaText)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.SaveSchema(context.Background(), "risk", store.AnyBase, sc, ""); err != nil {
		t.Fatal(err)
	}
	return newApp(st, slog.New(slog.NewTextHandler(io.Discard, nil)), p), st
}

// derived returns the "source label target" of the edges a rule derived.
func derived(g extract.Graph) []string {
	var out []string
	for _, e := range g.Edges {
		if e.Properties["rule"] == true {
			out = append(out, e.Source+" "+e.Label+" "+e.Target)
		}
	}
	return out
}

// A run of CSV tables alone runs the schema's rules over the mapped rows:
// alice holds a share of acme, whose certificate pay uses, so alice
// releases pay; chat uses the certificate of a company nobody holds.
func TestApp_RulesOverCSVTables(t *testing.T) {
	t.Parallel()
	a, st := rulesApp(t, nil, releaseSchema)
	var ids []int
	for name, text := range map[string]string{
		"Person_holdShare_Company.csv": "src,dst\nalice,acme\n",
		"Company_hasCert_Cert.csv":     "src,dst\nacme,c1\nother,c2\n",
		"App.csv":                      "id,useCert\npay,c1\nchat,c2\n",
	} {
		ids = append(ids, addDoc(t, st, name, text).ID)
	}
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	v, g := mustRun(t, a, RunRequest{Extraction: "tables", Config: cfg, SchemaRef: "risk", DocumentIDs: ids})
	want := extract.TypedNodeKey("Person", "alice") + " release " + extract.TypedNodeKey("App", "pay")
	if got := derived(g); len(got) != 1 || got[0] != want {
		t.Errorf("derived %q; want [%s]", got, want)
	}
	cur, err := st.Version(context.Background(), v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status != record.StatusDone || !slices.Contains(strings.Split(cur.Note, "\n"), "schema rules derived 1 relation") {
		t.Errorf("version %s, note %q", cur.Status, cur.Note)
	}
}

// The rules run after every track: the text says who holds a share of
// acme, the tables which certificate acme has and pay uses, and only the
// two together derive that alice releases pay.
func TestApp_RulesAfterTextAndTables(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "belongs to one of the schema types", Text: `{"entities": [{"name": "Alice", "category": "Person"}, {"name": "Acme", "category": "Company"}]}`},
		{Contains: "official name", Text: `{"entities": []}`},
		{Contains: "Find the relations", Text: `{"relations": [["Alice", "holdShare", "Acme"]]}`},
	}})
	a, st := rulesApp(t, srv, releaseSchema)
	ids := []int{
		addDoc(t, st, "shares.txt", "Alice holds shares of Acme.").ID,
		addDoc(t, st, "Company_hasCert_Cert.csv", "src,dst\nAcme,c1\n").ID,
		addDoc(t, st, "App.csv", "id,useCert\nPayApp,c1\n").ID,
	}
	cfg := extract.DefaultConfig()
	cfg.Strategy, cfg.Provider, cfg.Language, cfg.Embedder = extract.StrategySchema, "openai", "en", extract.EmbedderOffline
	_, g := mustRun(t, a, RunRequest{Extraction: "mixed", Config: cfg, SchemaRef: "risk", DocumentIDs: ids})
	want := extract.TypedNodeKey("Person", "Alice") + " release " + extract.TypedNodeKey("App", "PayApp")
	if got := derived(g); len(got) != 1 || got[0] != want {
		t.Errorf("derived %q; want [%s]", got, want)
	}
}

// KAG's RiskMining tables with their schema: the release rule derives the
// 20 relations the tables imply (person 10 holds shares of companies 0, 1
// and 2, whose certificates 0, 10 and 24 are used by 7, 7 and 6 apps), and
// the developed rule the 15 pairs of persons 0, 1 and 2 with the five apps
// installed on more than five of their devices.
func TestApp_RulesRiskMiningTables(t *testing.T) {
	t.Parallel()
	files := testkit.Glob(t, "corpora/kag-riskmining", "*.csv")
	// The schema's rules with their keywords as KAG's README writes them
	// (Structure, Constraint), and the concept rules of its concept.rule.
	text := strings.NewReplacer("STRUCTURE", "Structure", "CONSTRAINT", "Constraint").Replace(string(testkit.Read(t, "kag-schemas/RiskMining.schema")))
	rules := strings.Replace(string(testkit.Read(t, "kag-rules/RiskMining.rule")), "namespace RiskMining", "", 1)
	a, st := rulesApp(t, nil, text+"\n"+rules)
	var ids []int
	for _, f := range files {
		ids = append(ids, addDoc(t, st, filepath.Base(f), string(testkit.Read(t, "corpora/kag-riskmining/"+filepath.Base(f)))).ID)
	}
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	_, g := mustRun(t, a, RunRequest{Extraction: "riskmining", Config: cfg, SchemaRef: "risk", DocumentIDs: ids})
	count := map[string]int{}
	have := map[string]bool{}
	for _, d := range derived(g) {
		count[strings.Fields(d)[1]]++
		have[d] = true
	}
	if count["release"] != 20 || count["developed"] != 15 || count["belongTo"] != 9 || len(count) != 3 {
		t.Errorf("derived %v; want 20 release, 15 developed and 9 belongTo", count)
	}
	person := func(id string) string { return extract.TypedNodeKey("Person", id) }
	app := func(id string) string { return extract.TypedNodeKey("App", id) }
	// The nine classifications: the five apps marked 赌博, the three
	// people who developed them, and person 10, who releases them and
	// pays their developers.
	gambling := extract.TypedNodeKey("TaxOfRiskApp", "赌博应用")
	var classified []string
	for _, d := range derived(g) {
		if f := strings.Fields(d); f[1] == "belongTo" {
			classified = append(classified, f[0]+" "+f[2])
		}
	}
	slices.Sort(classified)
	want := []string{
		app("com.CYUwwpj.ceCCEm.LCtzt.NCrUKX") + " " + gambling, app("com.HOfs.aOnwJ.fFHM.QoXx") + " " + gambling,
		app("com.Yirmf.MZx.NKC.Xqp") + " " + gambling, app("com.qIu.VJbJ") + " " + gambling, app("com.ziNtg.tSIuhlG") + " " + gambling,
		person("0") + " " + extract.TypedNodeKey("TaxOfRiskUser", "赌博App开发者"),
		person("1") + " " + extract.TypedNodeKey("TaxOfRiskUser", "赌博App开发者"),
		person("10") + " " + extract.TypedNodeKey("TaxOfRiskUser", "赌博App老板"),
		person("2") + " " + extract.TypedNodeKey("TaxOfRiskUser", "赌博App开发者"),
	}
	slices.Sort(want)
	if !slices.Equal(classified, want) {
		t.Errorf("classified\n%q\nwant\n%q", classified, want)
	}
	for _, want := range []string{
		// Company 0 has certificate 68802add…, which this app uses.
		person("10") + " release " + app("com.ucyDA.gNLGD.oQsbzPe.nQd"),
		// Company 1 has certificate 5c19603e… (Cert 10).
		person("10") + " release " + app("com.ziNtg.tSIuhlG"),
		// Company 2 has certificate f47d826a… (Cert 24).
		person("10") + " release " + app("com.SmV.BjTKn"),
		// Person 2's 16 devices all have it installed.
		person("2") + " developed " + app("com.qIu.VJbJ"),
	} {
		if !have[want] {
			t.Errorf("no derived %s", want)
		}
	}
	// Person 3 has one device: developed needs more than five.
	if have[person("3")+" developed "+app("com.qIu.VJbJ")] {
		t.Errorf("person 3 developed an app from one device")
	}
}

// A rule whose join would run for hours (four hops over a table linking
// each of 80 nodes to every other) stops at its budget: the run finishes,
// the version's note names the rule as not run and why, and the schema's
// other rule still derives its relations.
func TestApp_RuleOverBudget(t *testing.T) {
	t.Parallel()
	a, st := rulesApp(t, nil, `namespace Dense

T(点): EntityType
	relations:
		link(连): T
		far(远): T
			rule: [[
				Define (a:T)-[p:far]->(e:T) {
					STRUCTURE { (a)-[:link]->(b)-[:link]->(c)-[:link]->(d)-[:link]->(e) }
					CONSTRAINT { }
				}
			]]
		back(回): T
			rule: [[
				Define (a:T)-[p:back]->(b:T) {
					STRUCTURE { (b)-[:link]->(a) }
					CONSTRAINT { }
				}
			]]
`)
	var b strings.Builder
	b.WriteString("src,dst\n")
	const n = 80
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				fmt.Fprintf(&b, "%d,%d\n", i, j)
			}
		}
	}
	d := addDoc(t, st, "T_link_T.csv", b.String())
	cfg := extract.DefaultConfig()
	cfg.Embedder = extract.EmbedderOffline
	v, g := mustRun(t, a, RunRequest{Extraction: "dense", Config: cfg, SchemaRef: "risk", DocumentIDs: []int{d.ID}})
	count := map[string]int{}
	for _, d := range derived(g) {
		count[strings.Fields(d)[1]]++
	}
	if count["far"] != 0 || count["back"] != n*(n-1) {
		t.Errorf("derived %v; want no far and %d back", count, n*(n-1))
	}
	cur, err := st.Version(context.Background(), v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status != record.StatusDone || !strings.Contains(cur.Note, "schema rules not run: rule far: over its budget") {
		t.Errorf("version %s, note %q", cur.Status, cur.Note)
	}
}
