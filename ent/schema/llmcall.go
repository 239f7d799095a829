package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"

	"github.com/kgstudio/kgstudio/extract"
)

// LLMCall holds the schema definition for the LLMCall entity: the cache of
// model calls, keyed by a hash of provider, model, messages and parameters.
type LLMCall struct{ ent.Schema }

// Mixin of the LLMCall.
func (LLMCall) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the LLMCall.
func (LLMCall) Fields() []ent.Field {
	return []ent.Field{
		field.String("key").NotEmpty().Unique().Immutable(),
		field.String("provider").GoType(extract.Provider("")),
		field.String("model"),
		field.String("purpose").Default(""),
		field.Text("request"),
		field.Text("response"),
		field.Int("prompt_tokens").Default(0),
		field.Int("output_tokens").Default(0),
		field.Int64("latency_ms").Default(0),
		// bad marks an answer that did not parse: the cache no longer
		// serves it, and a fresh answer replaces it.
		field.Bool("bad").Default(false),
	}
}
