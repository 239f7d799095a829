package app

import (
	"cmp"
	"context"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/record"
)

// CommunityMembersJSON says which community of one level each node of a
// version is in, for the graph view's colouring by community: the level's
// communities (largest first) and each node key's community id.
type CommunityMembersJSON struct {
	Levels      int                   `json:"levels"`
	Level       int                   `json:"level"`
	Communities []CommunityMemberInfo `json:"communities"`
	Members     map[string]int        `json:"members"`
}

// CommunityMemberInfo names a community of CommunityMembersJSON (by its
// model report's title when it has one).
type CommunityMemberInfo struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Size  int    `json:"size"`
}

// Members lists a version's communities of one level (0 is the
// coarsest) with each node's, from the communities stored with the
// version (detected over its graph when none are). A level beyond the
// last is invalid.
func (cs *Communities) Members(ctx context.Context, v record.Version, level int) (CommunityMembersJSON, error) {
	r, ok := cs.storedCommunities(ctx, v)
	if !ok {
		// Detecting them reads the whole graph: a heavy request.
		ctx, release, err := cs.heavy.Enter(ctx)
		if err != nil {
			return CommunityMembersJSON{}, err
		}
		defer release()
		g, err := cs.store.LoadGraph(ctx, v.ID, false)
		if err != nil {
			return CommunityMembersJSON{}, err
		}
		r = cs.communitiesOf(ctx, v, g)
	}
	out := CommunityMembersJSON{Levels: r.Levels, Level: level, Communities: []CommunityMemberInfo{}, Members: map[string]int{}}
	if level < 0 || (level > 0 && level >= r.Levels) {
		return out, extract.Errorf(extract.KindInvalid, "level %d: %s has %d levels (0 is the coarsest)", level, v.Label(), r.Levels)
	}
	titles := titlesOf(r)
	for _, c := range r.Level(level) {
		out.Communities = append(out.Communities, CommunityMemberInfo{ID: c.ID, Title: titles(c), Size: c.Size})
		for _, k := range c.Members {
			out.Members[k] = c.ID
		}
	}
	return out, nil
}

// titlesOf names r's communities by their model reports' titles, else
// by their own (made from their best connected members).
func titlesOf(r community.Result) func(community.Community) string {
	byReport := make(map[int]string, len(r.Reports))
	for _, rep := range r.Reports {
		byReport[rep.Community] = rep.Title
	}
	return func(c community.Community) string { return cmp.Or(byReport[c.ID], c.Title) }
}
