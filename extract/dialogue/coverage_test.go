package dialogue

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestCoverage(t *testing.T) {
	tests := []struct {
		name     string
		turn     string
		produced []string
		want     float64
	}{
		{"AllFound", "I love painting landscapes", []string{"Painting", "User loves landscapes"}, 1},
		{"Stemming", "She planned trips with her dogs", []string{"plans a trip", "dog"}, 1},
		{"Half", "Caroline adopted Biscuit, a beagle", []string{"Caroline", "Beagle"}, 0.5},
		{"NothingProduced", "Caroline adopted a beagle", nil, 0},
		{"OnlyStopWords", "Hi! How are you?", nil, 1},
		{"Empty", "", []string{"x"}, 1},
		{"Possessive", "Melanie's pottery class", []string{"Melanie", "pottery class"}, 1},
		{"CJK", "北京很好", []string{"北京"}, 0.5},
		{"CaseAndPunctuation", "TODOIST, Trello; Asana.", []string{"todoist trello asana"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Coverage(tt.turn, tt.produced); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Coverage = %v, want %v (words %q)", got, tt.want, contentWords(tt.turn))
			}
		})
	}
}

func TestCoverage_Seed(t *testing.T) {
	// The seed's segment, as retold in testdata/task_apps_dialogue.json,
	// against the recorded model operations.
	d, err := Parse(mustRead(t, "testdata/task_apps_dialogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	seg := Segments(d)[0]
	m := NewMemory()
	cov := CoverageOf(seg, m.Apply(0, seedOps(t)))
	if cov < 0.6 || cov > 1 {
		t.Errorf("coverage of the seed segment %.3f, want at least 0.6", cov)
	}
	off, _ := NewOffline().ExtractSegment(t.Context(), seg, nil)
	offCov := CoverageOf(seg, NewMemory().Apply(0, off.Ops))
	if offCov >= cov {
		t.Errorf("offline coverage %.3f not below model coverage %.3f", offCov, cov)
	}
	t.Logf("coverage: model %.3f, offline %.3f", cov, offCov)
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"apps": "app", "planning": "plan", "stories": "story", "boxes": "box", "tasks": "task",
		"walked": "walk", "cat": "cat", "quickly": "quick", "running": "run", "loves": "lov", "love": "lov",
		"glass": "glass", "carried": "carry", "analysis": "analysis",
	} {
		t.Run(in, func(t *testing.T) {
			if got := stem(in); got != want {
				t.Errorf("stem(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestUserPrompt(t *testing.T) {
	seg := Segment{Start: "2023-05-30T17:27:00Z", User: "Which apps help?", Assistant: "Try Todoist."}
	got, err := UserPrompt(seg, append(append([]string(nil), StructureNodes...), "/Knowledge/SoftwareApplication/ProductivityTool/Todoist"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "user_prompt.golden.txt", []byte(got))
	t.Run("NoExisting", func(t *testing.T) {
		got, _ := UserPrompt(seg, nil)
		if !strings.Contains(got, "(only the fixed slots)") {
			t.Errorf("prompt %q", got)
		}
	})
	t.Run("SystemPromptRules", func(t *testing.T) {
		sys := SystemPrompt()
		for _, want := range []string{"/Events/<Topic>/<Summary_YYYYMMDD>", "/Knowledge/<EntityType>/<Category>/<Name>",
			"/User/RelatedEvents", "/Assistant/RelatedEvents", "Never use the bare roots", "Add nothing", "Keep every piece"} {
			if !strings.Contains(sys, want) {
				t.Errorf("system prompt lacks %q", want)
			}
		}
	})
}

func TestResponseSchema(t *testing.T) {
	s := ResponseSchema()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	props := back["properties"].(map[string]any)
	var keys []string
	for _, k := range extract.OpKinds {
		if _, ok := props[string(k)]; ok {
			keys = append(keys, string(k))
		}
	}
	if !reflect.DeepEqual(keys, []string{"add_node", "update_node", "add_relation"}) {
		t.Errorf("schema properties %v", props)
	}
	rel := props[string(extract.OpAddRelation)].(map[string]any)["items"].(map[string]any)
	if req := rel["required"].([]any); len(req) != 3 {
		t.Errorf("relation required %v", req)
	}
}

func FuzzParseAll(f *testing.F) {
	f.Add([]byte(`{"title":"t","sessions":[{"id":"s","start":"2023-05-08","turns":[{"speaker":"A","role":"user","text":"hi"},{"speaker":"B","text":"yo"}]}]}`))
	f.Add([]byte(`[{"question_id":"q","haystack_dates":["2023/05/20 (Sat) 02:21"],"haystack_sessions":[[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]]}]`))
	f.Add([]byte(`{"speaker_a":"A","speaker_b":"B","session_1":[{"speaker":"A","text":"x"}],"session_1_date_time":"1:56 pm on 8 May, 2023"}`))
	f.Add([]byte(`{"Amy":{"history":{"2023-04-27":[{"query":"q","response":"r"}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ParseAll(data)
		if err != nil {
			if ds != nil {
				t.Fatal("dialogues returned with an error")
			}
			return
		}
		for _, d := range ds {
			for _, s := range Segments(d) {
				_ = s.Text()
			}
		}
	})
}
