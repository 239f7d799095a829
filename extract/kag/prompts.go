package kag

import (
	"embed"
	"text/template"

	"github.com/kgstudio/kgstudio/extract"
)

//go:embed prompts/*.txt
var promptFS embed.FS

// Step is a call of the schema strategy's extraction of a chunk.
type Step string

// Steps of the extraction, in call order. A prompt key is "kag_" + step +
// "_" + language, e.g. "kag_ner_zh".
const (
	StepNER      Step = "ner"
	StepEvent    Step = "event"
	StepStd      Step = "std"
	StepRelation Step = "relation"
)

// Lang is a language with built-in prompts.
type Lang string

// Languages with built-in prompts.
const (
	LangEnglish Lang = "en"
	LangChinese Lang = "zh"
)

// PromptKey returns the extract.Config.Prompts key of a step's template.
func PromptKey(step Step, lang Lang) string { return "kag_" + string(step) + "_" + string(lang) }

// DefaultPrompts returns the built-in templates by key (a fresh map).
func DefaultPrompts() map[string]string {
	out := map[string]string{}
	for _, step := range []Step{StepNER, StepEvent, StepStd, StepRelation} {
		for _, lang := range []Lang{LangEnglish, LangChinese} {
			b, err := promptFS.ReadFile("prompts/" + string(step) + "_" + string(lang) + ".txt")
			if err != nil {
				panic("kag: embedded prompt missing: " + string(step) + "_" + string(lang)) // build-time invariant
			}
			out[PromptKey(step, lang)] = string(b)
		}
	}
	return out
}

// TypeView is one schema type as the templates see it.
type TypeView struct {
	Name, Alias, Kind, Description string
	// Properties lists "name (Type)" pairs, comma-separated.
	Properties string
}

// PromptData is what the templates see.
type PromptData struct {
	// Types are the entity and concept types (NER) or the event types.
	Types []TypeView
	// Text is the chunk text.
	Text string
	// Entities is a JSON list of {name, category} (std and relation steps).
	Entities string
	// Relations lists the allowed relations, "Subject -[name]-> Object".
	Relations []string
	// Known are the entities of the run's domain graph the text names
	// (NER step; empty without a domain graph).
	Known []extract.DomainEntity
}

type prompts map[string]*template.Template

func parsePrompts(overrides map[string]string) (prompts, error) {
	src := DefaultPrompts()
	for k, v := range overrides {
		if _, ok := src[k]; ok {
			src[k] = v
		}
	}
	p := prompts{}
	sample := PromptData{Types: []TypeView{{Name: "T"}}, Text: "x", Entities: "[]", Relations: []string{"a"}, Known: []extract.DomainEntity{{Name: "k", Type: "T"}}}
	for k, text := range src {
		t, err := extract.ParsePromptTemplate(k, text)
		if err != nil {
			return nil, err
		}
		if _, err := extract.RenderPrompt(t, sample); err != nil {
			return nil, err
		}
		p[k] = t
	}
	return p, nil
}

func (p prompts) render(step Step, lang Lang, d PromptData) (string, error) {
	return extract.RenderPrompt(p[PromptKey(step, lang)], d)
}
