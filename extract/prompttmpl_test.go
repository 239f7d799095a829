package extract_test

import (
	"strings"
	"testing"
	"text/template/parse"

	"github.com/kgstudio/kgstudio/extract"
)

// What a prompt needs parses; what could make the server build a huge
// prompt or loop without end is refused before anything runs, with the
// reason.
func TestParsePromptTemplate(t *testing.T) {
	for _, ok := range []string{
		"Extract from {{.Text}}",
		"{{range .Types}}- {{.Name}}{{if .Description}}: {{.Description}}{{end}}\n{{end}}",
		`{{if eq .Language "English"}}en{{else}}other{{end}} {{len .Types}}`,
		"{{range $i, $t := .Types}}{{$i}} {{$t.Name}}{{range .Properties}}{{.}}{{end}}{{end}}",
		"{{with .Text}}{{.}}{{end}}{{/* a comment */}}",
		"{{with .Types}}{{range .}}{{.Name}}{{end}}{{end}}",
		"{{$types := .Types}}{{range $types}}{{.Name}}{{end}}{{range $.Types}}{{end}}",
		`{{$n := 3}}{{if eq $n 3}}three{{end}}`,
	} {
		if _, err := extract.ParsePromptTemplate("p", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, c := range []struct{ text, why string }{
		{`{{range 6000}}{{printf "%1000000d" 1}}{{end}}`, "range"},
		{`{{range 300}}{{.Text}}{{end}}`, "range"},
		{`{{printf "%1000000000d" 1}}`, "may call only"},
		{`{{.Text | printf "%s%s%s"}}`, "may call only"},
		{`{{define "a"}}{{template "a" .}}{{end}}{{template "a" .}}`, "define"},
		{`{{block "b" .}}x{{end}}`, "template"},
		{`{{range .Types}}{{range .Properties}}{{range .Types}}x{{end}}{{end}}{{end}}`, "nest deeper"},
		{`{{range (call .F)}}x{{end}}`, "range"},
		// A loop count the template makes up, through a variable or dot.
		{`{{$n := 12000}}{{range $n}}{{range $n}}{{end}}{{end}}ok`, "range"},
		{`{{with 1000000000000}}{{range .}}{{end}}{{end}}`, "range"},
		{`{{$n := len .InputText}}{{range $n}}x{{end}}`, "range"},
		{`{{range $i, $t := .Types}}{{$k := 100000}}{{range $k}}{{end}}{{end}}`, "range"},
		{`{{with $x := 99999999}}{{range $x}}{{end}}{{end}}`, "range"},
		{strings.Repeat("x", extract.MaxTemplateBytes+1), "at most"},
		{`{{.Text`, "does not parse"},
	} {
		_, err := extract.ParsePromptTemplate("p", c.text)
		if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%.60q: error %v, want an invalid error saying %q", c.text, err, c.why)
		}
	}
}

// A prompt that renders past MaxPromptBytes stops there with a clear
// error instead of growing without bound.
func TestRenderPrompt_Bounded(t *testing.T) {
	tmpl, err := extract.ParsePromptTemplate("p", strings.Repeat("{{.Text}}", 3000))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("a", 1000)
	_, err = extract.RenderPrompt(tmpl, struct{ Text string }{text})
	if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("a 3 MB prompt: %v", err)
	}
	out, err := extract.RenderPrompt(tmpl, struct{ Text string }{"ab"})
	if err != nil || len(out) != 6000 {
		t.Fatalf("a 6 KB prompt: %d bytes, %v", len(out), err)
	}
}

// A run's config with such a template is refused by Validate, so no run
// is accepted with it.
func TestConfigValidate_RefusesPromptTemplates(t *testing.T) {
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyTuple
	cfg.Prompts = map[string]string{"tuple_user": `{{range 6000}}{{printf "%1000000d" 1}}{{end}}`}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "tuple_user") {
		t.Fatalf("Validate: %v", err)
	}
}

// An assignment inside if, with or range changes the outer variable at
// run time, where a check by scope cannot follow it: every assignment to
// a variable declared before is refused, naming the rule.
func TestParsePromptTemplate_RefusesAssignments(t *testing.T) {
	for _, text := range []string{
		`{{$x := .InputText}}{{if true}}{{$x = 9000000000000000000}}{{end}}{{range $x}}{{end}}`,
		`{{$x := .InputText}}{{with .InputText}}{{$x = 9000000000000000000}}{{end}}{{range $x}}{{end}}`,
		`{{$x := .InputText}}{{range .Known}}{{$x = 9000000000000000000}}{{end}}{{range $x}}{{end}}`,
		`{{$x := .Known}}{{$x = 5}}`,
	} {
		_, err := extract.ParsePromptTemplate("p", text)
		if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "may not assign") {
			t.Errorf("%q: error %v, want a refusal naming the assignment", text, err)
		}
	}
	// The index of a range counts, it holds no list.
	if _, err := extract.ParsePromptTemplate("p", `{{range $i, $e := .Known}}{{range $i}}{{end}}{{end}}`); err == nil {
		t.Error("a range over a range's index was accepted")
	}
}

// What the checks let through still renders within a budget: a range over
// a number in the data is refused when it runs, and ranges whose passes
// cost more than MaxPromptSteps stop with an error instead of running on.
func TestRenderPrompt_StepBudget(t *testing.T) {
	type data struct {
		N     int
		Items []int
	}
	tmpl, err := extract.ParsePromptTemplate("p", `{{range .N}}{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extract.RenderPrompt(tmpl, data{N: 1 << 62}); err == nil || !strings.Contains(err.Error(), "lists only") {
		t.Fatalf("a range over a number: %v", err)
	}
	tmpl, err = extract.ParsePromptTemplate("p", `{{range .Items}}{{range $.Items}}{{if .}}{{end}}{{end}}{{end}}ok`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := extract.RenderPrompt(tmpl, data{Items: make([]int, 100)})
	if err != nil || out != "ok" {
		t.Fatalf("100x100 passes: %q, %v", out, err)
	}
	_, err = extract.RenderPrompt(tmpl, data{Items: make([]int, 5000)})
	if err == nil || extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "steps") {
		t.Fatalf("5000x5000 passes: %v", err)
	}
	// The budget is each rendering's own: the next one starts afresh.
	if out, err := extract.RenderPrompt(tmpl, data{Items: make([]int, 100)}); err != nil || out != "ok" {
		t.Fatalf("after a refusal: %q, %v", out, err)
	}
}

// fuzzPromptData is data with long lists and a huge number, so a range
// that escaped the budget would run for ages.
type fuzzPromptData struct {
	InputText string
	N         int
	Known     []extract.DomainEntity
	Items     []int
	Map       map[string]int
}

// FuzzPromptTemplate: every template the checker accepts has each of its
// ranges guarded, and renders with long lists to an output or an invalid
// error (its size or its step budget) without running on.
func FuzzPromptTemplate(f *testing.F) {
	for _, s := range []string{
		`{{$x := .InputText}}{{if true}}{{$x = 9000000000000000000}}{{end}}{{range $x}}{{end}}`,
		`{{range .Items}}{{range $.Items}}{{.}}{{end}}{{end}}`,
		`{{range $i, $e := .Known}}{{$e.Name}}{{range $.Map}}{{$i}}{{end}}{{end}}`,
		`{{with .Items}}{{range .}}{{range $.Known}}x{{end}}{{end}}{{end}}`,
		`{{range .N}}{{end}}`,
		`{{$k := .Items}}{{range $k}}{{range $k}}{{end}}{{end}}`,
		`{{range .Items}}{{break}}{{end}}{{range .Map}}{{continue}}{{end}}`,
	} {
		f.Add(s)
	}
	data := fuzzPromptData{InputText: "text", N: 1 << 62, Known: make([]extract.DomainEntity, 3000), Items: make([]int, 3000), Map: map[string]int{}}
	for i := range 3000 {
		data.Map[strings.Repeat("k", i%7)+string(rune('a'+i%26))+strings.Repeat("z", i/26)] = i
	}
	f.Fuzz(func(t *testing.T, text string) {
		tmpl, err := extract.ParsePromptTemplate("p", text)
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error of kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		if ranges, guarded := strings.Count(text, "range"), strings.Count(tmpl.Tree.Root.String(), "_kgstudio_range"); guarded < countRanges(tmpl.Tree.Root) || guarded > ranges {
			t.Fatalf("%d ranges, %d guarded", countRanges(tmpl.Tree.Root), guarded)
		}
		out, err := extract.RenderPrompt(tmpl, data)
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("render error of kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		if len(out) > extract.MaxPromptBytes {
			t.Fatalf("%d bytes rendered", len(out))
		}
	})
}

// countRanges counts the range nodes of a template's tree.
func countRanges(n parse.Node) int {
	switch n := n.(type) {
	case *parse.ListNode:
		c := 0
		if n != nil {
			for _, x := range n.Nodes {
				c += countRanges(x)
			}
		}
		return c
	case *parse.IfNode:
		return countRanges(n.List) + countRanges(n.ElseList)
	case *parse.WithNode:
		return countRanges(n.List) + countRanges(n.ElseList)
	case *parse.RangeNode:
		return 1 + countRanges(n.List) + countRanges(n.ElseList)
	}
	return 0
}
