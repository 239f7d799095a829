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

var refPattern = regexp.MustCompile(`\[([ERC]?\d+)\]`)

// Cited lists the reference ids an answer cites that the context holds, in
// order of first citation: entities, relations and passages by their ids
// ([E1], [R2], [C3]), and a document cited by its reference number ([1],
// see References) as its passages' ids.
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
	docs := map[string][]string{}
	for _, r := range c.References() {
		docs[fmt.Sprint(r.N)] = r.Chunks
	}
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if known[id] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, m := range refPattern.FindAllStringSubmatch(answer, -1) {
		if chunks, ok := docs[m[1]]; ok {
			for _, id := range chunks {
				add(id)
			}
			continue
		}
		add(m[1])
	}
	return out
}

// Reference is a document the context's passages come from, numbered in
// the order its first passage ranks: an answer cites it as [N].
type Reference struct {
	N     int    `json:"n"`
	Title string `json:"title"`
	// Chunks are the reference ids (C1, ...) of its passages.
	Chunks []string `json:"chunks"`
}

// References lists the documents of the context's passages.
func (c Context) References() []Reference {
	var out []Reference
	at := map[int]int{}
	for _, ch := range c.Chunks {
		i, ok := at[ch.DocumentID]
		if !ok {
			title := ch.Document
			if title == "" {
				title = fmt.Sprintf("document %d", ch.DocumentID)
			}
			i = len(out)
			at[ch.DocumentID] = i
			out = append(out, Reference{N: i + 1, Title: title})
		}
		out[i].Chunks = append(out[i].Chunks, ch.Ref)
	}
	return out
}

// RenderForAnswer lays the context out for the answer prompt: the
// knowledge graph's entities and relations (left out when naive), the
// passages, each with the reference_id of its document, and the
// reference document list.
func (c Context) RenderForAnswer(naive bool) string {
	var b strings.Builder
	line := func(v any) {
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	if !naive {
		b.WriteString("Knowledge Graph Data (Entity):\n```json\n")
		for _, e := range c.Entities {
			line(struct {
				Name        string `json:"entity"`
				Type        string `json:"type"`
				Description string `json:"description,omitempty"`
			}{e.Name, e.Type, e.Description})
		}
		b.WriteString("```\n\nKnowledge Graph Data (Relationship):\n```json\n")
		for _, r := range c.Relations {
			line(struct {
				Source      string `json:"entity1"`
				Label       string `json:"relation"`
				Target      string `json:"entity2"`
				Description string `json:"description,omitempty"`
			}{r.Source, r.Label, r.Target, r.Description})
		}
		b.WriteString("```\n\n")
	}
	refs := c.References()
	doc := map[string]int{}
	for _, r := range refs {
		for _, ref := range r.Chunks {
			doc[ref] = r.N
		}
	}
	b.WriteString("Document Chunks (each entry's reference_id points into the Reference Document List):\n```json\n")
	for _, ch := range c.Chunks {
		line(struct {
			ReferenceID string `json:"reference_id"`
			Content     string `json:"content"`
		}{fmt.Sprint(doc[ch.Ref]), strings.TrimSpace(ch.Text)})
	}
	b.WriteString("```\n\nReference Document List:\n```\n")
	for _, r := range refs {
		fmt.Fprintf(&b, "[%d] %s\n", r.N, r.Title)
	}
	b.WriteString("```\n")
	return b.String()
}
