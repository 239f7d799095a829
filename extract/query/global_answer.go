package query

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// GraphRAG's global answer, map then reduce: each batch of ranked
// reports is asked for the points that help answer the question, each
// rated; the best points, with the communities they come from, are then
// asked for the answer, which cites those communities.

// Bounds of a global answer: the reports of one map call, the points the
// reduce call reads and their estimated tokens.
const (
	mapBatch     = 4
	reducePoints = 20
	reduceTokens = 4000
)

const mapSystem = `You read reports on communities of a knowledge graph (groups of closely linked entities) to help answer a question. From the reports below, list the points that help answer it.

Answer with one JSON object and nothing else:
{"points": [{"text": "...", "score": 0, "communities": [12]}]}

- text: one point, one to three sentences, said in your own words and only from the reports.
- score: from 0 to 100, how much the point helps answer the question (0: not at all).
- communities: the numbers of the communities whose reports support the point.

If the reports say nothing that helps, answer {"points": []}.`

const reduceSystem = `You answer a question from key points that analysts drew from reports on communities of a knowledge graph. The points are listed best first, each with its score and the communities it comes from.

Answer from the points only: merge what they say, drop what does not help, and say plainly when they do not answer the question. Cite the communities a statement comes from as [Community N]. Lay the answer out as: {{RESPONSE_TYPE}}.`

// mapSchema is the JSON schema of a map answer.
func mapSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"points": map[string]any{"type": "array", "items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"text":        map[string]any{"type": "string"},
					"score":       map[string]any{"type": "number"},
					"communities": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
				},
				"required": []string{"text", "score", "communities"},
			}},
		},
		"required": []string{"points"},
	}
}

// GlobalPoint is a key point of a global answer's map step.
type GlobalPoint struct {
	Text  string `json:"text"`
	Score int    `json:"score"`
	// Communities are the ids of the communities whose reports support
	// it.
	Communities []int `json:"communities"`
}

// GlobalAnswerResult is a global answer with what it came from.
type GlobalAnswerResult struct {
	Text string
	// Points are the points the reduce step read, best first.
	Points []GlobalPoint
	// Cited are the communities the answer cites, in order.
	Cited []int
	// Calls are the model calls made (cached ones included); Unreadable
	// counts the map answers that could not be read (their batch adds
	// no point).
	Calls      []extract.CallRecord
	Unreadable int
}

// GlobalAnswer answers a question from ranked community reports (see
// GlobalReports): the map step asks each batch of mapBatch reports for
// points (the batches at once), the reduce step answers from the best
// reducePoints of them. Without points, no reduce call is made and the
// text says so. A failed call returns its error.
func GlobalAnswer(ctx context.Context, client llm.Client, req AnswerRequest, reports []ReportHit) (GlobalAnswerResult, error) {
	var out GlobalAnswerResult
	nb := (len(reports) + mapBatch - 1) / mapBatch
	points := make([][]GlobalPoint, nb)
	calls := make([]extract.CallRecord, nb)
	errs := make([]error, nb)
	var wg sync.WaitGroup
	for b := range nb {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := reports[b*mapBatch : min((b+1)*mapBatch, len(reports))]
			points[b], calls[b], errs[b] = mapReports(ctx, client, req.Question, batch)
		}()
	}
	wg.Wait()
	var all []GlobalPoint
	for b := range nb {
		if calls[b].Key != "" || calls[b].Response != "" {
			out.Calls = append(out.Calls, calls[b])
		}
		switch {
		case errors.Is(errs[b], errUnreadable):
			out.Unreadable++
		case errs[b] != nil:
			return out, errs[b]
		}
		all = append(all, points[b]...)
	}
	slices.SortStableFunc(all, func(a, b GlobalPoint) int { return cmp.Compare(b.Score, a.Score) })
	tokens := 0
	for _, p := range all {
		if len(out.Points) == reducePoints || tokens > reduceTokens {
			break
		}
		tokens += extract.EstimateTokens(p.Text)
		out.Points = append(out.Points, p)
	}
	if len(out.Points) == 0 {
		out.Text = "The community reports say nothing that answers the question."
		return out, nil
	}
	var b strings.Builder
	for i, p := range out.Points {
		fmt.Fprintf(&b, "Point %d (score %d; communities %s): %s\n", i+1, p.Score, joinInts(p.Communities), p.Text)
	}
	layout := cmp.Or(strings.TrimSpace(req.ResponseType), DefaultResponseType)
	system := strings.Replace(reduceSystem, "{{RESPONSE_TYPE}}", layout, 1)
	if u := strings.TrimSpace(req.UserPrompt); u != "" {
		system += "\n\n" + u
	}
	msgs := []llm.Message{{Role: "system", Content: system}}
	for _, m := range req.History {
		if m.Role == "user" || m.Role == "assistant" {
			msgs = append(msgs, m)
		}
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: "Key points:\n" + b.String() + "\nQuestion: " + req.Question})
	resp, err := client.Complete(ctx, llm.Request{Messages: msgs, Purpose: "global-reduce"})
	if err != nil {
		return out, err
	}
	out.Calls = append(out.Calls, resp.Record)
	out.Text = strings.TrimSpace(extract.StripReasoning(resp.Text))
	known := map[int]bool{}
	for _, r := range reports {
		known[r.Community] = true
	}
	out.Cited = citedCommunities(out.Text, known)
	return out, nil
}

// errUnreadable marks a map answer that is not the expected JSON.
var errUnreadable = errors.New("unreadable map answer")

// mapReports is one map call: the points a batch of reports gives for
// the question, each citing communities of the batch (points that cite
// none of them, or score 0, are dropped).
func mapReports(ctx context.Context, client llm.Client, question string, batch []ReportHit) ([]GlobalPoint, extract.CallRecord, error) {
	var b strings.Builder
	in := map[int]bool{}
	for _, r := range batch {
		in[r.Community] = true
		fmt.Fprintf(&b, "Community %d (%d members", r.Community, r.Size)
		if r.Rating > 0 {
			fmt.Fprintf(&b, ", rated %g of 10", r.Rating)
		}
		fmt.Fprintf(&b, "): %s\n%s\n", r.Title, r.Summary)
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "- %s\n", f.Text)
		}
		b.WriteString("\n")
	}
	resp, err := client.Complete(ctx, llm.Request{
		Messages: []llm.Message{{Role: "system", Content: mapSystem},
			{Role: "user", Content: "Reports:\n\n" + b.String() + "Question: " + question}},
		JSONSchema: mapSchema(),
		Purpose:    "global-map",
	})
	if err != nil {
		return nil, extract.CallRecord{}, err
	}
	var ans struct {
		Points []struct {
			Text        string  `json:"text"`
			Score       float64 `json:"score"`
			Communities []int   `json:"communities"`
		} `json:"points"`
	}
	text, _, err := extract.RepairJSON(resp.Text)
	if err == nil {
		err = json.Unmarshal([]byte(text), &ans)
	}
	if err != nil {
		return nil, resp.Record, fmt.Errorf("%w: %v", errUnreadable, err)
	}
	var out []GlobalPoint
	for _, p := range ans.Points {
		var cs []int
		for _, c := range p.Communities {
			if in[c] && !slices.Contains(cs, c) {
				cs = append(cs, c)
			}
		}
		score := int(min(100, max(0, p.Score)))
		if t := strings.TrimSpace(p.Text); t != "" && score > 0 && len(cs) > 0 {
			out = append(out, GlobalPoint{Text: t, Score: score, Communities: cs})
		}
	}
	return out, resp.Record, nil
}

// communityCite finds "Community 12" and "Communities 3, 5 and 8".
var communityCite = regexp.MustCompile(`(?i)\bcommunit(?:y|ies)\s+(\d+(?:\s*(?:,|and|&)\s*\d+)*)`)

var digits = regexp.MustCompile(`\d+`)

// citedCommunities lists the known communities a text cites, in order.
func citedCommunities(text string, known map[int]bool) []int {
	var out []int
	for _, m := range communityCite.FindAllStringSubmatch(text, -1) {
		for _, d := range digits.FindAllString(m[1], -1) {
			if n, err := strconv.Atoi(d); err == nil && known[n] && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}
