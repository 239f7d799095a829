package query

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Render lays the context out for a prompt: entities and relations as one
// JSON object a line, then the chunks, each under its reference id, then
// the list of references.
func (c Context) Render() string {
	var b strings.Builder
	line := func(v any) {
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	b.WriteString("### Entities of the knowledge graph\n```json\n")
	for _, e := range c.Entities {
		line(struct {
			Ref         string `json:"ref"`
			Name        string `json:"entity"`
			Type        string `json:"type"`
			Description string `json:"description,omitempty"`
		}{e.Ref, e.Name, e.Type, e.Description})
	}
	b.WriteString("```\n\n### Relations of the knowledge graph\n```json\n")
	for _, r := range c.Relations {
		line(struct {
			Ref         string `json:"ref"`
			Source      string `json:"source"`
			Label       string `json:"relation"`
			Target      string `json:"target"`
			Keywords    string `json:"keywords,omitempty"`
			Description string `json:"description,omitempty"`
		}{r.Ref, r.Source, r.Label, r.Target, r.Keywords, r.Description})
	}
	b.WriteString("```\n\n### Document chunks\n")
	for _, ch := range c.Chunks {
		fmt.Fprintf(&b, "[%s]\n%s\n\n", ch.Ref, strings.TrimSpace(ch.Text))
	}
	b.WriteString("### References\n")
	for _, ch := range c.Chunks {
		if ch.Document != "" {
			fmt.Fprintf(&b, "[%s] %s, chunk %d\n", ch.Ref, ch.Document, ch.Index)
		} else {
			fmt.Fprintf(&b, "[%s] document %d, chunk %d\n", ch.Ref, ch.DocumentID, ch.Index)
		}
	}
	return b.String()
}

var refPattern = regexp.MustCompile(`\[([ERC]\d+)\]`)

// Cited lists the reference ids an answer cites that the context holds, in
// order of first citation.
func (c Context) Cited(answer string) []string {
	known := map[string]bool{}
	for _, e := range c.Entities {
		known[e.Ref] = true
	}
	for _, r := range c.Relations {
		known[r.Ref] = true
	}
	for _, ch := range c.Chunks {
		known[ch.Ref] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range refPattern.FindAllStringSubmatch(answer, -1) {
		if known[m[1]] && !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}
