package app

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/record"
)

// CommunitiesJSON is a version's communities at one level, each with its
// report: the model's when the run asked for model reports and one was
// written (community.ModelReport), else written without a model
// (community.OfflineReport).
type CommunitiesJSON struct {
	Version string `json:"version"`
	// Levels is how many levels there are; Level the one listed (0 is the
	// coarsest).
	Levels int `json:"levels"`
	Level  int `json:"level"`
	// Modularity is the listed level's; LevelModularity every level's,
	// level 0 first.
	Modularity      float64         `json:"modularity"`
	LevelModularity []float64       `json:"level_modularity"`
	Communities     []CommunityJSON `json:"communities"`
	// ModelReports is how many communities (every level) have a model's
	// report; ReportFallbacks how many the model was asked for but are
	// reported offline (a malformed answer, a failed call).
	ModelReports    int `json:"model_reports"`
	ReportFallbacks int `json:"report_fallbacks"`
}

// CommunityJSON is one community with its report.
type CommunityJSON struct {
	ID       int                 `json:"id"`
	Level    int                 `json:"level"`
	Parent   int                 `json:"parent"`
	Size     int                 `json:"size"`
	TopNodes []string            `json:"top_nodes"`
	Title    string              `json:"title"`
	Summary  string              `json:"summary"`
	Findings []community.Finding `json:"findings"`
	// Rating is the model's rating of the community's importance (0 to
	// 10; absent for an offline report); ReportBy is who wrote the
	// report, offline or model.
	Rating   float64            `json:"rating,omitempty"`
	ReportBy community.ReportBy `json:"report_by"`
}

// List splits a version's graph into communities (Louvain with
// refinement, see extract/community) and lists one level's, largest
// first, with their reports. A level beyond the last is invalid.
func (cs *Communities) List(ctx context.Context, v record.Version, level int) (CommunitiesJSON, error) {
	// It reads the whole graph: a heavy request (see Gate), so a burst of
	// them waits its turn instead of holding every graph at once.
	ctx, release, err := cs.heavy.Enter(ctx)
	if err != nil {
		return CommunitiesJSON{}, err
	}
	defer release()
	g, err := cs.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return CommunitiesJSON{}, err
	}
	r := cs.communitiesOf(ctx, v, g)
	out := CommunitiesJSON{Version: v.Label(), Levels: r.Levels, Level: level, LevelModularity: r.Modularity, Communities: []CommunityJSON{},
		ModelReports: len(r.Reports), ReportFallbacks: r.ReportFallbacks}
	if out.LevelModularity == nil {
		out.LevelModularity = []float64{}
	}
	if level < 0 || (level > 0 && level >= r.Levels) {
		return out, extract.Errorf(extract.KindInvalid, "level %d: %s has %d levels (0 is the coarsest)", level, v.Label(), r.Levels)
	}
	if r.Levels == 0 {
		return out, nil
	}
	out.Modularity = r.Modularity[level]
	comms := r.Level(level)
	reps := r.ReportsOf(comms, g)
	for i, c := range comms {
		rep := reps[i]
		if rep.Findings == nil {
			rep.Findings = []community.Finding{}
		}
		out.Communities = append(out.Communities, CommunityJSON{ID: c.ID, Level: c.Level, Parent: c.Parent, Size: c.Size,
			TopNodes: c.TopNodes, Title: cmp.Or(rep.Title, c.Title), Summary: rep.Summary, Findings: rep.Findings,
			Rating: rep.Rating, ReportBy: rep.By})
	}
	return out, nil
}

// Map is a version's graph drawn by community: one node per
// community of the top level (its id "community:N", its name the title of
// its model report, else the community's title, its degree its size),
// and an edge between two communities for the edges between their
// members, weighed by how many.
// Singletons (nodes alone in their community) are left out.
func (cs *Communities) Map(ctx context.Context, v record.Version) (extract.Subgraph, error) {
	g, err := cs.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return extract.Subgraph{}, err
	}
	r := cs.communitiesOf(ctx, v, g)
	out := extract.Subgraph{TotalNodes: len(g.Nodes), TotalEdges: len(g.Edges), Nodes: []extract.SubgraphNode{}, Edges: []extract.SubgraphEdge{}}
	of := map[string]int{}
	// A model's report names its community better than its top members.
	titles := map[int]string{}
	for _, rep := range r.Reports {
		titles[rep.Community] = rep.Title
	}
	for _, c := range r.Level(0) {
		if c.Size < 2 {
			continue
		}
		out.Nodes = append(out.Nodes, extract.SubgraphNode{ID: communityID(c.ID), Name: cmp.Or(titles[c.ID], c.Title), Type: "Community", Degree: c.Size})
		for _, k := range c.Members {
			of[k] = c.ID
		}
	}
	type pair struct{ a, b int }
	weight := map[pair]float64{}
	for _, e := range g.Edges {
		a, okA := of[e.Source]
		b, okB := of[e.Target]
		if !okA || !okB || a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		weight[pair{a, b}]++
	}
	for p, w := range weight {
		out.Edges = append(out.Edges, extract.SubgraphEdge{Source: communityID(p.a), Target: communityID(p.b), Label: "links", Weight: w})
	}
	slices.SortFunc(out.Edges, func(x, y extract.SubgraphEdge) int {
		return cmp.Or(strings.Compare(x.Source, y.Source), strings.Compare(x.Target, y.Target))
	})
	out.Matched = len(out.Nodes)
	out.Types = []extract.TypeCount{{Type: "Community", Count: len(out.Nodes)}}
	return out, nil
}

// Graph is the members of one community of the top level and
// the edges among them, as the graph API answers a query.
func (cs *Communities) Graph(ctx context.Context, v record.Version, id int) (extract.Subgraph, error) {
	g, err := cs.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return extract.Subgraph{}, err
	}
	r := cs.communitiesOf(ctx, v, g)
	for _, c := range r.Communities {
		if c.ID != id {
			continue
		}
		in := make(map[string]bool, len(c.Members))
		for _, k := range c.Members {
			in[k] = true
		}
		var sub extract.Graph
		for _, n := range g.Nodes {
			if in[n.Key] {
				sub.Nodes = append(sub.Nodes, n)
			}
		}
		for _, e := range g.Edges {
			if in[e.Source] && in[e.Target] {
				sub.Edges = append(sub.Edges, e)
			}
		}
		res, err := extract.SelectSubgraph(sub, extract.SubgraphQuery{})
		res.TotalNodes, res.TotalEdges = len(g.Nodes), len(g.Edges)
		return res, err
	}
	return extract.Subgraph{}, extract.Errorf(extract.KindNotFound, "%s has no community %d", v.Label(), id)
}

func communityID(id int) string { return "community:" + strconv.Itoa(id) }

// keepCommunities detects the communities of a version whose graph is
// complete, stores them with it (g is the graph when the caller holds
// it, else it is loaded) and returns them. A failure to store is logged,
// not returned: communities are detected again when asked.
func (cs *Communities) keepCommunities(ctx context.Context, v record.Version, g *extract.Graph) community.Result {
	if g == nil {
		loaded, err := cs.store.LoadGraph(ctx, v.ID, false)
		if err != nil {
			cs.log.Warn("communities not stored", "version_id", v.ID, "error", err)
			return community.Result{}
		}
		g = &loaded
	}
	r := community.Detect(*g, community.Options{})
	// Members on the finest level only: every node once (Expand). Written
	// into a buffer sized once, whose text is stored without a copy.
	compact := r.Compact()
	var b strings.Builder
	b.Grow(compact.JSONSize())
	err := compact.WriteJSON(&b)
	if err == nil {
		err = cs.store.SaveCommunities(ctx, v.ID, b.String())
	}
	if err != nil {
		cs.log.Warn("communities not stored", "version_id", v.ID, "error", err)
	}
	return r
}

// communitiesOf returns a version's stored communities, or detects them
// over g (its graph) for a version that has none stored (one finished
// before they were).
func (cs *Communities) communitiesOf(ctx context.Context, v record.Version, g extract.Graph) community.Result {
	if r, ok := cs.storedCommunities(ctx, v); ok {
		return r
	}
	return community.Detect(g, community.Options{})
}

// storedCommunities returns the communities stored with a version, if it
// has them.
func (cs *Communities) storedCommunities(ctx context.Context, v record.Version) (community.Result, bool) {
	r, _, ok := cs.storedCommunitiesSum(ctx, v)
	return r, ok
}

// storedCommunitiesSum is storedCommunities with a digest of the stored
// form, which names the communities in the stamps of what is built from
// them.
func (cs *Communities) storedCommunitiesSum(ctx context.Context, v record.Version) (community.Result, string, bool) {
	var r community.Result
	data, ok, err := cs.store.Communities(ctx, v.ID)
	if err != nil || !ok || json.Unmarshal([]byte(data), &r) != nil {
		return r, "", false
	}
	r.Expand()
	sum := sha256.Sum256([]byte(data))
	return r, hex.EncodeToString(sum[:8]), true
}
