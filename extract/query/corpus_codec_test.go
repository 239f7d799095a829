package query

import (
	"context"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/community"
)

// A corpus read with its stored lexical indexes holds exactly the indexes
// NewCorpus builds (the BM25 postings, the names, descriptions, labels,
// edge keys and their postings, CJK included) and ranks alike in every
// mode.
func TestReadCorpus_EqualsBuilt(t *testing.T) {
	ctx := context.Background()
	g := carolGraph(t)
	chunks := carolChunks(t)
	// An edge whose endpoint is missing, and one sharing a description.
	g.Edges = append(g.Edges, extract.Edge{Source: "nobody", Target: "scrooge", Label: "sees"},
		extract.Edge{Source: g.Edges[0].Source, Target: g.Edges[0].Target, Label: "again", Description: g.Edges[0].Description})
	built := NewCorpus(g, chunks, nil)
	data := built.AppendLexical(nil)
	read, err := readCorpus(g, chunks, nil, string(data))
	if err != nil {
		t.Fatal(err)
	}
	// The stored postings are read as a directory, decoded on demand:
	// decoded whole, they are the built ones.
	read.bm25.postings = materialized(read.bm25.postings)
	read.lex.nodeDesc.post, read.lex.edgeDesc.post = materialized(read.lex.nodeDesc.post), materialized(read.lex.edgeDesc.post)
	read.lex.names.exact, read.lex.names.tok = materialized(read.lex.names.exact), materialized(read.lex.names.tok)
	if !reflect.DeepEqual(built.bm25, read.bm25) {
		t.Fatal("BM25 read back differs from the one built")
	}
	if !reflect.DeepEqual(built.lex, read.lex) {
		t.Fatal("keyword index read back differs from the one built")
	}
	if !reflect.DeepEqual(built.beside, read.beside) || !reflect.DeepEqual(built.besideW, read.besideW) || !reflect.DeepEqual(built.pos, read.pos) {
		t.Fatal("chunk order read back differs")
	}
	// The communities' index too, read into the corpus read back.
	r := community.Detect(g, community.Options{})
	if len(ReportedCommunities(r, len(g.Nodes))) < 3 {
		t.Fatalf("only %d communities", len(ReportedCommunities(r, len(g.Nodes))))
	}
	built.UseCommunities(r)
	if err := read.ReadCommunities(r, string(built.AppendCommunities(nil))); err != nil {
		t.Fatal(err)
	}
	if rc := read.communities(); rc.bm25 != nil {
		rc.bm25.postings = materialized(rc.bm25.postings)
	}
	if !reflect.DeepEqual(built.communities(), read.communities()) {
		t.Fatal("community index read back differs from the one built")
	}
	for _, q := range []string{"Who was Marley's partner?", "the clerk's fire in the cell", "北京大学"} {
		for _, mode := range Modes {
			req := Request{Question: q, Mode: mode, TopK: 10}
			a, err := built.Search(ctx, nil, req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := read.Search(ctx, nil, req)
			if err != nil {
				t.Fatal(err)
			}
			if ra, rb := render(a), render(b); ra != rb {
				t.Fatalf("%s %q: read back ranks otherwise", mode, q)
			}
		}
	}
}

// A form of another graph, of other chunks or communities, or damaged
// anywhere is an error, never a corpus that ranks wrongly or a panic.
func TestReadCorpus_Refuses(t *testing.T) {
	g := carolGraph(t)
	chunks := carolChunks(t)
	data := NewCorpus(g, chunks, nil).AppendLexical(nil)
	other := g
	other.Nodes = append([]extract.Node{}, g.Nodes...)
	other.Nodes[3].Key += "x"
	fewer := map[extract.ChunkRef]extract.Chunk{}
	for r, c := range chunks {
		if r.Index != 0 {
			fewer[r] = c
		}
	}
	if _, err := readCorpus(other, chunks, nil, string(data)); err == nil {
		t.Fatal("read the form of another graph")
	}
	if _, err := readCorpus(g, fewer, nil, string(data)); err == nil {
		t.Fatal("read the form of other chunks")
	}
	for n := 0; n < len(data); n += 1 + n/50 {
		if _, err := readCorpus(g, chunks, nil, string(data[:n])); err == nil {
			t.Fatalf("read a form cut at %d of %d bytes", n, len(data))
		}
	}
	if _, err := readCorpus(g, chunks, nil, string(data)+"\x00"); err == nil {
		t.Fatal("read a form with a byte too many")
	}
	built := NewCorpus(g, chunks, nil)
	r := community.Detect(g, community.Options{})
	built.UseCommunities(r)
	comm := built.AppendCommunities(nil)
	for n := 0; n < len(comm); n += 1 + n/50 {
		if err := NewCorpus(g, chunks, nil).ReadCommunities(r, string(comm[:n])); err == nil {
			t.Fatalf("read a community form cut at %d of %d bytes", n, len(comm))
		}
	}
	if err := NewCorpus(g, chunks, nil).ReadCommunities(community.Detect(g, community.Options{Resolution: 3}), string(comm)); err == nil {
		t.Fatal("read the form of other communities")
	}
}

func FuzzReadCorpus(f *testing.F) {
	g := extract.Graph{Nodes: []extract.Node{{Key: "scrooge", Name: "Scrooge", Description: "A miser."},
		{Key: "marley", Name: "Marley", Description: "Scrooge's partner."}},
		Edges: []extract.Edge{{Source: "scrooge", Target: "marley", Label: "partner of", Description: "They were partners."}}}
	chunks := map[extract.ChunkRef]extract.Chunk{{DocumentID: 1}: {DocumentID: 1, Text: "Marley was dead."},
		{DocumentID: 1, Index: 1}: {DocumentID: 1, Index: 1, Text: "Scrooge knew he was dead."}}
	f.Add(NewCorpus(g, chunks, nil).AppendLexical(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := readCorpus(g, chunks, nil, string(data))
		if err != nil {
			return
		}
		// Whatever reads must answer without a panic.
		if _, err := c.Search(context.Background(), nil, Request{Question: "Who was Marley?", Mode: ModeMix, TopK: 5}); err != nil {
			t.Fatal(err)
		}
	})
}

// materialized decodes every list of a term table read from its form
// into the in-memory form a built table has.
func materialized[T any](t *termTable[T]) *termTable[T] {
	out := newTermTable[T]()
	t.each(func(term string, list []T) { out.m[term] = list })
	return out
}

func readCorpus(g extract.Graph, chunks map[extract.ChunkRef]extract.Chunk, vi *VectorIndex, data string) (*Corpus, error) {
	l, err := ParseLexical(data)
	if err != nil {
		return nil, err
	}
	return l.Corpus(g, chunks, vi)
}
