package schema

import (
	"fmt"
	"path/filepath"
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
	derived, skipped := DeriveRules(risk, g)
	var got []string
	for _, d := range derived {
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
	if _, skipped := DeriveRules(supply, g); len(skipped) != 11 || !strings.Contains(skipped[0].Message, "mainSupply") {
		t.Errorf("SupplyChain rules: %v", skipped)
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
