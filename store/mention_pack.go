package store

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// A node's and an edge's mentions are stored in its own row, in the text
// column mentions, as a pack: one entry per mention, in the order written,
//
//	doc "." chunk "." start "." length [ "'" textLength ":" text ] ";"
//
// numbers in base 36 (strconv; a minus sign where negative), the text's
// length in bytes. doc and chunk are empty when they equal the previous
// entry's. A pack written at once names both in its first entry, so packs
// join by concatenation: a merge appends the new mentions to the stored
// ones in SQL (mentions || excluded.mentions) without reading them. A
// mention takes some 10 to 14 bytes where a row of its own took over 100
// with its indexes.

// mentionPlace is a mention's identity within one node or edge.
type mentionPlace struct{ doc, chunk, start, end int }

func placeOf(m extract.Mention) mentionPlace {
	return mentionPlace{m.DocumentID, m.ChunkIndex, m.Start, m.End}
}

// appendPack appends the pack of ms to dst.
func appendPack(dst []byte, ms []extract.Mention) []byte {
	for i, m := range ms {
		if i == 0 || m.DocumentID != ms[i-1].DocumentID {
			dst = strconv.AppendInt(dst, int64(m.DocumentID), 36)
		}
		dst = append(dst, '.')
		if i == 0 || m.DocumentID != ms[i-1].DocumentID || m.ChunkIndex != ms[i-1].ChunkIndex {
			dst = strconv.AppendInt(dst, int64(m.ChunkIndex), 36)
		}
		dst = append(dst, '.')
		dst = strconv.AppendInt(dst, int64(m.Start), 36)
		dst = append(dst, '.')
		dst = strconv.AppendInt(dst, int64(m.End-m.Start), 36)
		if m.Text != "" {
			dst = append(dst, '\'')
			dst = strconv.AppendInt(dst, int64(len(m.Text)), 36)
			dst = append(dst, ':')
			dst = append(dst, m.Text...)
		}
		dst = append(dst, ';')
	}
	return dst
}

// encodePack is appendPack into a new string.
func encodePack(ms []extract.Mention) string {
	if len(ms) == 0 {
		return ""
	}
	return string(appendPack(make([]byte, 0, 14*len(ms)), ms))
}

// walkPack calls fn with each mention of a pack in order until fn returns
// false. A pack that does not parse is an error naming where.
func walkPack(p string, fn func(extract.Mention) bool) error {
	var prev extract.Mention
	first := true
	for pos := 0; pos < len(p); {
		var m extract.Mention
		var field [4]int
		for f := range 4 {
			end := pos
			for end < len(p) && p[end] != '.' && p[end] != ';' && p[end] != '\'' {
				end++
			}
			if end == len(p) || (f < 3 && p[end] != '.') || (f == 3 && p[end] == '.') {
				return fmt.Errorf("stored mentions: malformed entry at byte %d", pos)
			}
			switch {
			case end == pos && f < 2:
				if first {
					return fmt.Errorf("stored mentions: first entry names no document or chunk")
				}
				field[f] = [2]int{prev.DocumentID, prev.ChunkIndex}[f]
			default:
				v, err := strconv.ParseInt(p[pos:end], 36, 64)
				if err != nil {
					return fmt.Errorf("stored mentions: bad number at byte %d", pos)
				}
				field[f] = int(v)
			}
			pos = end
			if f < 3 {
				pos++ // the dot
			}
		}
		m.DocumentID, m.ChunkIndex, m.Start, m.End = field[0], field[1], field[2], field[2]+field[3]
		if p[pos] == '\'' {
			colon := strings.IndexByte(p[pos:], ':')
			if colon < 0 {
				return fmt.Errorf("stored mentions: malformed text at byte %d", pos)
			}
			n, err := strconv.ParseInt(p[pos+1:pos+colon], 36, 64)
			start := pos + colon + 1
			if err != nil || n < 0 || start+int(n) >= len(p) || p[start+int(n)] != ';' {
				return fmt.Errorf("stored mentions: malformed text at byte %d", pos)
			}
			m.Text = p[start : start+int(n)]
			pos = start + int(n)
		}
		pos++ // the semicolon
		first, prev = false, m
		if !fn(m) {
			return nil
		}
	}
	return nil
}

// decodePack returns a pack's mentions.
func decodePack(p string) ([]extract.Mention, error) {
	var out []extract.Mention
	err := walkPack(p, func(m extract.Mention) bool {
		out = append(out, m)
		return true
	})
	return out, err
}

// mentionPacks are the packs a write appends to its nodes' and edges'
// rows, by node key and by edge identity.
type mentionPacks struct {
	nodes map[string]string
	edges map[extract.EdgeID]string
}

// storedPlaces are the mentions a version holds already, by node key and
// by edge identity: a write into a version with rows adds only others.
type storedPlaces struct {
	nodes map[string]map[mentionPlace]bool
	edges map[extract.EdgeID]map[mentionPlace]bool
}

// packGraph lists the mentions of g's nodes and edges as packs, each place
// (document, chunk and span) once per node or edge, in the order given (a
// key given twice adds the second one's after the first's), leaving out
// those in stored (which may be empty).
func packGraph(g extract.Graph, stored storedPlaces) mentionPacks {
	out := mentionPacks{nodes: map[string]string{}, edges: map[extract.EdgeID]string{}}
	var buf []extract.Mention
	// unique appends to buf the mentions of ms not in seen or held,
	// adding them to seen.
	unique := func(ms []extract.Mention, seen map[mentionPlace]bool, held map[mentionPlace]bool) {
		for _, m := range ms {
			p := placeOf(m)
			if seen[p] || held[p] {
				continue
			}
			seen[p] = true
			buf = append(buf, m)
		}
	}
	nodeSeen := map[string]map[mentionPlace]bool{}
	for _, n := range g.Nodes {
		if len(n.Mentions) == 0 {
			continue
		}
		seen := nodeSeen[n.Key]
		if seen == nil {
			seen = map[mentionPlace]bool{}
			nodeSeen[n.Key] = seen
		}
		buf = buf[:0]
		unique(n.Mentions, seen, stored.nodes[n.Key])
		if len(buf) > 0 {
			out.nodes[n.Key] += encodePack(buf)
		}
	}
	edgeSeen := map[extract.EdgeID]map[mentionPlace]bool{}
	for _, e := range g.Edges {
		if len(e.Mentions) == 0 {
			continue
		}
		id := e.ID()
		seen := edgeSeen[id]
		if seen == nil {
			seen = map[mentionPlace]bool{}
			edgeSeen[id] = seen
		}
		buf = buf[:0]
		unique(e.Mentions, seen, stored.edges[id])
		if len(buf) > 0 {
			out.edges[id] += encodePack(buf)
		}
	}
	return out
}

// placesOf returns the places of a stored pack (nil for an empty one).
func placesOf(p string) (map[mentionPlace]bool, error) {
	if p == "" {
		return nil, nil
	}
	out := map[mentionPlace]bool{}
	err := walkPack(p, func(m extract.Mention) bool {
		out[placeOf(m)] = true
		return true
	})
	return out, err
}
