package app

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"sync"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
	"github.com/kgstudio/kgstudio/extract/layout"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// A version's layout (where the graph page draws each node) is computed
// once, with the page's forces (extract/layout), and stored with the
// version's indexes: the graph page of a version laid out before draws its
// final picture at once, in every browser and replica, instead of settling
// it in the browser (at 100k nodes the browser took minutes). A serving
// worker lays out the versions it finishes, a serving process the
// versions it makes without a run (merges, edits, imports: written); any
// other version is laid out in the background the first time its whole
// graph is asked for.

// layoutStamp marks a stored layout with the graph it was made from: a
// graph with other counts reads none.
func layoutStamp(v record.Version) string { return fmt.Sprintf("layout1 %d %d", v.Nodes, v.Edges) }

// Positions are a stored layout: each node's place by key.
type Positions map[string][2]float32

// Layouts reads and makes versions' layouts.
type Layouts struct {
	store       *store.Store
	log         *slog.Logger
	communities *Communities
	// mu guards busy: the versions being laid out in the background.
	mu   sync.Mutex
	busy map[int]bool
	// one lays out one version at a time per workspace: a layout of
	// 100k nodes allocates some 570 MB over its run and holds both cores
	// for seconds.
	one sync.Mutex
}

// Stored returns a version's stored layout; ok is false when there is
// none for its graph as it is.
func (l *Layouts) Stored(ctx context.Context, v record.Version) (Positions, bool, error) {
	data, ok, err := l.store.VersionIndex(ctx, v.ID, store.IndexLayout, layoutStamp(v))
	if err != nil || !ok {
		return nil, false, err
	}
	pos, err := decodeLayout(data)
	if err != nil {
		l.log.
			// A layout that cannot be read is made again.
			Warn("stored layout unreadable", "version_id", v.ID, "error", err)
		return nil, false, nil
	}
	return pos, true, nil
}

// Later lays a finished version out in the background, once (a second
// call while it runs does nothing), unless it has no nodes.
func (l *Layouts) Later(v record.Version) {
	if v.Status != record.StatusDone || v.Nodes == 0 {
		return
	}
	l.mu.Lock()
	if l.busy[v.ID] {
		l.mu.Unlock()
		return
	}
	l.busy[v.ID] = true
	l.mu.Unlock()
	go func() {
		defer func() {
			l.mu.Lock()
			delete(l.busy, v.ID)
			l.mu.Unlock()
		}()
		if err := l.Make(context.Background(), v); err != nil {
			l.log.
				Warn("layout not stored", "version_id", v.ID, "error", err)
		}
	}()
}

// written readies a version made without a run (a merge, an edit, an
// import) for its first view and first question when this process
// serves, as a serving worker's final job readies a run's: its layout
// and its query indexes are made and stored in the background (a command
// run once would end before they were; the first view and question make
// them then).
func (c *Curation) written(v record.Version, err error) {
	if err != nil || c.runs.Workers() == 0 || v.Status != record.StatusDone {
		return
	}
	c.layouts.Later(v)
	go c.queries.storeIndexes(context.Background(), v.ID)
}

// Make lays a finished version out and stores the layout.
func (l *Layouts) Make(ctx context.Context, v record.Version) error {
	l.one.Lock()
	defer l.one.Unlock()
	if _, ok, err := l.Stored(ctx, v); err != nil || ok {
		return err
	}
	// Which document mentions each node matters only when there are
	// several (mentions are most of a graph's memory).
	several := len(v.DocumentIDs) > 1
	g, err := l.store.LoadGraphParts(ctx, v.ID, store.GraphParts{Mentions: several})
	if err != nil {
		return err
	}
	index, x, y, edges := layoutInput(g)
	// The components about one document are packed together, and each
	// node is drawn towards the others of its document (a version of one
	// document: of its top-level community), so a graph's subjects take
	// regions of their own.
	var hints layout.Hints
	if several {
		hints.Subject = make([]int32, len(g.Nodes))
		docs := map[int32]bool{}
		for i, n := range g.Nodes {
			hints.Subject[i] = mainDocument(n.Mentions)
			if hints.Subject[i] >= 0 {
				docs[hints.Subject[i]] = true
			}
		}
		if len(docs) > 1 {
			hints.Group = hints.Subject
		}
	}
	if hints.Group == nil {
		hints.Group = communityGroups(len(g.Nodes), index, l.communities.communitiesOf(ctx, v, g))
	}
	res := layout.RunWith(len(g.Nodes), x, y, edges, hints)
	keys := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		keys[i] = n.Key
	}
	return l.store.SaveVersionIndex(ctx, v.ID, store.IndexLayout, layoutStamp(v), encodeLayout(keys, res.X, res.Y))
}

// communityGroups is each of n nodes' top-level community (-1 for
// none), the nodes by index (layoutInput's).
func communityGroups(n int, index map[string]uint32, comm community.Result) []int32 {
	group := make([]int32, n)
	for i := range group {
		group[i] = -1
	}
	for _, c := range comm.Level(0) {
		for _, k := range c.Members {
			if i, ok := index[k]; ok {
				group[i] = int32(c.ID)
			}
		}
	}
	return group
}

// mainDocument is the document that mentions a node most (-1 for none).
func mainDocument(ms []extract.Mention) int32 {
	count := map[int]int{}
	best, most := -1, 0
	for _, m := range ms {
		count[m.DocumentID]++
		if c := count[m.DocumentID]; c > most || c == most && m.DocumentID < best {
			best, most = m.DocumentID, c
		}
	}
	return int32(best)
}

// layoutInput is a graph as the layout takes it: each node's index by
// key, each node seeded where the page would start it, and the edges by
// node index.
func layoutInput(g extract.Graph) (index map[string]uint32, x, y []float32, edges [][2]uint32) {
	index = make(map[string]uint32, len(g.Nodes))
	x, y = make([]float32, len(g.Nodes)), make([]float32, len(g.Nodes))
	for i, n := range g.Nodes {
		index[n.Key] = uint32(i)
		x[i], y[i] = layout.Seed(n.Key, len(g.Nodes))
	}
	edges = make([][2]uint32, 0, len(g.Edges))
	for _, e := range g.Edges {
		s, ok1 := index[e.Source]
		t, ok2 := index[e.Target]
		if ok1 && ok2 {
			edges = append(edges, [2]uint32{s, t})
		}
	}
	return index, x, y, edges
}

// encodeLayout writes positions as a count, then each node's key
// (length-prefixed) and its x and y (float32, little-endian).
func encodeLayout(keys []string, x, y []float32) []byte {
	size := binary.MaxVarintLen64
	for _, k := range keys {
		size += binary.MaxVarintLen64 + len(k) + 8
	}
	b := make([]byte, 0, size)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for i, k := range keys {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x[i]))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(y[i]))
	}
	return b
}

func decodeLayout(b []byte) (Positions, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("layout: bad count")
	}
	b = b[k:]
	out := make(Positions, n)
	for range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l+8 {
			return nil, fmt.Errorf("layout: cut short")
		}
		key := string(b[k : k+int(l)])
		b = b[k+int(l):]
		x, y := math.Float32frombits(binary.LittleEndian.Uint32(b)), math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.IsNaN(float64(y)) || math.IsInf(float64(y), 0) {
			return nil, fmt.Errorf("layout: node %q at %v, %v", key, x, y)
		}
		out[key] = [2]float32{x, y}
		b = b[8:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("layout: %d bytes left over", len(b))
	}
	return out, nil
}
