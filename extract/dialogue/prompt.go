package dialogue

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"text/template"

	"github.com/kgstudio/kgstudio/extract"
)

//go:embed prompt_system.txt
var defaultSystemPrompt string

//go:embed prompt_user.tmpl
var userPromptText string

var userPrompt = template.Must(template.New("dialogue-user").Parse(userPromptText))

// PromptKey is the key of extract.Config.Prompts that replaces the system
// prompt of the dialogue strategy.
const PromptKey = "dialogue_system"

// SystemPrompt returns the built-in system prompt of the dialogue strategy.
func SystemPrompt() string { return defaultSystemPrompt }

// PromptInput is what the model is told about one segment.
type PromptInput struct {
	SegmentStartTimestamp string `json:"segment_start_timestamp"`
	UserTurnText          string `json:"user_turn_text"`
	AssistantTurnText     string `json:"assistant_turn_text"`
}

// UserPrompt renders the user message for a segment, given the node ids
// already in memory (structure nodes are left out: the system prompt names
// them).
func UserPrompt(seg Segment, existing []string) (string, error) {
	in, err := json.MarshalIndent(PromptInput{
		SegmentStartTimestamp: seg.Start,
		UserTurnText:          seg.User,
		AssistantTurnText:     seg.Assistant,
	}, "", "  ")
	if err != nil {
		return "", err
	}
	structure := map[string]bool{}
	for _, id := range StructureNodes {
		structure[id] = true
	}
	var ids []string
	for _, id := range existing {
		if !structure[id] {
			ids = append(ids, id)
		}
	}
	var b bytes.Buffer
	err = userPrompt.Execute(&b, struct {
		Input    string
		Existing []string
	}{string(in), ids})
	return b.String(), err
}

// ResponseSchema returns the JSON Schema of the model's answer, for
// structured output.
func ResponseSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	details := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"label":       str("short readable name of the node"),
			"description": str("what the dialogue says about the node"),
			"timestamp":   str("date or time of the thing, when the dialogue gives one"),
		},
		"required": []any{"label"},
	}
	nodeOp := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"node_id":      str("slash path under /User, /Assistant, /Events or /Knowledge"),
			"node_details": details,
		},
		"required": []any{"node_id", "node_details"},
	}
	relOp := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"source_node_id": str("path of the source node"),
			"target_node_id": str("path of the target node"),
			"relation_details": map[string]any{
				"type":       "object",
				"properties": map[string]any{"label": str("UPPER_SNAKE_CASE relation label")},
				"required":   []any{"label"},
			},
		},
		"required": []any{"source_node_id", "target_node_id", "relation_details"},
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			string(extract.OpAddNode):     map[string]any{"type": "array", "items": nodeOp},
			string(extract.OpUpdateNode):  map[string]any{"type": "array", "items": nodeOp},
			string(extract.OpAddRelation): map[string]any{"type": "array", "items": relOp},
		},
		"required": []any{string(extract.OpAddNode), string(extract.OpUpdateNode), string(extract.OpAddRelation)},
	}
}
