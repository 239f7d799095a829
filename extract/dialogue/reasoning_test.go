package dialogue

import "testing"

func TestParseOps_ReasoningBlock(t *testing.T) {
	out := "<think>Maybe {\"add_node\": []} is enough? No.</think>\n" +
		`{"add_node": [{"node_id": "/User/Profile/Name", "node_details": {"label": "Ann"}}], "update_node": [], "add_relation": []}`
	ops, fails := ParseOps(out)
	if len(ops.AddNode) != 1 || ops.AddNode[0].NodeID != "/User/Profile/Name" || len(fails) != 0 {
		t.Fatalf("ops %+v, failures %+v", ops, fails)
	}
}
