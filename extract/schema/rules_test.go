package schema

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// The rules of the shipped RiskMining schema: release (a path) runs, and so
// does developed (a path with a count threshold); the rules that compute
// property values (SupplyChain's sums over dates) are named as not run.
func TestDeriveRules_Shipped(t *testing.T) {
	risk := mustParseFile(t, filepath.Join(kagDir(t), "RiskMining.schema"))
	n := func(key, typ string) extract.Node { return extract.Node{Key: key, Name: key, Type: typ} }
	e := func(s, l, o string) extract.Edge { return extract.Edge{Source: s, Label: l, Target: o} }
	g := extract.Graph{Nodes: []extract.Node{n("alice", "Person"), n("bob", "Person"), n("acme", "Company"), n("cert1", "Cert"), n("app1", "App"), n("app2", "App")}}
	// alice holds a share of acme, whose certificate app1 uses: alice releases app1.
	g.Edges = append(g.Edges, e("alice", "holdShare", "acme"), e("acme", "hasCert", "cert1"), e("app1", "useCert", "cert1"))
	// bob has six devices with app2 installed, alice only two: bob developed app2.
	for i := 0; i < 6; i++ {
		d := fmt.Sprintf("dev%d", i)
		g.Nodes = append(g.Nodes, n(d, "Device"))
		g.Edges = append(g.Edges, e("bob", "hasDevice", d), e(d, "install", "app2"))
		if i < 2 {
			g.Edges = append(g.Edges, e("alice", "hasDevice", d))
		}
	}
	d, err := DeriveRules(context.Background(), risk, g, Budget{})
	if err != nil {
		t.Fatal(err)
	}
	derived, skipped := d.Graph, d.Skipped
	var got []string
	for _, d := range derived.Edges {
		got = append(got, d.Source+" "+d.Label+" "+d.Target)
		if d.Properties["rule"] != true {
			t.Errorf("derived edge %s not marked", d.Key())
		}
	}
	if strings.Join(got, "; ") != "bob developed app2; alice release app1" && strings.Join(got, "; ") != "alice release app1; bob developed app2" {
		t.Errorf("derived %q", got)
	}
	if len(skipped) != 0 {
		t.Errorf("RiskMining rules not run: %v", skipped)
	}

	supply := mustParseFile(t, filepath.Join(kagDir(t), "SupplyChain.schema"))
	if d, _ := DeriveRules(context.Background(), supply, g, Budget{}); len(d.Skipped) != 11 || !strings.Contains(fmt.Sprint(d.Skipped), "rule mainSupply: constraint") {
		t.Errorf("SupplyChain rules: %v", d.Skipped)
	}
}

func TestParseRule_Errors(t *testing.T) {
	for _, text := range []string{
		"",
		"Define (s:A)-[p:r]->(o:Float) { STRUCTURE { (s)-[:x]->(o) } CONSTRAINT { } }",
		"Define (s:A)-[p:r]->(o:B) { STRUCTURE { } CONSTRAINT { } }",
		"Define (s:A)-[p:r]->(o:B) { STRUCTURE { (s)-[:x]-(o) } CONSTRAINT { } }",
		"Define (s:A)-[p:r]->(o:B) { STRUCTURE { (s)-[:x]->(o) } CONSTRAINT { o = s.x + 1 } }",
	} {
		if _, err := ParseRule(text); err == nil {
			t.Errorf("ParseRule(%q): no error", text)
		}
	}
}

// denseGraph is n nodes of type T, each linked to every other: a path of
// k links has n·(n-1)^k matches, so a long path rule over it is the rule
// whose join grows without end.
func denseGraph(n int) extract.Graph {
	var g extract.Graph
	for i := 0; i < n; i++ {
		g.Nodes = append(g.Nodes, extract.Node{Key: fmt.Sprintf("t%d", i), Name: fmt.Sprintf("t%d", i), Type: "T"})
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				g.Edges = append(g.Edges, extract.Edge{Source: fmt.Sprintf("t%d", i), Label: "link", Target: fmt.Sprintf("t%d", j)})
			}
		}
	}
	return g
}

// fourHops is a rule whose naive join over denseGraph(80) looks at
// 80·79^4 ≈ 3·10^9 bindings (an index on each edge's ends only makes
// each one cheaper).
const fourHops = `Define (a:T)-[p:far]->(e:T) {
	STRUCTURE { (a)-[:link]->(b)-[:link]->(c)-[:link]->(d)-[:link]->(e) }
	CONSTRAINT { }
}`

// countingCtx counts the looks at its Err and reports Canceled from the
// cancelAt-th on (never when cancelAt is 0): the work a rule did is the
// looks times checkEvery, and a cancel lands at a known point in the
// join, with no clock.
type countingCtx struct {
	context.Context
	looks, cancelAt int
}

func (c *countingCtx) Err() error {
	c.looks++
	if c.cancelAt > 0 && c.looks >= c.cancelAt {
		return context.Canceled
	}
	return nil
}

func mustRule(tb testing.TB, text string) *Rule {
	tb.Helper()
	r, err := ParseRule(text)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// A rule whose join would run for hours ends at its budget with an error
// saying so, having done no more work than the budget allows; DeriveRules
// names it as not run and still runs the schema's other rules.
func TestRule_Derive_Budget(t *testing.T) {
	g := denseGraph(80)
	t.Run("Steps", func(t *testing.T) {
		ctx := &countingCtx{Context: context.Background()}
		const steps = 200_000
		edges, err := mustRule(t, fourHops).Derive(ctx, g, Budget{MaxSteps: steps})
		if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "budget of 200000 join steps") || len(edges) != 0 {
			t.Fatalf("Derive: %d edges, error %v; want the budget's error", len(edges), err)
		}
		if max := steps/checkEvery + 1; ctx.looks > max {
			t.Errorf("looked at ctx %d times (every %d steps): more work than %d steps", ctx.looks, checkEvery, steps)
		}
	})
	t.Run("Matches", func(t *testing.T) {
		// Two hops over 80 nodes match 80·79 pairs, more than 1000.
		two := `Define (a:T)-[p:near]->(c:T) { STRUCTURE { (a)-[:link]->(b)-[:link]->(c) } CONSTRAINT { } }`
		edges, err := mustRule(t, two).Derive(context.Background(), g, Budget{MaxMatches: 1000})
		if err == nil || !strings.Contains(err.Error(), "more than 1000") || len(edges) != 0 {
			t.Fatalf("Derive: %d edges, error %v; want the matches' error", len(edges), err)
		}
		if edges, err := mustRule(t, two).Derive(context.Background(), g, Budget{}); err != nil || len(edges) != 80*79 {
			t.Errorf("within the default budget: %d edges, error %v; want %d", len(edges), err, 80*79)
		}
	})
	t.Run("OtherRulesRun", func(t *testing.T) {
		s := &Schema{Types: []EntityType{{Name: "T", Relations: []Relation{
			{Name: "far", Target: "T", Rule: fourHops},
			{Name: "back", Target: "T", Rule: `Define (a:T)-[p:back]->(b:T) { STRUCTURE { (b)-[:link]->(a) } CONSTRAINT { } }`},
		}}}}
		d, err := DeriveRules(context.Background(), s, g, Budget{MaxSteps: 100_000})
		edges, skipped := d.Graph.Edges, d.Skipped
		if err != nil {
			t.Fatal(err)
		}
		if len(skipped) != 1 || skipped[0].Field != "types[0].relations[0].rule" || !strings.Contains(skipped[0].Message, "budget") {
			t.Errorf("skipped %v; want the far rule, over budget", skipped)
		}
		// One back edge for each link.
		if len(edges) != 80*79 || edges[0].Label != "back" {
			t.Errorf("derived %d edges; want the %d back edges", len(edges), 80*79)
		}
	})
}

// Cancel stops a rule in the middle of its join: Derive and DeriveRules
// return context.Canceled at the next look at ctx, with no edges.
func TestRule_Derive_Canceled(t *testing.T) {
	g := denseGraph(80)
	unlimited := Budget{MaxSteps: 1 << 62, MaxMatches: 1 << 62}
	t.Run("MidJoin", func(t *testing.T) {
		ctx := &countingCtx{Context: context.Background(), cancelAt: 5}
		edges, err := mustRule(t, fourHops).Derive(ctx, g, unlimited)
		if !errors.Is(err, context.Canceled) || len(edges) != 0 {
			t.Fatalf("Derive: %d edges, error %v; want context.Canceled", len(edges), err)
		}
		if ctx.looks != 5 {
			t.Errorf("looked at ctx %d times; want it to stop at the 5th (after about %d steps)", ctx.looks, 4*checkEvery)
		}
	})
	t.Run("DeriveRules", func(t *testing.T) {
		s := &Schema{Types: []EntityType{{Name: "T", Relations: []Relation{{Name: "far", Target: "T", Rule: fourHops}}}}}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		d, err := DeriveRules(ctx, s, g, unlimited)
		if !errors.Is(err, context.Canceled) || len(d.Graph.Edges) != 0 || len(d.Skipped) != 0 {
			t.Fatalf("DeriveRules: %d edges, %v skipped, error %v; want context.Canceled", len(d.Graph.Edges), d.Skipped, err)
		}
	})
}

// naiveDerive is the plain join Derive replaced: every edge of each
// pattern's label against every binding so far. The indexed join must
// derive the same relations.
func naiveDerive(r *Rule, g extract.Graph) []string {
	types := map[string]string{}
	for _, n := range g.Nodes {
		types[n.Key] = n.Type
	}
	typed := func(v, key string) bool {
		t, ok := types[key]
		return ok && (r.Types[v] == "" || strings.EqualFold(lastPart(t), lastPart(r.Types[v])))
	}
	counts := map[[2]string]map[string]bool{}
	var walk func(i int, bound map[string]string)
	walk = func(i int, bound map[string]string) {
		if i == len(r.Patterns) {
			pair := [2]string{bound[r.Subject], bound[r.Object]}
			if pair[0] == "" || pair[1] == "" || pair[0] == pair[1] {
				return
			}
			if counts[pair] == nil {
				counts[pair] = map[string]bool{}
			}
			counts[pair][bound[r.CountVar]] = true
			return
		}
		p := r.Patterns[i]
		for _, e := range g.Edges {
			if !strings.EqualFold(lastPart(e.Label), lastPart(p.Label)) {
				continue
			}
			if (bound[p.From] != "" && bound[p.From] != e.Source) || (bound[p.To] != "" && bound[p.To] != e.Target) {
				continue
			}
			if !typed(p.From, e.Source) || !typed(p.To, e.Target) {
				continue
			}
			next := map[string]string{}
			for k, v := range bound {
				next[k] = v
			}
			next[p.From], next[p.To] = e.Source, e.Target
			walk(i+1, next)
		}
	}
	walk(0, map[string]string{})
	var out []string
	for pair, set := range counts {
		if r.holds(float64(len(set))) {
			out = append(out, pair[0]+" "+r.Predicate+" "+pair[1])
		}
	}
	sort.Strings(out)
	return out
}

// The indexed join derives what the plain join derives, on random graphs
// of RiskMining's types (edges to keys that are no node included) for
// rules with paths in both directions, cycles, untyped variables and
// count thresholds.
func TestRule_Derive_SameAsNaive(t *testing.T) {
	rules := []string{
		`Define (s:Person)-[p:release]->(o:App) { STRUCTURE { (s)-[:holdShare]->(c:Company), (c)-[:hasCert]->(cert:Cert)<-[useCert]-(o) } CONSTRAINT { } }`,
		`Define (s:Person)-[p:developed]->(o:App) { STRUCTURE { (s)-[:hasDevice]->(d:Device)-[:install]->(o) } CONSTRAINT { n = group(s,o).count(d)
			R1("more than 1"): n > 1 } }`,
		`Define (s:Person)-[p:peer]->(o:Person) { STRUCTURE { (s)-[:holdShare]->(c), (o)-[:holdShare]->(c), (s)-[:hasDevice]->(d)<-[:hasDevice]-(o) } CONSTRAINT { } }`,
		`Define (s:Person)-[p:loop]->(o:Company) { STRUCTURE { (s)-[:holdShare]->(o)-[:hasCert]->(c)<-[:hasCert]-(s) } CONSTRAINT { } }`,
		`Define (s:Device)-[p:shared]->(o:Device) { STRUCTURE { (s)-[:install]->(a:App)-[:useCert]->(c:Cert)<-[:useCert]-(b)<-[:install]-(o) } CONSTRAINT { n = group(s,o).count(c)
			R1("one"): n == 1 } }`,
	}
	// Each label mostly joins the types its schema gives it, sometimes any
	// two keys (a few of which are no node).
	ends := map[string][2]string{"holdShare": {"Person", "Company"}, "hasCert": {"Company", "Cert"},
		"useCert": {"App", "Cert"}, "hasDevice": {"Person", "Device"}, "install": {"Device", "App"}}
	labels := []string{"holdShare", "hasCert", "useCert", "hasDevice", "install"}
	types := []string{"Person", "Company", "Cert", "App", "Device"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 40; round++ {
		var g extract.Graph
		const perType = 4
		key := func(typ string) string { return fmt.Sprintf("%s%d", typ, rng.IntN(perType)) }
		for _, typ := range types {
			for i := 0; i < perType; i++ {
				g.Nodes = append(g.Nodes, extract.Node{Key: fmt.Sprintf("%s%d", typ, i), Type: typ})
			}
		}
		for i := 0; i < 40; i++ {
			l := labels[rng.IntN(len(labels))]
			e := extract.Edge{Source: key(ends[l][0]), Label: l, Target: key(ends[l][1])}
			if rng.IntN(8) == 0 {
				e.Source = key(types[rng.IntN(len(types))])
			}
			if rng.IntN(8) == 0 {
				e.Target = fmt.Sprintf("none%d", rng.IntN(2))
			}
			g.Edges = append(g.Edges, e)
		}
		for _, text := range rules {
			r := mustRule(t, text)
			edges, err := r.Derive(context.Background(), g, Budget{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range edges {
				got = append(got, e.Source+" "+e.Label+" "+e.Target)
			}
			sort.Strings(got)
			if want := naiveDerive(r, g); strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Fatalf("round %d, rule %s: derived %q; the plain join derives %q", round, r.Predicate, got, want)
			}
		}
	}
}
