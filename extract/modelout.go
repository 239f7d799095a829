package extract

import (
	"regexp"
	"strings"
)

// reasoning matches the thinking blocks that reasoning models (qwen3,
// deepseek-r1 and others served through Ollama or vLLM) put before their
// answer, one expression per tag so a block ends at its own closing tag
// (not at another kind nested in it). An unclosed block runs to the end of
// the output.
var reasoning = []*regexp.Regexp{
	regexp.MustCompile(`(?is)<think>.*?(</think>|\z)`),
	regexp.MustCompile(`(?is)<thinking>.*?(</thinking>|\z)`),
	regexp.MustCompile(`(?is)<reasoning>.*?(</reasoning>|\z)`),
}

// StripReasoning removes a model's thinking blocks from its output, so the
// parsers see only the answer.
func StripReasoning(out string) string {
	if !strings.Contains(out, "<") {
		return out
	}
	for _, re := range reasoning {
		out = re.ReplaceAllString(out, "")
	}
	return out
}
