package query

import (
	"context"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed"
)

// carolChunks makes one chunk per sentence of the sample text.
func carolChunks(t *testing.T) map[extract.ChunkRef]extract.Chunk {
	t.Helper()
	b, err := os.ReadFile("../../app/sample/christmas_carol_stave_one.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[extract.ChunkRef]extract.Chunk{}
	for i, s := range regexp.MustCompile(`[^.!?]+[.!?]`).FindAllString(string(b), -1) {
		s = strings.TrimSpace(s)
		out[extract.ChunkRef{DocumentID: 1, Index: i}] = extract.Chunk{DocumentID: 1, Index: i, Text: s, End: len(s)}
	}
	return out
}

// A version past the exact limit is searched through HNSW and ranks
// chunks as the exact search does.
func TestSearch_ApproximateIndex(t *testing.T) {
	ctx := context.Background()
	chunks := carolChunks(t)
	if len(chunks) < 300 {
		t.Fatalf("only %d chunks", len(chunks))
	}
	list := make([]extract.Chunk, 0, len(chunks))
	for _, c := range chunks {
		list = append(list, c)
	}
	emb := embed.Offline{}
	vecs, _, err := Vectorize(ctx, emb, extract.Graph{}, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	exact := NewVectorIndex(vecs)
	approx := NewVectorIndexLimit(vecs, 0)
	if exact.Approximate() || !approx.Approximate() || approx.Len() != len(chunks) {
		t.Fatalf("exact approximate=%t, graph approximate=%t, %d vectors", exact.Approximate(), approx.Approximate(), approx.Len())
	}
	ce, ca := NewCorpus(extract.Graph{}, chunks, exact), NewCorpus(extract.Graph{}, chunks, approx)
	for _, q := range []string{"Who was Marley's partner?", "What did Scrooge say about Christmas?", "the clerk's fire in the cell", "Why did the gentlemen come to the counting-house?"} {
		req := Request{Question: q, Mode: ModeNaive, TopK: 10}
		a, err := ce.Search(ctx, emb, req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ca.Search(ctx, emb, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Chunks) == 0 || len(b.Chunks) == 0 || a.Chunks[0].Index != b.Chunks[0].Index {
			t.Fatalf("%q: exact and HNSW disagree on the first chunk: %v vs %v", q, a.Chunks, b.Chunks)
		}
		same := 0
		for _, x := range a.Chunks {
			for _, y := range b.Chunks {
				if x.Index == y.Index {
					same++
					// The vector half of the score is the same cosine.
					if math.Abs(x.Score-y.Score) > 1e-3 {
						t.Fatalf("%q: chunk %d scores %v exact, %v through HNSW", q, x.Index, x.Score, y.Score)
					}
				}
			}
		}
		if same < len(a.Chunks)*9/10 {
			t.Fatalf("%q: only %d of %d chunks shared", q, same, len(a.Chunks))
		}
	}
	// Vectors of another model are refused.
	if _, err := ca.Search(ctx, otherModel{}, Request{Question: "Marley", Mode: ModeNaive}); extract.KindOf(err) != extract.KindInvalid {
		t.Fatalf("another model's query vectors: %v", err)
	}
}

type otherModel struct{ embed.Offline }

func (otherModel) Model() string { return "other" }

// A vector index read back from its binary form (as a version stores it)
// ranks as the one built: the same context for each question, in every
// mode of the index; a damaged form is an error.
func TestVectorIndexBinary(t *testing.T) {
	ctx := context.Background()
	chunks := carolChunks(t)
	list := make([]extract.Chunk, 0, len(chunks))
	for _, c := range chunks {
		list = append(list, c)
	}
	g := extract.Graph{Nodes: []extract.Node{{Key: "scrooge", Name: "Scrooge", Type: "Person", Description: "A miser."},
		{Key: "marley", Name: "Marley", Type: "Person", Description: "Scrooge's dead partner."}},
		Edges: []extract.Edge{{Source: "scrooge", Target: "marley", Label: "partner of", Description: "Scrooge and Marley were partners."}}}
	emb := embed.Offline{}
	vecs, _, err := Vectorize(ctx, emb, g, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{math.MaxInt, 1000, 0} {
		built := NewVectorIndexLimit(vecs, limit)
		read, err := ReadVectorIndex(built.AppendBinary(nil))
		if err != nil {
			t.Fatal(err)
		}
		if read.Len() != built.Len() || read.Model != built.Model {
			t.Fatalf("limit %d: %d vectors of %q, built %d of %q", limit, read.Len(), read.Model, built.Len(), built.Model)
		}
		sameRanking(t, emb, NewCorpus(g, chunks, built), NewCorpus(g, chunks, read), "Who was Marley's partner?", "the clerk's fire in the cell")
	}
	b := NewVectorIndex(vecs).AppendBinary(nil)
	for _, bad := range [][]byte{b[:len(b)-1], append(append([]byte{}, b...), 0), []byte("KGVI\x09")} {
		if _, err := ReadVectorIndex(bad); err == nil {
			t.Fatalf("a damaged form of %d bytes was read", len(bad))
		}
	}
	if vi, err := ReadVectorIndex(nil); vi != nil || err != nil {
		t.Fatalf("empty form: %v, %v", vi, err)
	}
}

// A vector index stored with its postings apart ranks as the one built
// once its loader gives them: it asks only for the postings of the
// question's dimensions, never twice for the same, and a question whose
// postings are gone is refused as a conflict, not ranked without them.
func TestVectorIndexApart(t *testing.T) {
	ctx := context.Background()
	chunks := carolChunks(t)
	list := slices.Collect(maps.Values(chunks))
	g := extract.Graph{Nodes: []extract.Node{{Key: "scrooge", Name: "Scrooge", Type: "Person", Description: "A miser."},
		{Key: "marley", Name: "Marley", Type: "Person", Description: "Scrooge's dead partner."},
		{Key: "bob", Name: "Bob Cratchit", Type: "Person", Description: "Scrooge's clerk."}},
		Edges: []extract.Edge{{Source: "scrooge", Target: "marley", Label: "partner of", Description: "Scrooge and Marley were partners."},
			{Source: "bob", Target: "scrooge", Label: "clerk of", Description: "Bob Cratchit was Scrooge's clerk."}}}
	emb := embed.Offline{}
	vecs, _, err := Vectorize(ctx, emb, g, list, nil)
	if err != nil {
		t.Fatal(err)
	}
	built := NewVectorIndex(vecs)
	head, parts := built.AppendApart(nil)
	if len(parts) == 0 {
		t.Fatal("no postings kept apart")
	}
	read, err := ReadVectorIndex(head)
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	read.SetLoader(func(_ context.Context, names []string) (map[string][]byte, error) {
		out := map[string][]byte{}
		for _, n := range names {
			asked[n]++
			if p, ok := parts[n]; ok {
				out[n] = p
			}
		}
		return out, nil
	})
	sameRanking(t, emb, NewCorpus(g, chunks, built), NewCorpus(g, chunks, read), "Who was Marley's partner?", "the clerk's fire in the cell", "Who was Marley's partner?")
	if len(asked) == 0 || len(asked) >= len(parts) {
		t.Fatalf("asked for %d of %d postings", len(asked), len(parts))
	}
	for n, times := range asked {
		if _, ok := parts[n]; !ok || times != 1 {
			t.Fatalf("postings %s asked %d times (stored: %t)", n, times, ok)
		}
	}
	// Postings gone from the store: a conflict.
	gone, _ := ReadVectorIndex(head)
	gone.SetLoader(func(context.Context, []string) (map[string][]byte, error) { return nil, nil })
	_, err = NewCorpus(g, chunks, gone).Search(ctx, emb, Request{Question: "Who was Marley's partner?", Mode: ModeMix, TopK: 10})
	if extract.KindOf(err) != extract.KindConflict {
		t.Fatalf("postings gone: %v, want a conflict", err)
	}
	// And no way to read them: an error.
	alone, _ := ReadVectorIndex(head)
	if _, err := NewCorpus(g, chunks, alone).Search(ctx, emb, Request{Question: "Who was Marley's partner?", Mode: ModeMix, TopK: 10}); err == nil {
		t.Fatal("an index without its postings searched with no way to read them")
	}
}

// sameRanking fails t unless two corpora rank each question alike in
// the modes that read vectors.
func sameRanking(t *testing.T, emb extract.Embedder, want, got *Corpus, questions ...string) {
	t.Helper()
	for _, q := range questions {
		for _, mode := range []Mode{ModeNaive, ModeLocal, ModeMix} {
			req := Request{Question: q, Mode: mode, TopK: 10}
			a, err := want.Search(t.Context(), emb, req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := got.Search(t.Context(), emb, req)
			if err != nil {
				t.Fatal(err)
			}
			if ra, rb := render(a), render(b); ra != rb {
				t.Fatalf("%s %q: ranks otherwise:\n%s\nwant\n%s", mode, q, rb, ra)
			}
		}
	}
}

// render is a search context as text, to compare two rankings.
func render(c Context) string {
	var b strings.Builder
	for _, e := range c.Entities {
		b.WriteString("E " + e.Name + "\n")
	}
	for _, r := range c.Relations {
		b.WriteString("R " + r.Source + " " + r.Target + "\n")
	}
	for _, ch := range c.Chunks {
		b.WriteString("C " + strconv.Itoa(ch.DocumentID) + ":" + strconv.Itoa(ch.Index) + "\n")
	}
	return b.String()
}
