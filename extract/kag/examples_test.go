package kag_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/kag"
)

// Every default prompt, in both languages, shows the model one worked
// example, and the example's answer is the JSON the prompt asks for.
func TestDefaultPrompts_CarryAnExample(t *testing.T) {
	prompts := kag.DefaultPrompts()
	if len(prompts) != 8 {
		t.Fatalf("%d default prompts; want 4 steps in 2 languages", len(prompts))
	}
	for key, p := range prompts {
		var answer string
		for _, line := range strings.Split(p, "\n") {
			for _, mark := range []string{"Answer: ", "答案："} {
				if rest, ok := strings.CutPrefix(line, mark); ok {
					answer = rest
				}
			}
		}
		if !strings.Contains(p, "Example") && !strings.Contains(p, "示例") || answer == "" {
			t.Errorf("%s: no example with an answer", key)
			continue
		}
		var v map[string][]map[string]any
		if err := json.Unmarshal([]byte(answer), &v); err != nil || len(v) != 1 {
			t.Errorf("%s: the example's answer is not the asked JSON: %v (%s)", key, err, answer)
		}
		for field, items := range v {
			if len(items) == 0 {
				t.Errorf("%s: the example's %s is empty", key, field)
			}
		}
	}
}
