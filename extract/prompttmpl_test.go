package extract_test

import (
	"strings"
	"testing"

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
