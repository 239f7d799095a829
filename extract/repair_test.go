package extract

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRepairJSON(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  string // compact JSON
		kinds []Repair
	}{
		{"Strict", `{"a": [1, 2]}`, `{"a":[1,2]}`, nil},
		{"Prose", "Here you go: {\"a\": 1} Hope this helps {x}", `{"a":1}`, nil},
		{"Fence", "```json\n{\"a\": 1}\n```", `{"a":1}`, []Repair{RepairFence}},
		{"FenceTrailingCommas", "```json\n{\"add_node\": [{\"id\": \"/User\",},],}\n```", `{"add_node":[{"id":"/User"}]}`, []Repair{RepairFence, RepairTrailingComma}},
		{"SingleQuotes", `{'a': 'it is', "b": 2}`, `{"a":"it is","b":2}`, []Repair{RepairSingleQuotes}},
		{"Comments", "{\n  // the people\n  \"a\": 1, /* more */ \"b\": 2\n}", `{"a":1,"b":2}`, []Repair{RepairComment}},
		{"UnquotedKeys", `{entities: [{name: "Scrooge", category: "Person"}]}`, `{"entities":[{"name":"Scrooge","category":"Person"}]}`, []Repair{RepairUnquotedKey}},
		{"TruncatedItem", `{"entities": [{"name": "Scrooge", "category": "Person"}, {"name": "Marley", "categ`, `{"entities":[{"name":"Scrooge","category":"Person"}]}`, []Repair{RepairTruncated}},
		{"TruncatedMember", `{"high": ["a", "b"], "low": ["c", "d`, `{"high":["a","b"],"low":["c"]}`, []Repair{RepairTruncated}},
		{"TruncatedTopList", `[["A", "r", "B"], ["C", "r"`, `[["A","r","B"]]`, []Repair{RepairTruncated}},
		{"Reasoning", "<think>{not json}</think>```\n[1, 2,]\n```", `[1,2]`, []Repair{RepairFence, RepairTrailingComma}},
		{"PythonLiterals", `{"a": None, "b": True}`, `{"a":null,"b":true}`, []Repair{RepairOther}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, kinds, err := RepairJSON(tt.in)
			if err != nil {
				t.Fatalf("RepairJSON: %v", err)
			}
			var v any
			if err := json.Unmarshal([]byte(got), &v); err != nil {
				t.Fatalf("result is not JSON: %q", got)
			}
			b, _ := json.Marshal(v)
			var w any
			_ = json.Unmarshal([]byte(tt.want), &w)
			wb, _ := json.Marshal(w)
			if string(b) != string(wb) {
				t.Errorf("got %s, want %s", b, wb)
			}
			if !reflect.DeepEqual(kinds, tt.kinds) {
				t.Errorf("repairs %q, want %q", kinds, tt.kinds)
			}
		})
	}
	for _, bad := range []string{"", "no json here", "I could not find anything."} {
		if _, _, err := RepairJSON(bad); err == nil || !strings.Contains(err.Error(), "no JSON") {
			t.Errorf("RepairJSON(%q) error %v, want no JSON", bad, err)
		}
	}
}

func FuzzRepairJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2,],}`, "```json\n{'a': 1}\n```", `{a: "b" // c`, `[{"x": "y"}, {"x`, `{"a": "\u00e9\"}`, "<think>", `[[[[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := RepairJSON(in)
		if err == nil && !json.Valid([]byte(out)) {
			t.Fatalf("RepairJSON(%q) = %q, not valid JSON", in, out)
		}
	})
}
