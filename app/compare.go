package app

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
)

// Comparison is two versions, their graphs and the diff between them. A
// comparison may be shared with other callers (see Compare): treat its
// graphs and result as read-only.
type Comparison struct {
	A, B    record.Version
	GA, GB  extract.Graph
	Options diff.Options
	Result  diff.Result
	// Communities says which communities of the coarsest level are new,
	// gone or changed (see CommunityChanges).
	Communities CommunityChanges
	// view is the page's view, built on first use (see View).
	view *viewOnce
}

// CompareJSON is a comparison as GET /api/compare and `kgstudio compare
// --json` give it: the diff's fields and the communities that changed.
type CompareJSON struct {
	diff.Result
	Communities CommunityChanges `json:"communities"`
}

// JSON is the comparison's JSON form.
func (c Comparison) JSON() CompareJSON {
	return CompareJSON{Result: c.Result, Communities: c.Communities}
}

// Bounds of the comparison cache: at most compareCacheEntries pairs and
// compareCacheElements nodes and edges (both sides of every pair) in all.
// A pair larger than the element bound is never cached.
const (
	compareCacheEntries  = 16
	compareCacheElements = 1_000_000
)

// compareKey names a comparison: the two versions as they are (a version
// is immutable once finished, and a later resume changes its status,
// counts or finish time) and the options it ran with.
type compareKey struct {
	a, b versionStamp
	opts diff.Options
}

// versionStamp is what identifies a version's content.
type versionStamp struct {
	id, nodes, edges int
	status           record.Status
	created          time.Time
	finished         time.Time
}

func stampOf(v record.Version) versionStamp {
	s := versionStamp{id: v.ID, nodes: v.Nodes, edges: v.Edges, status: v.Status, created: v.CreatedAt}
	if v.FinishedAt != nil {
		s.finished = *v.FinishedAt
	}
	return s
}

// Comparisons compares versions, caching what it compared last.
type Comparisons struct {
	store       *store.Store
	heavy       *Gate
	communities *Communities
	// cache holds the comparisons of the pairs asked last, each with
	// its union (see Compare).
	cache *lru.Cache[compareKey, Comparison]
}

// Compare loads two versions' graphs and compares them with the
// matching options of opts. When one side is marked as the reference (a
// first when both are), the result is scored against it; opts.Reference
// is ignored.
//
// The comparison of two versions that are not running is cached (bounded,
// least recently used first out), and concurrent requests for the same pair
// share one computation; a side that is queued or running is compared
// afresh every time. A computation is a heavy request (see Gate): when
// the gate stays full, Compare returns an error for which IsBusy is true.
func (s *Comparisons) Compare(ctx context.Context, aID, bID int, opts diff.Options) (Comparison, error) {

	va, vb, err := s.versionPair(ctx, aID, bID)
	if err != nil {
		return Comparison{}, err
	}
	opts = compareOptions(va, vb, opts)
	if va.Active() || vb.Active() {
		ctx, release, err := s.heavy.Enter(ctx)
		if err != nil {
			return Comparison{}, err
		}
		defer release()
		return s.compareVersions(ctx, va, vb, opts)
	}
	key := compareKey{a: stampOf(va), b: stampOf(vb), opts: opts}
	// A pair held or being compared is waited for without a slot; else a
	// slot first, and the cache again (another caller may have started
	// the pair while this one waited for the slot). The computation is
	// shared, so it does not stop when this caller goes away.
	if !s.cache.Has(key) {
		var release func()
		ctx, release, err = s.heavy.Enter(ctx)
		if err != nil {
			return Comparison{}, err
		}
		defer release()
	}
	c, err := s.cache.Get(ctx, key, func() (Comparison, error) {
		return s.compareVersions(context.WithoutCancel(ctx), va, vb, opts)
	})
	if err != nil {
		return Comparison{}, err
	}
	c.A, c.B = va, vb
	return c, nil
}

// comparisonSize is what a comparison weighs in the cache: the nodes and
// edges of both sides.
func comparisonSize(c Comparison) int {
	return len(c.GA.Nodes) + len(c.GA.Edges) + len(c.GB.Nodes) + len(c.GB.Edges)
}

// compareOptions sets the reference side of opts from the versions: a
// when it is the reference, else b when it is, else none.
func compareOptions(va, vb record.Version, opts diff.Options) diff.Options {
	opts.Reference = diff.RefNone
	switch {
	case va.Reference:
		opts.Reference = diff.RefA
	case vb.Reference:
		opts.Reference = diff.RefB
	}
	return opts
}

// versionPair loads the two versions of a comparison.
func (s *Comparisons) versionPair(ctx context.Context, aID, bID int) (record.Version, record.Version, error) {
	va, err := s.store.Version(ctx, aID)
	if err != nil {
		return record.Version{}, record.Version{}, err
	}
	vb, err := s.store.Version(ctx, bID)
	return va, vb, err
}

// compareVersions loads the graphs of two versions and diffs them with
// opts as given.
func (s *Comparisons) compareVersions(ctx context.Context, va, vb record.Version, opts diff.Options) (Comparison, error) {
	c := Comparison{A: va, B: vb, Options: opts, view: &viewOnce{}}
	var err error
	if c.GA, err = s.store.LoadGraph(ctx, va.ID, false); err != nil {
		return c, err
	}
	if c.GB, err = s.store.LoadGraph(ctx, vb.ID, false); err != nil {
		return c, err
	}
	c.Result = diff.Compare(c.GA, c.GB, c.Options)
	ra, rb := s.communities.communitiesOf(ctx, va, c.GA), s.communities.communitiesOf(ctx, vb, c.GB)
	c.Communities = compareCommunities(ra, rb, c.GA, c.GB, c.Result, c.Options)
	return c, nil
}

// CommunityChanges compares the communities of the coarsest level of two
// versions (those of two members or more; a node alone is in none).
// Communities are matched by their members, a node of a matching the one
// of b the diff matches it with: the pairs of greatest Jaccard overlap
// first, each community in one pair at most, a pair only from
// CommunityMatch. A community of b without a match is new, one of a
// without a match is gone, a matched pair whose members differ changed.
type CommunityChanges struct {
	// Before and After count the communities of a and b.
	Before    int `json:"before"`
	After     int `json:"after"`
	Unchanged int `json:"unchanged"`
	// New and Gone are largest first; Changed most changed first.
	New     []CommunityChange `json:"new"`
	Gone    []CommunityChange `json:"gone"`
	Changed []CommunityChange `json:"changed"`
}

// CommunityChange is a community that is new, gone or changed. A and B
// are its ids in the two versions' communities (-1 on the side without
// it); Title and TopNodes are b's (a's when it is gone), TitleA a's title
// when it differs; a title is the model report's when there is one. Added and Removed name up to communityNames of the
// members that joined and left it, best connected first, out of
// AddedCount and RemovedCount.
type CommunityChange struct {
	A            int      `json:"a"`
	B            int      `json:"b"`
	Title        string   `json:"title"`
	TitleA       string   `json:"title_a,omitempty"`
	TopNodes     []string `json:"top_nodes"`
	SizeA        int      `json:"size_a"`
	SizeB        int      `json:"size_b"`
	Jaccard      float64  `json:"jaccard"`
	Added        []string `json:"added"`
	Removed      []string `json:"removed"`
	AddedCount   int      `json:"added_count"`
	RemovedCount int      `json:"removed_count"`
}

// CommunityMatch is the least Jaccard overlap of members (shared over
// either's) at which a community of one version is taken for one of the
// other: a third, so a community that doubled in size still matches.
const CommunityMatch = 1.0 / 3

// communityNames bounds the member names a change lists.
const communityNames = 10

// compareCommunities matches the coarsest communities of ra (graph a)
// and rb (graph b). A node of a is the node of b of the same identity as
// the diff names nodes (normalised name, and type unless opts ignores
// it), or the one res pairs it with (a node renamed by an edit).
func compareCommunities(ra, rb community.Result, ga, gb extract.Graph, res diff.Result, opts diff.Options) CommunityChanges {
	// Node identities, numbered; each side's node keys to their numbers.
	nb := &nodeNumbers{ids: map[string]int32{}, ignoreType: opts.IgnoreType}
	keysA, keysB := nb.number(ga), nb.number(gb)
	for _, c := range res.Nodes.Changed {
		if at, ok := keysA[c.KeyA]; ok {
			keysB[c.KeyB] = at
		}
	}
	sa, sb := loadSide(ra, keysA, len(nb.names)), loadSide(rb, keysB, len(nb.names))
	out := CommunityChanges{Before: len(sa.cs), After: len(sb.cs), New: []CommunityChange{}, Gone: []CommunityChange{}, Changed: []CommunityChange{}}
	matchA, matchB := make([]int, len(sa.cs)), make([]int, len(sb.cs))
	for i := range matchA {
		matchA[i] = -1
	}
	for j := range matchB {
		matchB[j] = -1
	}
	for _, p := range overlaps(sa, sb) {
		if matchA[p.a] >= 0 || matchB[p.b] >= 0 || p.jaccard < CommunityMatch {
			continue
		}
		matchA[p.a], matchB[p.b] = p.b, p.a
		ca, cb := sa.cs[p.a], sb.cs[p.b]
		if p.shared == len(sa.members[p.a]) && p.shared == len(sb.members[p.b]) {
			out.Unchanged++
			continue
		}
		ch := CommunityChange{A: ca.ID, B: cb.ID, Title: sb.title(cb), TopNodes: cb.TopNodes, SizeA: ca.Size, SizeB: cb.Size, Jaccard: p.jaccard}
		if ta := sa.title(ca); ta != ch.Title {
			ch.TitleA = ta
		}
		ch.Added, ch.AddedCount = nb.list(sb.members[p.b], func(m int32) bool { return sa.of[m] != int32(p.a) })
		ch.Removed, ch.RemovedCount = nb.list(sa.members[p.a], func(m int32) bool { return sb.of[m] != int32(p.b) })
		out.Changed = append(out.Changed, ch)
	}
	all := func(int32) bool { return true }
	for j, c := range sb.cs {
		if matchB[j] < 0 {
			ch := CommunityChange{A: -1, B: c.ID, Title: sb.title(c), TopNodes: c.TopNodes, SizeB: c.Size, Removed: []string{}}
			ch.Added, ch.AddedCount = nb.list(sb.members[j], all)
			out.New = append(out.New, ch)
		}
	}
	for i, c := range sa.cs {
		if matchA[i] < 0 {
			ch := CommunityChange{A: c.ID, B: -1, Title: sa.title(c), TopNodes: c.TopNodes, SizeA: c.Size, Added: []string{}}
			ch.Removed, ch.RemovedCount = nb.list(sa.members[i], all)
			out.Gone = append(out.Gone, ch)
		}
	}
	bySize := func(x, y CommunityChange) int { return cmp.Compare(y.SizeA+y.SizeB, x.SizeA+x.SizeB) }
	slices.SortStableFunc(out.New, bySize)
	slices.SortStableFunc(out.Gone, bySize)
	slices.SortStableFunc(out.Changed, func(x, y CommunityChange) int {
		return cmp.Or(cmp.Compare(y.AddedCount+y.RemovedCount, x.AddedCount+x.RemovedCount), bySize(x, y))
	})
	return out
}

// nodeNumbers numbers the node identities (normalised name, and type
// unless ignored) of both sides of a comparison.
type nodeNumbers struct {
	ids        map[string]int32
	names      []string
	ignoreType bool
}

// number numbers g's nodes and maps each key to its node's number.
func (nb *nodeNumbers) number(g extract.Graph) map[string]int32 {
	keys := make(map[string]int32, len(g.Nodes))
	for i := range g.Nodes {
		n := &g.Nodes[i]
		name := extract.NormalizeName(n.Name)
		if name == "" {
			name = extract.NormalizeName(n.Key)
		}
		id := name
		if !nb.ignoreType {
			id += "\x1f" + strings.ToLower(n.Type)
		}
		at, ok := nb.ids[id]
		if !ok {
			at = int32(len(nb.names))
			nb.ids[id] = at
			nb.names = append(nb.names, cmp.Or(n.Name, n.Key))
		}
		if _, dup := keys[n.Key]; !dup {
			keys[n.Key] = at
		}
	}
	return keys
}

// list names the members keep keeps, up to communityNames, and counts
// them.
func (nb *nodeNumbers) list(ms []int32, keep func(int32) bool) ([]string, int) {
	out, n := []string{}, 0
	for _, m := range ms {
		if !keep(m) {
			continue
		}
		if n++; len(out) < communityNames {
			out = append(out, nb.names[m])
		}
	}
	return out, n
}

// communitySide is one side's communities of two members or more, by
// node number.
type communitySide struct {
	title   func(community.Community) string
	cs      []community.Community
	members [][]int32 // node numbers, best connected first, each once
	of      []int32   // node number -> index into cs, -1 for none
}

// loadSide reads r's first level over the n numbered nodes.
func loadSide(r community.Result, keys map[string]int32, n int) communitySide {
	s := communitySide{title: titlesOf(r), of: make([]int32, n)}
	for i := range s.of {
		s.of[i] = -1
	}
	for _, c := range r.Level(0) {
		if c.Size < 2 {
			continue
		}
		var ms []int32
		for _, k := range c.Members {
			i, ok := keys[k]
			if !ok || s.of[i] >= 0 {
				continue
			}
			s.of[i] = int32(len(s.cs))
			ms = append(ms, i)
		}
		s.cs = append(s.cs, c)
		s.members = append(s.members, ms)
	}
	return s
}

// communityPair is two overlapping communities, one of each side.
type communityPair struct {
	a, b, shared int
	jaccard      float64
}

// overlaps counts the shared members of every overlapping pair and
// sorts the pairs by overlap, best first.
func overlaps(sa, sb communitySide) []communityPair {
	shared := map[[2]int]int{}
	for j, ms := range sb.members {
		for _, m := range ms {
			if i := sa.of[m]; i >= 0 {
				shared[[2]int{int(i), j}]++
			}
		}
	}
	pairs := make([]communityPair, 0, len(shared))
	for k, n := range shared {
		pairs = append(pairs, communityPair{k[0], k[1], n, float64(n) / float64(len(sa.members[k[0]])+len(sb.members[k[1]])-n)})
	}
	slices.SortFunc(pairs, func(x, y communityPair) int {
		return cmp.Or(cmp.Compare(y.jaccard, x.jaccard), cmp.Compare(y.shared, x.shared), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	return pairs
}
