package store

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// Packs read back what was written, joined packs read back as one list,
// and a damaged pack is an error, never a wrong mention.
func TestMentionPack_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	texts := []string{"", "", "Marley;", "a.b'c:d", "雅各·马利", "\x00x"}
	gen := func(n int) []extract.Mention {
		var out []extract.Mention
		for range n {
			m := extract.Mention{DocumentID: r.IntN(3), ChunkIndex: r.IntN(4), Start: r.IntN(1 << 20), Text: texts[r.IntN(len(texts))]}
			m.End = m.Start + r.IntN(300) - 5 // an end before the start too
			if r.IntN(10) == 0 {
				m.Start = -m.Start
			}
			out = append(out, m)
		}
		return out
	}
	for range 200 {
		a, b := gen(r.IntN(6)), gen(r.IntN(6))
		got, err := decodePack(encodePack(a) + encodePack(b))
		if err != nil {
			t.Fatal(err)
		}
		want := append(append([]extract.Mention(nil), a...), b...)
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("joined packs read back\n%+v\nwant\n%+v", got, want)
		}
	}
	whole := encodePack([]extract.Mention{{DocumentID: 1, ChunkIndex: 2, Start: 3, End: 9, Text: "Marley"}, {DocumentID: 1, ChunkIndex: 2, Start: 40, End: 45}})
	for cut := 1; cut < len(whole); cut++ {
		if _, err := decodePack(whole[:cut]); err == nil && whole[cut-1] != ';' {
			t.Errorf("a pack cut at %d of %q reads without an error", cut, whole)
		}
	}
	for _, bad := range []string{".1.2.3;", "1.2.3;", "1.2.3.4", "1.2.3.4'9:ab;", "1.2.zz!.4;", strings.Repeat("1", 30) + ".2.3.4;"} {
		if _, err := decodePack(bad); err == nil {
			t.Errorf("%q reads without an error", bad)
		}
	}
}

// A node given twice in one write keeps both namings' mentions, each
// place once, and places held already are left out.
func TestPackGraph_UniquePlaces(t *testing.T) {
	m := func(chunk, start int) extract.Mention {
		return extract.Mention{DocumentID: 1, ChunkIndex: chunk, Start: start, End: start + 2}
	}
	g := extract.Graph{Nodes: []extract.Node{
		{Key: "a", Mentions: []extract.Mention{m(0, 1), m(0, 1), m(1, 5)}},
		{Key: "a", Mentions: []extract.Mention{m(1, 5), m(2, 7)}},
		{Key: "b", Mentions: []extract.Mention{m(0, 9)}},
	}}
	held := storedPlaces{nodes: map[string]map[mentionPlace]bool{"b": {placeOf(m(0, 9)): true}}}
	p := packGraph(g, held)
	got, err := decodePack(p.nodes["a"])
	if err != nil {
		t.Fatal(err)
	}
	if want := []extract.Mention{m(0, 1), m(1, 5), m(2, 7)}; !reflect.DeepEqual(got, want) {
		t.Errorf("a: %+v, want %+v", got, want)
	}
	if _, ok := p.nodes["b"]; ok {
		t.Errorf("b's stored mention packed again: %q", p.nodes["b"])
	}
}
