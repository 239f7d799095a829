package handlers

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/tuple"
	"github.com/kgstudio/kgstudio/web"
)

// nonNegParam reads a path parameter that may be zero; -1 when invalid.
func nonNegParam(c echo.Context, name string) int {
	n, err := strconv.Atoi(c.Param(name))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func mentionKeys(ms []record.NodeMention) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range ms {
		if !seen[m.NodeKey] {
			seen[m.NodeKey] = true
			keys = append(keys, m.NodeKey)
		}
	}
	return keys
}

// highlight cuts a chunk's text into plain and highlighted spans from the
// node mentions (document byte offsets), and lists the chunk's entities.
// Overlapping mentions keep the first (longest at equal start).
func highlight(ch extract.Chunk, ms []record.NodeMention, nodes map[string]extract.Node) ([]web.Span, []web.NodeRow) {
	type iv struct {
		s, e int
		key  string
	}
	var ivs []iv
	count := map[string]int{}
	for _, m := range ms {
		count[m.NodeKey]++
		s, e := m.Start-ch.Start, m.End-ch.Start
		if m.Start == 0 && m.End == 0 || s < 0 || e > len(ch.Text) || s >= e {
			continue
		}
		ivs = append(ivs, iv{s, e, m.NodeKey})
	}
	sort.Slice(ivs, func(i, j int) bool {
		return ivs[i].s < ivs[j].s || ivs[i].s == ivs[j].s && ivs[i].e > ivs[j].e
	})
	var spans []web.Span
	pos := 0
	for _, x := range ivs {
		if x.s < pos {
			continue
		}
		if x.s > pos {
			spans = append(spans, web.Span{Text: ch.Text[pos:x.s]})
		}
		spans = append(spans, web.Span{Text: ch.Text[x.s:x.e], Type: nodes[x.key].Type, NodeKey: x.key})
		pos = x.e
	}
	if pos < len(ch.Text) {
		spans = append(spans, web.Span{Text: ch.Text[pos:]})
	}
	var rows []web.NodeRow
	for key, n := range count {
		nd := nodes[key]
		rows = append(rows, web.NodeRow{Key: key, Name: nd.Name, Type: nd.Type, Mentions: n})
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].Mentions > rows[j].Mentions || rows[i].Mentions == rows[j].Mentions && rows[i].Name < rows[j].Name
	})
	return spans, rows
}

// requestText renders a stored request (messages JSON) as readable text.
func requestText(raw string) string {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(raw), &req) != nil || len(req.Messages) == 0 {
		return raw
	}
	var b strings.Builder
	for i, m := range req.Messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("── " + m.Role + " ──\n")
		b.WriteString(m.Content)
	}
	return b.String()
}

// parsedItems lists what a tuple-strategy output yields. An item is new
// when no earlier round of the chunk produced it, or only produced it
// incomplete (an entity implied by a relation, or without a description; a
// relation without keywords). seen carries, across rounds, whether each
// item was complete.
func parsedItems(output string, seen map[string]bool) []web.ParsedItem {
	g, _ := tuple.Parse(output)
	var out []web.ParsedItem
	mark := func(k string, complete bool) bool {
		was, ok := seen[k]
		seen[k] = was || complete
		return complete && (!ok || !was)
	}
	for _, n := range g.Nodes {
		implicit, _ := n.Properties["implicit"].(bool)
		isNew := mark("n:"+n.Key, !implicit && n.Description != "")
		out = append(out, web.ParsedItem{Kind: "entity", Text: n.Name + " (" + n.Type + ")", New: isNew})
	}
	for _, e := range g.Edges {
		isNew := mark("e:"+e.Key(), e.Keywords != "" || e.Description != "")
		out = append(out, web.ParsedItem{Kind: "relation", Text: e.Source + " — " + e.Target + ": " + e.Keywords, New: isNew})
	}
	return out
}
