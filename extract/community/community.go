package community

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// Community is one community of one level. Level 0 is the coarsest;
// each community of level L+1 lies inside one of level L, its parent.
type Community struct {
	ID     int `json:"id"`
	Level  int `json:"level"`
	Parent int `json:"parent"` // -1 at level 0
	Size   int `json:"size"`
	// TopNodes are the names of its best connected members, most first.
	TopNodes []string `json:"top_nodes"`
	Title    string   `json:"title"`
	// Members are its nodes' keys, best connected first.
	Members []string `json:"members,omitempty"`
}

// Result is a graph's communities.
type Result struct {
	Levels int `json:"levels"`
	// Modularity is each level's modularity, level 0 first.
	Modularity  []float64   `json:"modularity"`
	Communities []Community `json:"communities"`
	// Reports are the reports a model wrote (see ModelReport); the other
	// communities are reported offline (ReportOf).
	Reports []Report `json:"reports,omitempty"`
	// ReportFallbacks counts the communities whose model report could not
	// be had (a malformed answer, a failed call) and are reported offline.
	ReportFallbacks int `json:"report_fallbacks,omitempty"`
}

// Level returns the communities of one level, largest first.
func (r Result) Level(level int) []Community {
	var out []Community
	for _, c := range r.Communities {
		if c.Level == level {
			out = append(out, c)
		}
	}
	return out
}

// Options tune Detect.
type Options struct {
	// Resolution weighs the null model (1, the default, is modularity).
	Resolution float64
	// Seed orders the node visits (the result is the same for a seed).
	Seed uint64
	// TopNodes is how many names a community lists (default 5).
	TopNodes int
}

// Detect splits a graph into communities, level by level (see the
// package comment). Edges weigh their weight (1 when unset); an edge
// whose end is not a node of the graph is ignored.
func Detect(g extract.Graph, o Options) Result {
	res := cmp.Or(o.Resolution, 1)
	top := cmp.Or(o.TopNodes, 5)
	idx := make(map[string]int32, len(g.Nodes))
	keys := make([]string, 0, len(g.Nodes))
	names := make([]string, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		if _, ok := idx[n.Key]; ok {
			continue
		}
		idx[n.Key] = int32(len(keys))
		keys = append(keys, n.Key)
		names = append(names, cmp.Or(n.Name, n.Key))
	}
	edges := make([]edge, 0, len(g.Edges))
	for _, e := range g.Edges {
		a, okA := idx[e.Source]
		b, okB := idx[e.Target]
		if !okA || !okB {
			continue
		}
		w := e.Weight
		if w <= 0 {
			w = 1
		}
		if a > b {
			a, b = b, a
		}
		edges = append(edges, edge{a, b, w})
	}
	slices.SortFunc(edges, func(x, y edge) int { return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)) })
	// Parallel edges (two labels between one pair) add up.
	merged := edges[:0]
	for _, e := range edges {
		if n := len(merged); n > 0 && merged[n-1].a == e.a && merged[n-1].b == e.b {
			merged[n-1].w += e.w
			continue
		}
		merged = append(merged, e)
	}
	finest, qs := louvain(len(keys), merged, res, o.Seed)
	gr := build(len(keys), merged)
	out := Result{Levels: len(finest)}
	// Coarsest first.
	slices.Reverse(finest)
	slices.Reverse(qs)
	out.Modularity = qs
	// Each level's communities get ids in order of size (largest first),
	// numbered on from the level before.
	ids := make([][]int, len(finest)) // level -> local community -> id
	next := 0
	for l, level := range finest {
		k := 0
		for _, c := range level {
			k = max(k, int(c)+1)
		}
		members := make([][]int32, k)
		for i, c := range level {
			members[c] = append(members[c], int32(i))
		}
		order := make([]int, k)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(members[b]), len(members[a])) })
		ids[l] = make([]int, k)
		for _, c := range order {
			ids[l][c] = next
			ms := members[c]
			slices.SortStableFunc(ms, func(a, b int32) int {
				return cmp.Or(cmp.Compare(gr.deg[b], gr.deg[a]), strings.Compare(keys[a], keys[b]))
			})
			com := Community{ID: next, Level: l, Parent: -1, Size: len(ms)}
			if l > 0 {
				com.Parent = ids[l-1][finest[l-1][ms[0]]]
			}
			for _, m := range ms[:min(top, len(ms))] {
				com.TopNodes = append(com.TopNodes, names[m])
			}
			com.Title = title(com.TopNodes)
			com.Members = make([]string, len(ms))
			for i, m := range ms {
				com.Members[i] = keys[m]
			}
			out.Communities = append(out.Communities, com)
			next++
		}
	}
	return out
}

// title names a community by its best connected members.
func title(names []string) string {
	switch n := min(len(names), 3); n {
	case 0:
		return ""
	case 1:
		return names[0]
	default:
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
}

// Finding is one statement of a report with the passages it comes from.
type Finding struct {
	Text   string             `json:"text"`
	Chunks []extract.ChunkRef `json:"chunks"`
}

// Report describes a community. Without a model (OfflineReport): its
// title, a summary naming its main members and their types, and findings
// from its strongest relations (the relation's description, which an
// offline run takes from the sentence that states it, with its
// passages). A model's report (ModelReport) has its own title, summary
// and findings, and rates the community's importance.
type Report struct {
	Community int       `json:"community"`
	Title     string    `json:"title"`
	Summary   string    `json:"summary"`
	Findings  []Finding `json:"findings"`
	// Rating is a model's rating of the community's importance, 0 to 10
	// (0 for an offline report).
	Rating float64 `json:"rating,omitempty"`
	// By says who wrote it: ByOffline or ByModel.
	By ReportBy `json:"by"`
}

// Text is what a report says, as one text: its title, summary and
// findings, for search to rank and embed.
func (r Report) Text() string {
	var b strings.Builder
	b.WriteString(r.Title)
	b.WriteString(".\n")
	b.WriteString(r.Summary)
	for _, f := range r.Findings {
		b.WriteString("\n")
		b.WriteString(f.Text)
	}
	return b.String()
}

// ReportsOf are the reports of cs: the model's, for those it wrote one
// for, the others written offline from g (one pass over it).
func (r Result) ReportsOf(cs []Community, g extract.Graph) []Report {
	model := make(map[int]Report, len(r.Reports))
	for _, rep := range r.Reports {
		model[rep.Community] = rep
	}
	out := make([]Report, len(cs))
	var offline []Community
	var at []int
	for i, c := range cs {
		if rep, ok := model[c.ID]; ok {
			out[i] = rep
			continue
		}
		offline = append(offline, c)
		at = append(at, i)
	}
	if len(offline) > 0 {
		for j, rep := range OfflineReports(offline, g, 5) {
			out[at[j]] = rep
		}
	}
	return out
}

// OfflineReport writes c's report from g (at most maxFindings findings).
func OfflineReport(c Community, g extract.Graph, maxFindings int) Report {
	return OfflineReports([]Community{c}, g, maxFindings)[0]
}

// OfflineReports writes the reports of cs from g in one pass over its
// nodes and edges (each as OfflineReport would).
func OfflineReports(cs []Community, g extract.Graph, maxFindings int) []Report {
	maxFindings = cmp.Or(maxFindings, 5)
	// The communities of each node (several when cs span levels).
	of := map[string][]int{}
	for i, c := range cs {
		for _, k := range c.Members {
			of[k] = append(of[k], i)
		}
	}
	types := make([]map[string]int, len(cs))
	names := make([]map[string]string, len(cs))
	lone := make([][]int, len(cs)) // positions of members with mentions
	for i := range cs {
		types[i], names[i] = map[string]int{}, map[string]string{}
	}
	for p, n := range g.Nodes {
		for _, i := range of[n.Key] {
			names[i][n.Key] = cmp.Or(n.Name, n.Key)
			if n.Type != "" {
				types[i][n.Type]++
			}
			if len(n.Mentions) > 0 {
				lone[i] = append(lone[i], p)
			}
		}
	}
	// The relations inside each community, in the graph's order.
	inside := make([][]int, len(cs))
	for p, e := range g.Edges {
		if e.Source == e.Target {
			continue
		}
		for _, i := range of[e.Source] {
			if slices.Contains(of[e.Target], i) {
				inside[i] = append(inside[i], p)
			}
		}
	}
	out := make([]Report, len(cs))
	for i, c := range cs {
		out[i] = offlineReport(c, g, maxFindings, types[i], names[i], inside[i], lone[i])
	}
	return out
}

// offlineReport writes one community's report from what OfflineReports
// gathered of it: its types, its members' names, the positions of its
// inner edges and of its members with mentions.
func offlineReport(c Community, g extract.Graph, maxFindings int, types map[string]int, names map[string]string, inside, lone []int) Report {
	tl := slices.SortedFunc(maps.Keys(types), func(a, b string) int { return cmp.Or(cmp.Compare(types[b], types[a]), strings.Compare(a, b)) })
	var parts []string
	for _, t := range tl[:min(3, len(tl))] {
		parts = append(parts, fmt.Sprintf("%d %s", types[t], t))
	}
	r := Report{Community: c.ID, Title: c.Title, By: ByOffline}
	r.Summary = fmt.Sprintf("%d members around %s", c.Size, strings.Join(c.TopNodes, ", "))
	if c.Size == 1 {
		r.Summary = "One member, " + strings.Join(c.TopNodes, ", ")
	}
	if len(parts) > 0 {
		r.Summary += " (" + strings.Join(parts, ", ") + ")"
	}
	r.Summary += "."
	// The relations inside the community, heaviest first.
	es := make([]extract.Edge, len(inside))
	for j, p := range inside {
		es[j] = g.Edges[p]
	}
	slices.SortStableFunc(es, func(a, b extract.Edge) int { return cmp.Compare(b.Weight, a.Weight) })
	seen := map[string]bool{}
	for _, e := range es {
		// The relation's ends first, then what the passage says of it.
		text := names[e.Source] + " " + e.Label + " " + names[e.Target]
		if e.Label == "" || e.Label == "related_to" {
			text = names[e.Source] + " and " + names[e.Target]
		}
		if d := strings.Join(strings.Fields(e.Description), " "); d != "" {
			text += ": " + d
		}
		if seen[text] {
			continue
		}
		seen[text] = true
		r.Findings = append(r.Findings, Finding{Text: text, Chunks: chunksOf(e.Mentions)})
		if len(r.Findings) == maxFindings {
			break
		}
	}
	// A community without relations inside it (a lone pair, members
	// linked only through others) is reported by its members' own
	// descriptions and the passages that mention them.
	if len(r.Findings) == 0 {
		for _, p := range lone {
			n := g.Nodes[p]
			text := strings.TrimSpace(n.Description)
			if text == "" {
				text = cmp.Or(n.Name, n.Key)
			}
			r.Findings = append(r.Findings, Finding{Text: text, Chunks: chunksOf(n.Mentions)})
			if len(r.Findings) == maxFindings {
				break
			}
		}
	}
	return r
}

// chunksOf lists the passages of mentions, each once, in order.
func chunksOf(ms []extract.Mention) []extract.ChunkRef {
	var out []extract.ChunkRef
	for _, m := range ms {
		ref := extract.ChunkRef{DocumentID: m.DocumentID, Index: m.ChunkIndex}
		if !slices.Contains(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

// Compact returns r with members listed on its finest level only: each
// coarser community's members are its children's, so a stored result
// holds every node once (see Expand).
func (r Result) Compact() Result {
	out := r
	out.Communities = slices.Clone(r.Communities)
	for i := range out.Communities {
		if out.Communities[i].Level < r.Levels-1 {
			out.Communities[i].Members = nil
		}
	}
	return out
}

// Expand fills in the members of the coarser levels of a compacted
// result from their children, finest level first; a coarser community's
// members come child by child.
func (r *Result) Expand() {
	at := make(map[int]int, len(r.Communities))
	for i, c := range r.Communities {
		at[c.ID] = i
	}
	for l := r.Levels - 1; l > 0; l-- {
		for _, c := range r.Communities {
			if c.Level != l {
				continue
			}
			if p, ok := at[c.Parent]; ok && len(r.Communities[p].Members) < r.Communities[p].Size {
				r.Communities[p].Members = append(r.Communities[p].Members, c.Members...)
			}
		}
	}
}

// WriteJSON writes r as json.Marshal would, a community at a time into
// w, so that a result of a hundred thousand communities is never held in
// one encoder's buffer (json.Marshal keeps its buffer for reuse and
// copies it out: three times the text at once).
func (r Result) WriteJSON(w io.Writer) error {
	head, err := json.Marshal(struct {
		Levels     int       `json:"levels"`
		Modularity []float64 `json:"modularity"`
	}{r.Levels, r.Modularity})
	if err != nil {
		return err
	}
	parts := [][]byte{head[:len(head)-1], []byte(`,"communities":`)}
	if r.Communities == nil {
		parts = append(parts, []byte("null"))
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	for i, c := range r.Communities {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		sep := ","
		if i == 0 {
			sep = "["
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if r.Communities != nil {
		end := "]"
		if len(r.Communities) == 0 {
			end = "[]"
		}
		if _, err := io.WriteString(w, end); err != nil {
			return err
		}
	}
	tail, err := json.Marshal(struct {
		Reports         []Report `json:"reports,omitempty"`
		ReportFallbacks int      `json:"report_fallbacks,omitempty"`
	}{r.Reports, r.ReportFallbacks})
	if err != nil {
		return err
	}
	if len(tail) > 2 {
		_, err = io.WriteString(w, ","+string(tail[1:]))
	} else {
		_, err = io.WriteString(w, "}")
	}
	return err
}

// JSONSize estimates the bytes of r's JSON (WriteJSON), for a buffer to
// be sized once.
func (r Result) JSONSize() int {
	n := 64 + 24*len(r.Modularity)
	for _, c := range r.Communities {
		n += 100 + len(c.Title) + len(c.Title)/4
		for _, s := range c.TopNodes {
			n += len(s) + len(s)/4 + 3
		}
		for _, s := range c.Members {
			n += len(s) + 3
		}
	}
	return n
}
