package kag

import (
	"embed"
	"text/template"

	"github.com/kgstudio/kgstudio/extract"
)

//go:embed prompts/*.txt
var promptFS embed.FS

// Steps of the extraction, in call order. A prompt key is "kag_" + step +
// "_" + language, e.g. "kag_ner_zh".
const (
	StepNER      = "ner"
	StepEvent    = "event"
	StepStd      = "std"
	StepRelation = "relation"
)

// Languages with built-in prompts.
const (
	LangEnglish = "en"
	LangChinese = "zh"
)

// PromptKey returns the extract.Config.Prompts key of a step's template.
func PromptKey(step, lang string) string { return "kag_" + step + "_" + lang }

// DefaultPrompts returns the built-in templates by key (a fresh map).
func DefaultPrompts() map[string]string {
	out := map[string]string{}
	for _, step := range []string{StepNER, StepEvent, StepStd, StepRelation} {
		for _, lang := range []string{LangEnglish, LangChinese} {
			b, err := promptFS.ReadFile("prompts/" + step + "_" + lang + ".txt")
			if err != nil {
				panic("kag: embedded prompt missing: " + step + "_" + lang) // build-time invariant
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

func (p prompts) render(step, lang string, d PromptData) (string, error) {
	return extract.RenderPrompt(p[PromptKey(step, lang)], d)
}
