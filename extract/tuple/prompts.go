package tuple

import (
	"embed"
	"encoding/json"
	"strings"
	"text/template"

	"github.com/kgstudio/kgstudio/extract"
)

//go:embed prompts/*.txt
var promptFS embed.FS

// Prompt keys in extract.Config.Prompts. Each value is a text/template;
// see PromptData for the fields a template can use.
const (
	PromptSystem   = "tuple_system"   // system message of the extraction conversation
	PromptUser     = "tuple_user"     // first user message, with the chunk text
	PromptContinue = "tuple_continue" // user message of each gleaning round
	PromptSummary  = "tuple_summary"  // merges description fragments
	PromptExamples = "tuple_examples" // worked examples inserted into the system message
)

var promptFiles = map[string]string{
	PromptSystem:   "prompts/system.txt",
	PromptUser:     "prompts/user.txt",
	PromptContinue: "prompts/continue.txt",
	PromptSummary:  "prompts/summary.txt",
	PromptExamples: "prompts/examples.txt",
}

// DefaultEntityTypes are used when the config names none.
var DefaultEntityTypes = []string{"Person", "Creature", "Organization", "Location", "Event", "Concept", "Method", "Content", "Data", "Artifact", "NaturalObject"}

// DefaultLanguage is the output language when the config names none.
const DefaultLanguage = "English"

// PromptData is what the templates see.
type PromptData struct {
	TupleDelimiter      string
	CompletionDelimiter string
	// EntityTypes is the comma-separated list of types.
	EntityTypes string
	Language    string
	// Examples is the rendered PromptExamples template (system only).
	Examples string
	// InputText is the chunk text (user only).
	InputText string
	// Known are the entities of the run's domain graph the text names
	// (user only; empty without a domain graph).
	Known []extract.DomainEntity
	// Name, DescriptionType, Fragments (also as FragmentsJSON) and
	// MaxTokens feed the summary template.
	Name string
	// DescriptionType says what Name names, DescriptionEntity or
	// DescriptionRelation; empty when the caller does not say.
	DescriptionType DescriptionKind
	Fragments       []string
	// FragmentsJSON is Fragments as a JSON list of strings, one a line;
	// Render fills it in when empty.
	FragmentsJSON string
	// MaxTokens bounds the summary's length, in tokens.
	MaxTokens int
	// MaxWords is MaxTokens under the name summary templates used before
	// they spoke of tokens; Render fills it in when zero.
	MaxWords int
}

// DescriptionKind says what a merged description describes.
type DescriptionKind string

// What a summary describes (PromptData.DescriptionType).
const (
	DescriptionEntity   DescriptionKind = "entity"
	DescriptionRelation DescriptionKind = "relation"
)

// DefaultPrompts returns the built-in templates by key. The map is a fresh
// copy the caller may edit and put into extract.Config.Prompts.
func DefaultPrompts() map[string]string {
	out := make(map[string]string, len(promptFiles))
	for k, f := range promptFiles {
		b, err := promptFS.ReadFile(f)
		if err != nil {
			panic("tuple: embedded prompt missing: " + f) // build-time invariant
		}
		out[k] = string(b)
	}
	return out
}

// Prompts is a parsed set of templates.
type Prompts struct {
	t map[string]*template.Template
}

// ParsePrompts parses the defaults overridden by any tuple_* entries of
// overrides. A template that does not parse is a KindInvalid error naming
// its key.
func ParsePrompts(overrides map[string]string) (*Prompts, error) {
	src := DefaultPrompts()
	for k, v := range overrides {
		if _, ok := src[k]; ok {
			src[k] = v
		}
	}
	p := &Prompts{t: map[string]*template.Template{}}
	for k, text := range src {
		t, err := extract.ParsePromptTemplate(k, text)
		if err != nil {
			return nil, err
		}
		p.t[k] = t
	}
	// Render once with sample data so a bad field reference fails now.
	sample := PromptData{TupleDelimiter: TupleDelimiter, CompletionDelimiter: CompletionDelimiter, EntityTypes: "Person", Language: DefaultLanguage, InputText: "x", Name: "x", DescriptionType: DescriptionEntity, Fragments: []string{"x"}, MaxTokens: 1, Known: []extract.DomainEntity{{Name: "k", Type: "T"}}}
	for k := range p.t {
		if _, err := p.Render(k, sample); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Render executes the template key with data. For PromptSystem the examples
// template is rendered first and passed in as Examples; FragmentsJSON and
// MaxWords are derived from Fragments and MaxTokens when not set.
func (p *Prompts) Render(key string, data PromptData) (string, error) {
	t, ok := p.t[key]
	if !ok {
		return "", extract.Errorf(extract.KindInvalid, "unknown prompt %q", key)
	}
	if data.FragmentsJSON == "" {
		data.FragmentsJSON = jsonList(data.Fragments)
	}
	if data.MaxWords == 0 {
		data.MaxWords = data.MaxTokens
	}
	if key == PromptSystem {
		ex, err := p.Render(PromptExamples, data)
		if err != nil {
			return "", err
		}
		data.Examples = strings.TrimSpace(ex)
	}
	return extract.RenderPrompt(t, data)
}

// jsonList writes strings as a JSON list, one a line, leaving <, > and &
// as they are.
func jsonList(items []string) string {
	if items == nil {
		items = []string{}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(items) // strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}
