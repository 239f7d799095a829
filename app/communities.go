package app

import (
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/record"
)

// CommunitiesJSON is a version's communities at one level, each with its
// report (written without a model: see community.OfflineReport).
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
}

// Communities splits a version's graph into communities (Louvain with
// refinement, see extract/community) and lists one level's, largest
// first, with their reports. A level beyond the last is invalid.
func (q *Queries) Communities(ctx context.Context, v record.Version, level int) (CommunitiesJSON, error) {
	g, err := q.a.store.LoadGraph(ctx, v.ID, true)
	if err != nil {
		return CommunitiesJSON{}, err
	}
	r := community.Detect(g, community.Options{})
	out := CommunitiesJSON{Version: v.Label(), Levels: r.Levels, Level: level, LevelModularity: r.Modularity, Communities: []CommunityJSON{}}
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
	for _, c := range r.Level(level) {
		rep := community.OfflineReport(c, g, 5)
		if rep.Findings == nil {
			rep.Findings = []community.Finding{}
		}
		out.Communities = append(out.Communities, CommunityJSON{ID: c.ID, Level: c.Level, Parent: c.Parent, Size: c.Size,
			TopNodes: c.TopNodes, Title: c.Title, Summary: rep.Summary, Findings: rep.Findings})
	}
	return out, nil
}
