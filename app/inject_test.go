package app

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// domainGraph is a reference graph as KAG's domain_kg example has one:
// synonym concepts linked by isA to the name they stand for.
const domainGraph = `{"nodes":[
	{"key":"acth","name":"促肾上腺皮质激素","type":"Concept","properties":{"aliases":["ACTH"]}},
	{"key":"促皮质素","name":"促皮质素","type":"Concept"},
	{"key":"hormone","name":"激素","type":"Concept"},
	{"key":"hgh","name":"生长激素","type":"Medicine","properties":{"aliases":["growth hormone"]}}],
 "edges":[
	{"source":"促皮质素","target":"acth","label":"isA"},
	{"source":"acth","target":"hormone","label":"isA"},
	{"source":"hgh","target":"hormone","label":"isA"}]}`

// An offline run that names a reference graph writes the domain graph
// (its nodes and isA edges) and its NER sees the domain entities: a text
// that says "growth hormone", which the offline passes alone do not take
// for a name, gets the domain's 生长激素 of the domain's type recognised
// where it stands (a mention of "growth hormone" and an edge to Boston, in
// the same sentence), which the run without the reference does not; the
// injection that follows the run could only add the node and mention the
// chunk.
func TestApp_ReferenceDomainNER(t *testing.T) {
	t.Parallel()
	for name, a := range importApps(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if _, err := a.Curation.ImportGraph(ctx, "domain", "domain.json", []byte(domainGraph), ""); err != nil {
				t.Fatal(err)
			}
			doc := addDoc(t, a.store, "lab.txt", "Doctors in Boston measure growth hormone and ACTH every morning.\n")
			run := func(name, ref string) extract.Graph {
				cfg := extract.DefaultConfig()
				cfg.Embedder = extract.EmbedderOffline
				cfg.Reference = ref
				v, _ := mustRun(t, a, RunRequest{Extraction: name, Config: cfg, DocumentIDs: []int{doc.ID}})
				g, err := a.store.LoadGraph(ctx, v.ID, true)
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			g := run("lab", "domain@1")
			var hgh *extract.Node
			var boston string
			for i, n := range g.Nodes {
				switch n.Name {
				case "生长激素":
					hgh = &g.Nodes[i]
				case "Boston":
					boston = n.Key
				}
			}
			if hgh == nil || hgh.Type != "Medicine" {
				t.Fatalf("no Medicine 生长激素: %+v", g.Nodes)
			}
			said := false
			for _, m := range hgh.Mentions {
				said = said || m.Text == "growth hormone"
			}
			if !said || len(hgh.Mentions) != 1 {
				t.Errorf("生长激素's mentions %+v; want the one of growth hormone where it stands", hgh.Mentions)
			}
			isA, linked := 0, false
			for _, e := range g.Edges {
				if e.Label == "isA" {
					isA++
				}
				if (e.Source == hgh.Key && e.Target == boston) || (e.Target == hgh.Key && e.Source == boston) {
					linked = true
				}
			}
			if len(g.Nodes) != 5 || isA != 3 || !linked {
				t.Errorf("%d nodes, %d isA edges, growth hormone linked to Boston %v; want 5 (the domain's 4 and Boston), 3, true: %+v", len(g.Nodes), isA, linked, g)
			}
			for _, n := range run("plain", "").Nodes {
				if n.Name == "生长激素" || n.Name == "growth hormone" {
					t.Errorf("without the reference the run knows %s (%s)", n.Name, n.Type)
				}
			}
		})
	}
}
