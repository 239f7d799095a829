package tuple_test

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract/tuple"
)

// A reasoning model's thinking block is not output: its lines are neither
// records nor failures.
func TestParse_ReasoningBlock(t *testing.T) {
	out := "<think>\nLet me list {entities}.\nentity<|#|>Draft<|#|>person\n</think>\nentity<|#|>Scrooge<|#|>person<|#|>A miser.\n<|COMPLETE|>"
	g, fails := tuple.Parse(out)
	if len(g.Nodes) != 1 || g.Nodes[0].Name != "Scrooge" || len(fails) != 0 {
		t.Fatalf("nodes %+v, failures %+v", g.Nodes, fails)
	}
}
