package kag

import (
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// Every default prompt, in both languages, renders with one worked
// example in KAG's own output form, and the example's answer reads
// through the step's own reader without a failure: NER and events as
// {category, properties: {name, ...}} items, standardisation as
// {name, category, official_name} items, relations as five-element lists.
func TestDefaultPrompts_ExamplesParse(t *testing.T) {
	defaults := DefaultPrompts()
	if len(defaults) != 8 {
		t.Fatalf("%d default prompts; want 4 steps in 2 languages", len(defaults))
	}
	p, err := parsePrompts(nil)
	if err != nil {
		t.Fatal(err)
	}
	x := &Extractor{}
	data := PromptData{Types: []TypeView{{Name: "Person"}}, Text: "the chunk", Entities: `[{"name":"A","category":"Person"}]`, Relations: []string{"Person -[knows]-> Person"}}
	for _, step := range []Step{StepNER, StepEvent, StepStd, StepRelation} {
		for _, lang := range []Lang{LangEnglish, LangChinese} {
			key := PromptKey(step, lang)
			rendered, err := p.render(step, lang, data)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			var answer string
			for _, line := range strings.Split(rendered, "\n") {
				for _, mark := range []string{"Answer: ", "答案："} {
					if rest, ok := strings.CutPrefix(line, mark); ok {
						answer = rest
					}
				}
			}
			if answer == "" || !strings.Contains(rendered, "Example") && !strings.Contains(rendered, "示例") {
				t.Errorf("%s: rendered without an example and its answer", key)
				continue
			}
			res := extract.ChunkResult{}
			var n int
			switch step {
			case StepNER:
				items := x.readItems(&res, answer, "entities", false)
				n = len(items)
				for _, it := range items {
					if it.Description == "" || len(it.Props) == 0 {
						t.Errorf("%s: %s read without a description or properties: %+v", key, it.Name, it)
					}
				}
			case StepEvent:
				items := x.readItems(&res, answer, "events", true)
				n = len(items)
				for _, it := range items {
					if it.Description == "" || len(it.Props) < 4 {
						t.Errorf("%s: %s read without its abstract or properties: %+v", key, it.Name, it)
					}
				}
			case StepStd:
				items := []item{{Name: "?"}}
				for _, raw := range strings.Split(answer, `"name": "`)[1:] {
					items = append(items, item{Name: raw[:strings.IndexByte(raw, '"')]})
				}
				x.readOfficial(&res, answer, items)
				for _, it := range items[1:] {
					if it.Official != "" {
						n++
					}
				}
			case StepRelation:
				rels := x.readRelations(&res, answer)
				n = len(rels)
				for _, r := range rels {
					if r.SubjectType == "" || r.ObjectType == "" {
						t.Errorf("%s: relation without KAG's categories: %+v", key, r)
					}
				}
			}
			if n == 0 || len(res.Failures) > 0 {
				t.Errorf("%s: the example's answer read %d items, failures %+v: %s", key, n, res.Failures, answer)
			}
		}
	}
}
