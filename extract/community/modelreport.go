package community

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// ReportBy says who wrote a community's report.
type ReportBy string

// Who wrote a report (Report.By).
const (
	ByOffline ReportBy = "offline"
	ByModel   ReportBy = "model"
)

// ErrMalformed marks a model's report that could not be read: not JSON,
// a title, summary or rating missing or out of range, or no finding that
// cites the facts it was given. The caller reports that community
// offline.
var ErrMalformed = errors.New("malformed report")

// What a report request shows the model of a community: its best
// connected members and its heaviest relations, each description clipped.
const (
	reportEntities  = 30
	reportRelations = 40
	reportFactText  = 300
	reportFindings  = 10
)

// reportSystem asks for a community report (GraphRAG's report: title,
// summary, rated importance, findings that cite their facts), in our
// words.
const reportSystem = `You describe one community of a knowledge graph: a group of entities linked more closely to each other than to the rest of the graph. You are given its entities and relations, each with an id (E1, E2, ... for entities, R1, R2, ... for relations).

Answer with one JSON object and nothing else:
{"title": "...", "summary": "...", "rating": 0, "findings": [{"text": "...", "refs": ["E1", "R2"]}]}

- title: a short, specific name for the community that names its main entities.
- summary: two to four sentences on what the community is about: who or what is in it and how they are connected.
- rating: a number from 0 to 10, how much the community matters to the whole collection (10: it is central to it).
- findings: three to eight statements about the community, each one to three sentences, with refs: the ids of the entities and relations that support it.

Say only what the entities and relations say. Every finding cites at least one id.`

// reportSchema is the JSON schema of a report answer.
func reportSchema() map[string]any {
	str := map[string]any{"type": "string"}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"title":   str,
			"summary": str,
			"rating":  map[string]any{"type": "number"},
			"findings": map[string]any{"type": "array", "items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"text": str,
					"refs": map[string]any{"type": "array", "items": str},
				},
				"required": []string{"text", "refs"},
			}},
		},
		"required": []string{"title", "summary", "rating", "findings"},
	}
}

// reportFacts is what a report request shows: the request and the
// passages each fact id stands for.
type reportFacts struct {
	req  llm.Request
	refs map[string][]extract.ChunkRef
}

// reportRequest builds the request of c's report over g.
func reportRequest(c Community, g extract.Graph) reportFacts {
	in := make(map[string]bool, len(c.Members))
	for _, k := range c.Members {
		in[k] = true
	}
	byKey := make(map[string]*extract.Node, len(c.Members))
	for i := range g.Nodes {
		if n := &g.Nodes[i]; in[n.Key] && byKey[n.Key] == nil {
			byKey[n.Key] = n
		}
	}
	f := reportFacts{refs: map[string][]extract.ChunkRef{}}
	var b strings.Builder
	fmt.Fprintf(&b, "Community of %d entities.\n\nEntities (id | name | type | description):\n", c.Size)
	shown := 0
	for _, k := range c.Members {
		n := byKey[k]
		if n == nil {
			continue
		}
		shown++
		id := "E" + strconv.Itoa(shown)
		name := cmp.Or(n.Name, n.Key)
		f.refs[id] = chunksOf(n.Mentions)
		fmt.Fprintf(&b, "%s | %s | %s | %s\n", id, oneLine(name), oneLine(n.Type), oneLine(extract.Clip(n.Description, reportFactText)))
		if shown == reportEntities {
			break
		}
	}
	var es []extract.Edge
	for _, e := range g.Edges {
		if in[e.Source] && in[e.Target] && e.Source != e.Target {
			es = append(es, e)
		}
	}
	slices.SortStableFunc(es, func(a, b extract.Edge) int { return cmp.Compare(b.Weight, a.Weight) })
	b.WriteString("\nRelations (id | source | relation | target | description):\n")
	for i, e := range es[:min(reportRelations, len(es))] {
		id := "R" + strconv.Itoa(i+1)
		f.refs[id] = chunksOf(e.Mentions)
		fmt.Fprintf(&b, "%s | %s | %s | %s | %s\n", id, oneLine(nameOf(byKey, e.Source)), oneLine(e.Label),
			oneLine(nameOf(byKey, e.Target)), oneLine(extract.Clip(e.Description, reportFactText)))
	}
	if len(es) == 0 {
		b.WriteString("(none)\n")
	}
	f.req = llm.Request{
		Messages:   []llm.Message{{Role: "system", Content: reportSystem}, {Role: "user", Content: b.String()}},
		JSONSchema: reportSchema(),
		Purpose:    "community-report",
	}
	return f
}

func nameOf(byKey map[string]*extract.Node, key string) string {
	if n := byKey[key]; n != nil && n.Name != "" {
		return n.Name
	}
	return key
}

// oneLine keeps a table cell on its line.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "/")
}

// ModelReport asks a model for c's report. The report's findings point
// at the passages of the facts they cite. A call that fails returns its
// error; an answer that cannot be read returns the call's record and an
// error wrapping ErrMalformed.
func ModelReport(ctx context.Context, client llm.Client, c Community, g extract.Graph) (Report, extract.CallRecord, error) {
	f := reportRequest(c, g)
	resp, err := client.Complete(ctx, f.req)
	if err != nil {
		return Report{}, resp.Record, err
	}
	r, err := parseReport(resp.Text, f.refs)
	if err != nil {
		return Report{}, resp.Record, fmt.Errorf("community %d: %w", c.ID, err)
	}
	r.Community = c.ID
	return r, resp.Record, nil
}

// reportAnswer is a report as a model writes it.
type reportAnswer struct {
	Title    string          `json:"title"`
	Summary  string          `json:"summary"`
	Rating   json.RawMessage `json:"rating"`
	Findings []struct {
		Text string   `json:"text"`
		Refs []string `json:"refs"`
	} `json:"findings"`
}

// parseReport reads a model's report: one JSON object (in a code fence
// or after thinking, too), its refs mapped to the passages of the facts
// they name (refs naming no fact are dropped, and so is a finding left
// without any). A missing title or summary, a rating that is not a
// number from 0 to 10, or no cited finding is ErrMalformed.
func parseReport(text string, facts map[string][]extract.ChunkRef) (Report, error) {
	text = extract.StripReasoning(text)
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return Report{}, fmt.Errorf("%w: no JSON object", ErrMalformed)
	}
	var a reportAnswer
	if err := json.Unmarshal([]byte(text[i:j+1]), &a); err != nil {
		return Report{}, fmt.Errorf("%w: %s", ErrMalformed, extract.JSONProblem([]byte(text[i:j+1]), err))
	}
	r := Report{Title: strings.TrimSpace(a.Title), Summary: strings.TrimSpace(a.Summary), By: ByModel}
	if r.Title == "" || r.Summary == "" {
		return Report{}, fmt.Errorf("%w: no title or summary", ErrMalformed)
	}
	rating, err := strconv.ParseFloat(strings.Trim(string(a.Rating), `" `), 64)
	if err != nil || !(rating >= 0 && rating <= 10) { // NaN too
		return Report{}, fmt.Errorf("%w: the rating is not a number from 0 to 10", ErrMalformed)
	}
	r.Rating = rating
	for _, fd := range a.Findings {
		t := strings.TrimSpace(fd.Text)
		var chunks []extract.ChunkRef
		cited := false
		for _, ref := range fd.Refs {
			ps, ok := facts[strings.ToUpper(strings.Trim(ref, "[]() "))]
			if !ok {
				continue
			}
			cited = true
			for _, p := range ps {
				if !slices.Contains(chunks, p) {
					chunks = append(chunks, p)
				}
			}
		}
		if t == "" || !cited {
			continue
		}
		r.Findings = append(r.Findings, Finding{Text: t, Chunks: chunks})
		if len(r.Findings) == reportFindings {
			break
		}
	}
	if len(r.Findings) == 0 {
		return Report{}, fmt.Errorf("%w: no finding cites the facts given", ErrMalformed)
	}
	return r, nil
}
