package extract

import (
	"regexp"
	"strings"
)

// reasoning matches the thinking blocks that reasoning models (qwen3,
// deepseek-r1 and others served through Ollama or vLLM) put before their
// answer. An unclosed block runs to the end of the output.
var reasoning = regexp.MustCompile(`(?is)<(think|thinking|reasoning)>.*?(</(think|thinking|reasoning)>|\z)`)

// StripReasoning removes a model's thinking blocks from its output, so the
// parsers see only the answer.
func StripReasoning(out string) string {
	if !strings.Contains(out, "<") {
		return out
	}
	return reasoning.ReplaceAllString(out, "")
}
