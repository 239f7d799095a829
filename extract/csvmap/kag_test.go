package csvmap_test

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/csvmap"
)

// table reads a document with encoding/csv (bare quotes allowed): the
// header and the rows.
func table(tb testing.TB, d extract.Document) ([]string, [][]string) {
	tb.Helper()
	r := csv.NewReader(strings.NewReader(d.Content))
	r.LazyQuotes = true
	all, err := r.ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", d.Name, err)
	}
	return all[0], all[1:]
}

func docNamed(tb testing.TB, docs []extract.Document, rs []csvmap.Result, name string) (extract.Document, csvmap.Result) {
	tb.Helper()
	for i, d := range docs {
		if d.Name == name {
			return d, rs[i]
		}
	}
	tb.Fatalf("no document %s", name)
	return extract.Document{}, csvmap.Result{}
}

func mapCorpus(tb testing.TB, folder, schemaFile string) ([]extract.Document, []csvmap.Result) {
	tb.Helper()
	docs := corpus(tb, folder)
	rs, err := csvmap.MapAll(docs, kagOptions(tb, schemaFile))
	if err != nil {
		tb.Fatal(err)
	}
	return docs, rs
}

// distinct counts the distinct values of column col.
func distinct(rows [][]string, cols ...int) int {
	seen := map[string]bool{}
	for _, r := range rows {
		var k []string
		for _, c := range cols {
			k = append(k, strings.TrimSpace(r[c]))
		}
		seen[strings.Join(k, "\x00")] = true
	}
	return len(seen)
}

func nodeOf(g extract.Graph, key string) (extract.Node, bool) {
	for _, n := range g.Nodes {
		if n.Key == key {
			return n, true
		}
	}
	return extract.Node{}, false
}

func edgeOf(g extract.Graph, src, label, dst string) (extract.Edge, bool) {
	for _, e := range g.Edges {
		if e.Source == src && e.Label == label && e.Target == dst {
			return e, true
		}
	}
	return extract.Edge{}, false
}

func TestMapAll_RiskMining(t *testing.T) {
	docs, rs := mapCorpus(t, "kag-riskmining", "RiskMining.schema")
	// Node tables: one node of the file's type per distinct id.
	for name, typ := range map[string]string{"App.csv": "App", "Cert.csv": "Cert", "Company.csv": "Company",
		"Device.csv": "Device", "Person.csv": "Person", "TaxOfRiskApp.csv": "TaxOfRiskApp", "TaxOfRiskUser.csv": "TaxOfRiskUser"} {
		d, r := docNamed(t, docs, rs, name)
		_, rows := table(t, d)
		if got, want := byType(r.Graph)[typ], distinct(rows, 0); got != want || want == 0 {
			t.Errorf("%s: %d %s nodes, want %d (rows %d)", name, got, typ, want, len(rows))
		}
		if len(r.Failures) != 0 {
			t.Errorf("%s: failures %v", name, r.Failures)
		}
	}
	// Edge tables: one edge per distinct (src, dst), weights count the rows.
	for name, label := range map[string]string{"Company_hasCert_Cert.csv": "hasCert", "Person_fundTrans_Person.csv": "fundTrans",
		"Person_hasCert_Cert.csv": "hasCert", "Person_hasDevice_Device.csv": "hasDevice", "Person_holdShare_Company.csv": "holdShare"} {
		d, r := docNamed(t, docs, rs, name)
		_, rows := table(t, d)
		if got, want := byLabel(r.Graph)[label], distinct(rows, 0, 1); got != want || len(r.Graph.Edges) != want {
			t.Errorf("%s: %d %s edges of %d, want %d", name, got, label, len(r.Graph.Edges), want)
		}
		w := 0.0
		for _, e := range r.Graph.Edges {
			w += e.Weight
		}
		if int(w) != len(rows) {
			t.Errorf("%s: weights sum to %v, want %d rows", name, w, len(rows))
		}
	}
	g := merged(rs)
	want := map[string]int{"App": 200, "Cert": 30, "Company": 10, "Device": 100, "Person": 20, "TaxOfRiskApp": 1, "TaxOfRiskUser": 2}
	for typ, n := range want {
		if byType(g)[typ] != n {
			t.Errorf("run: %d %s nodes, want %d (all %v)", byType(g)[typ], typ, n, byType(g))
		}
	}
	if len(g.Nodes) != 363 {
		t.Errorf("run: %d nodes, want 363 (every reference lands on a row)", len(g.Nodes))
	}
	// Person.csv: properties typed by the schema.
	p, ok := nodeOf(g, "person:0")
	if !ok || p.Name != "裘**" || p.Type != "Person" || p.Properties["age"] != 58 || p.Properties["hasPhone"] != "154****7458" {
		t.Errorf("person 0 = %+v", p)
	}
	// Edge table with properties: 10 -> 0 has several transfers.
	e, ok := edgeOf(g, "person:10", "fundTrans", "person:0")
	if !ok || e.Weight < 2 {
		t.Fatalf("fundTrans 10->0 = %+v", e)
	}
	amts, ok := e.Properties["transAmt"].([]any)
	if !ok || len(amts) != int(e.Weight) || amts[0] != 6282 || e.Properties["transDate"].([]any)[0] != "20230906" {
		t.Errorf("fundTrans properties = %v", e.Properties)
	}
	// App.useCert holds Cert.certNum: it points at the Cert row.
	if _, ok := edgeOf(g, extract.TypedNodeKey("App", "com.ucyDA.gNLGD.oQsbzPe.nQd"), "useCert", "cert:0"); !ok {
		t.Error("App useCert does not reach Cert row 0 by its certNum")
	}
	// Device.install: a MultiValue reference split into App edges.
	d, _ := docNamed(t, docs, rs, "Device.csv")
	_, rows := table(t, d)
	if got, want := byLabel(g)["install"], strings.Count(rows[0][2], ",")+1; got < want {
		t.Errorf("install edges %d, want at least %d", got, want)
	}
	checkMentions(t, docs, rs)
}

func TestMapAll_SupplyChain(t *testing.T) {
	docs, rs := mapCorpus(t, "kag-supplychain", "SupplyChain.schema")
	g := merged(rs)
	if got := byType(g)["Company"]; got != 103 {
		t.Errorf("%d Company nodes, want 103 (legal representatives named by company name land on rows)", got)
	}
	d, r := docNamed(t, docs, rs, "Company_fundTrans_Company.csv")
	_, rows := table(t, d)
	if len(r.Graph.Edges) != distinct(rows, 0, 1) || byLabel(r.Graph)["fundTrans"] != len(r.Graph.Edges) {
		t.Errorf("fundTrans (srcId,dstId) edges = %d, want %d", len(r.Graph.Edges), distinct(rows, 0, 1))
	}
	// Industry is a concept taxonomy: every dashed id has an isA parent.
	if _, ok := edgeOf(g, extract.TypedNodeKey("Industry", "原材料-原材料-化学制品-商品化工"), "isA", extract.TypedNodeKey("Industry", "原材料-原材料-化学制品")); !ok {
		t.Error("Industry isA edge missing")
	}
	// Product.csv repeats ids: merged, each repeat reported with its row.
	d, r = docNamed(t, docs, rs, "Product.csv")
	_, rows = table(t, d)
	if got, want := len(r.Failures), len(rows)-distinct(rows, 0); got != want || want == 0 {
		t.Errorf("Product.csv failures %d, want %d repeated ids", got, want)
	}
	if len(r.Failures) > 0 && !strings.HasPrefix(r.Failures[0].Line, "row 9: 汽车,") {
		t.Errorf("first failure %+v", r.Failures[0])
	}
	// The event row: subject, index and trend references.
	ev, ok := nodeOf(g, extract.TypedNodeKey("ProductChainEvent", "1"))
	if !ok || ev.Name != "顺丁橡胶成本上涨" {
		t.Errorf("event = %+v", ev)
	}
	if _, ok := edgeOf(g, ev.Key, "trend", extract.TypedNodeKey("Trend", "上涨")); !ok {
		t.Error("event trend edge missing")
	}
	checkMentions(t, docs, rs)
}

func TestMapAll_Medicine(t *testing.T) {
	docs, rs := mapCorpus(t, "kag-medicine", "Medicine.schema")
	d, r := docNamed(t, docs, rs, "SPO.csv")
	_, rows := table(t, d)
	if len(r.Graph.Edges) != len(rows) || len(r.Failures) != 0 {
		t.Errorf("SPO: %d edges, want %d; failures %v", len(r.Graph.Edges), len(rows), r.Failures)
	}
	// A triple's ends no table defines are keyed by name, as text's nodes.
	e, ok := edgeOf(r.Graph, "panic disorder", "has_symptom", "depression")
	if !ok || e.Properties["confidence"] != 1.0 {
		t.Errorf("SPO edge = %+v", e)
	}
	if n, _ := nodeOf(r.Graph, "panic disorder"); n.Name != "Panic disorder" {
		t.Errorf("SPO subject name %q", n.Name)
	}
	_, r = docNamed(t, docs, rs, "HospitalDepartment.csv")
	if len(r.Graph.Nodes) != 144 || byType(r.Graph)["HospitalDepartment"] != 144 {
		t.Errorf("HospitalDepartment: %d nodes %v", len(r.Graph.Nodes), byType(r.Graph))
	}
	if _, ok := edgeOf(r.Graph, extract.TypedNodeKey("HospitalDepartment", "内科-内分泌科"), "isA", extract.TypedNodeKey("HospitalDepartment", "内科")); !ok {
		t.Error("isA 内科-内分泌科 -> 内科 missing")
	}
	_, r = docNamed(t, docs, rs, "Disease.csv")
	if len(r.Graph.Nodes) != 2 || byType(r.Graph)["Disease"] != 2 {
		t.Fatalf("Disease: %+v", byType(r.Graph))
	}
	n := r.Graph.Nodes[0]
	if n.Name != "脂溢性皮炎" || n.Key != "disease:1" || !strings.HasPrefix(n.Properties["text"].(string), "脂溢性皮炎，亦称") {
		t.Errorf("Disease row = %q %q %v", n.Key, n.Name, n.Properties["alias"])
	}
	checkMentions(t, docs, rs)
}

// checkMentions: every node and edge has a mention inside its document,
// and a row node's mention is a whole row.
func checkMentions(t *testing.T, docs []extract.Document, rs []csvmap.Result) {
	t.Helper()
	for i, r := range rs {
		content := docs[i].Content
		check := func(what string, ms []extract.Mention) {
			if len(ms) == 0 {
				t.Errorf("%s: %s has no mention", docs[i].Name, what)
				return
			}
			for _, m := range ms {
				if m.DocumentID != docs[i].ID || m.ChunkIndex != 0 || m.Start < 0 || m.End > len(content) || m.Start >= m.End {
					t.Errorf("%s: %s mention %+v", docs[i].Name, what, m)
				} else if !strings.HasPrefix(content[m.Start:m.End], strings.TrimSuffix(m.Text, "…")) {
					t.Errorf("%s: %s mention text %q is not the span", docs[i].Name, what, m.Text)
				}
			}
		}
		for _, n := range r.Graph.Nodes {
			check(n.Key, n.Mentions)
		}
		for _, e := range r.Graph.Edges {
			check(e.Key(), e.Mentions)
			for _, m := range e.Mentions {
				row := content[m.Start:m.End]
				if m.Start > 0 && content[m.Start-1] != '\n' || m.End < len(content) && content[m.End] != '\n' || strings.HasSuffix(row, "\n") {
					t.Errorf("%s: edge %s mention %q is not a whole row", docs[i].Name, e.Key(), row)
				}
			}
		}
	}
}
