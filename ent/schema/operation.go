package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Operation holds the schema definition for the Operation entity: one entry
// of a dialogue run's ordered memory-operation log.
type Operation struct{ ent.Schema }

// Fields of the Operation.
func (Operation) Fields() []ent.Field {
	return []ent.Field{
		versionRef(),
		field.Int("turn"),
		field.Int("seq"),
		field.String("op"),
		field.String("node_id").Default(""),
		field.String("source_id").Default(""),
		field.String("target_id").Default(""),
		field.String("label").Default(""),
		field.Text("description").Default(""),
		field.String("timestamp").Default(""),
		field.String("status").Default("applied"),
		field.Text("reason").Default(""),
		// valid_at: when what the operation says became true (its session's
		// start); recorded_at: when the run applied it.
		field.String("valid_at").Default(""),
		field.String("recorded_at").Default(""),
		// attributes: a node operation's other attributes (status, ...).
		field.JSON("attributes", map[string]string{}).Optional(),
	}
}

// Edges of the Operation.
func (Operation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("version", ExtractionVersion.Type).Ref("operations").Field("version_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Operation.
func (Operation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version_id", "turn", "seq").Unique()}
}
