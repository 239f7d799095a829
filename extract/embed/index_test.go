package embed

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"
	"unsafe"
)

// clustered returns n unit vectors of dims components drawn around a few
// hundred centres, as text embeddings gather by topic: a vector's cosine
// with its centre is about 0.8.
func clustered(rng *rand.Rand, n, dims int) [][]float32 {
	const centres = 256
	cs := make([][]float32, centres)
	for i := range cs {
		cs[i] = make([]float32, dims)
		for j := range cs[i] {
			cs[i][j] = float32(rng.NormFloat64())
		}
		Normalize(cs[i])
	}
	noise := 0.75 / float32(math.Sqrt(float64(dims)))
	out := make([][]float32, n)
	for i := range out {
		c := cs[rng.Intn(centres)]
		v := make([]float32, dims)
		for j := range v {
			v[j] = c[j] + noise*float32(rng.NormFloat64())
		}
		Normalize(v)
		out[i] = v
	}
	return out
}

// recallAt is the share of the exact top k the index finds.
func recallAt(ix *Index, qs [][]float32, k int) float64 {
	found, total := 0, 0
	for _, q := range qs {
		want := map[int]bool{}
		for _, h := range ix.Exact(q, k) {
			want[h.I] = true
		}
		for _, h := range ix.Search(q, k) {
			if want[h.I] {
				found++
			}
		}
		total += len(want)
	}
	return float64(found) / float64(total)
}

func TestIndexExact(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	vecs := clustered(rng, 500, 32)
	ix := NewIndex(vecs)
	if ix.Approximate() {
		t.Fatal("a small set should be searched exactly")
	}
	q := vecs[17]
	hits := ix.Search(q, 5)
	if len(hits) != 5 || hits[0].I != 17 {
		t.Fatalf("hits = %v, want 17 first", hits)
	}
	// Against a plain sort of every score.
	all := make([]Hit, len(vecs))
	for i, v := range vecs {
		all[i] = Hit{i, Dot(q, v)}
	}
	sortHits(all)
	ids := func(hs []Hit) []int {
		var out []int
		for _, h := range hs {
			out = append(out, h.I)
		}
		return out
	}
	if !slices.Equal(ids(hits), ids(all[:5])) {
		t.Fatalf("exact top 5 = %v, sort gives %v", hits, all[:5])
	}
	if got := ix.Search(q, 1000); len(got) != len(vecs) {
		t.Fatalf("k past the size returns %d hits", len(got))
	}
}

func TestIndexHNSW(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	vecs := clustered(rng, 3000, 64)
	ix := NewIndexLimit(vecs[:10], 0)
	if !ix.Approximate() {
		t.Fatal("limit 0 should build the graph")
	}
	vecs, qs := vecs[:2950], vecs[2950:]
	ix = NewIndexLimit(vecs, 0)
	if r := recallAt(ix, qs, 10); r < 0.95 {
		t.Fatalf("recall@10 = %.3f, want >= 0.95", r)
	}
	if hits := ix.Search(vecs[42], 3); len(hits) == 0 || hits[0].I != 42 {
		t.Fatalf("a stored vector should find itself first: %v", hits)
	}
}

// BenchmarkIndex measures the index on 100k vectors of 768 dimensions
// (KGSTUDIO_BENCH_VECTORS sets another count): build time and memory,
// query p50 and recall@10 against exact search, and the exact scan's p50
// for comparison. The queries are held out from the same distribution.
func BenchmarkIndex(b *testing.B) {
	n, dims, queries := 100_000, 768, 200
	if v, err := strconv.Atoi(os.Getenv("KGSTUDIO_BENCH_VECTORS")); err == nil && v > 0 {
		n = v
	}
	rng := rand.New(rand.NewSource(1))
	vecs := clustered(rng, n+queries, dims)
	vecs, qs := vecs[:n], vecs[n:]

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	ix := NewIndexLimit(vecs, 0)
	build := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	p50 := func(search func(q []float32)) float64 {
		ts := make([]float64, 0, queries)
		for _, q := range qs {
			s := time.Now()
			search(q)
			ts = append(ts, float64(time.Since(s).Microseconds())/1000)
		}
		sort.Float64s(ts)
		return ts[len(ts)/2]
	}
	exact := p50(func(q []float32) { ix.Exact(q, 10) })
	for i := 0; b.Loop(); i++ {
		ix.Search(qs[i%queries], 10)
	}
	b.ReportMetric(p50(func(q []float32) { ix.Search(q, 10) }), "p50-ms")
	b.ReportMetric(exact, "exact-p50-ms")
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "graph-MiB")
	b.ReportMetric(float64(n*dims*4)/(1<<20), "vectors-MiB")
	b.ReportMetric(recallAt(ix, qs, 10), "recall@10")

}

// BenchmarkExact measures the exact scan of one query at the sizes around
// ExactLimit (768 dimensions): ns/op is one top-10 search.
func BenchmarkExact(b *testing.B) {
	const dims = 768
	all := clustered(rand.New(rand.NewSource(1)), 40_000+100, dims)
	qs := all[40_000:]
	for _, n := range []int{5_000, 10_000, 20_000, 40_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ix := NewIndexLimit(all[:n], math.MaxInt)
			for i := 0; b.Loop(); i++ {
				ix.Search(qs[i%len(qs)], 10)
			}
			b.ReportMetric(float64(n*dims)/1e6, "Mcomponents")
		})
	}
}

// Past the exact limit, the offline embedder's sparse vectors are
// searched through postings and dense ones by a scan: both bounded (the
// best candidates only), neither approximate, and both give the hits a
// dense scan gives.
func TestIndexPastExactLimit(t *testing.T) {
	texts := make([]string, 3000)
	for i := range texts {
		texts[i] = "person " + strconv.Itoa(i) + " of family " + strconv.Itoa(i%37) + " born in town " + strconv.Itoa(i%101)
	}
	vecs, _, err := Offline{}.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	dense := clustered(rand.New(rand.NewSource(5)), 3000, 64)
	for name, c := range map[string]struct {
		vecs   [][]float32
		sparse bool
	}{"sparse": {vecs, true}, "dense": {dense, false}} {
		t.Run(name, func(t *testing.T) {
			ix := NewIndexLimit(c.vecs, 1000)
			if !ix.Bounded() || ix.Approximate() || (ix.sparse != nil) != c.sparse || ix.Len() != len(c.vecs) {
				t.Fatalf("bounded %t, approximate %t, postings %t, %d vectors", ix.Bounded(), ix.Approximate(), ix.sparse != nil, ix.Len())
			}
			full := NewIndexLimit(c.vecs, math.MaxInt)
			for _, qi := range []int{0, 17, 999, 2999} {
				got, want := ix.Search(c.vecs[qi], 10), full.Exact(c.vecs[qi], 10)
				if len(got) != len(want) || got[0].I != qi {
					t.Fatalf("query %d: %v, want %v", qi, got, want)
				}
				for i := range got {
					if math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
						t.Fatalf("query %d, hit %d: %v, want %v", qi, i, got, want)
					}
				}
			}
		})
	}
}

// An index read back from its binary form searches as the one built, in
// each of its modes; a truncated or foreign form is an error.
func TestIndexBinary(t *testing.T) {
	texts := make([]string, 2000)
	for i := range texts {
		texts[i] = "person " + strconv.Itoa(i) + " of family " + strconv.Itoa(i%37)
	}
	sparse, _, err := Offline{}.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	dense := clustered(rand.New(rand.NewSource(6)), 2000, 48)
	// Vectors read back from their compact stored form are float16s.
	dense16 := make([][]float32, len(dense))
	for i, v := range dense {
		dense16[i] = make([]float32, len(v))
		for j, x := range v {
			dense16[i][j] = fromHalf(toHalf(x))
		}
	}
	for name, ix := range map[string]*Index{
		"exact":    NewIndex(dense),
		"scan":     NewIndexLimit(dense, 1000),
		"postings": NewIndexLimit(sparse, 1000),
		"hnsw":     NewIndexLimit(dense, 0),
		"exact16":  NewIndex(dense16),
		"hnsw16":   NewIndexLimit(dense16, 0),
	} {
		t.Run(name, func(t *testing.T) {
			b := ix.AppendBinary([]byte("prefix"))
			got, rest, err := ReadIndex(append(b[len("prefix"):], "tail"...))
			if err != nil || string(rest) != "tail" {
				t.Fatalf("read back: %v, rest %q", err, rest)
			}
			if got.Len() != ix.Len() || got.Bounded() != ix.Bounded() || got.Approximate() != ix.Approximate() {
				t.Fatalf("read back: len %d bounded %t approximate %t", got.Len(), got.Bounded(), got.Approximate())
			}
			vecs := dense
			switch name {
			case "postings":
				vecs = sparse
			case "exact16", "hnsw16":
				vecs = dense16
				// Two bytes a value less than the float32 form.
				// (give or take their pads, 1 to 4 bytes each).
				if f32, f16 := len(NewIndex(dense).AppendBinary(nil)), len(ix.AppendBinary(nil)); name == "exact16" && (f32-f16-2*len(dense)*48 < -3 || f32-f16-2*len(dense)*48 > 3) {
					t.Fatalf("form of float16 vectors: %d bytes, of float32 ones %d", f16, f32)
				}
			}
			if name != "postings" {
				for i := range vecs {
					if !slices.Equal(got.vector(i), ix.vecs[i]) {
						t.Fatalf("vector %d read back as %v, built %v", i, got.vector(i)[:4], ix.vecs[i][:4])
					}
				}
			}
			for _, qi := range []int{0, 5, 1999} {
				want, have := ix.Search(vecs[qi], 10), got.Search(vecs[qi], 10)
				if !slices.Equal(want, have) {
					t.Fatalf("query %d: %v, built %v", qi, have, want)
				}
			}
			for _, cut := range []int{0, 3, len(b) / 2} {
				if _, _, err := ReadIndex(b[len("prefix") : len("prefix")+cut]); err == nil {
					t.Fatalf("a form cut to %d bytes was read", cut)
				}
			}
		})
	}
}

// An index read from a buffer of its own uses its big arrays where they
// lie in it, whatever came before the index in the buffer; one read from
// a buffer that puts them out of line copies them, and searches the same.
func TestIndexBinary_InPlace(t *testing.T) {
	texts := make([]string, 500)
	for i := range texts {
		texts[i] = "person " + strconv.Itoa(i) + " of family " + strconv.Itoa(i%37)
	}
	sparse, _, err := Offline{}.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	dense := clustered(rand.New(rand.NewSource(6)), 300, 48)
	within := func(b []byte, p unsafe.Pointer) bool {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		return uintptr(p) >= start && uintptr(p) < start+uintptr(len(b))
	}
	for prefix := range 4 {
		b := NewIndexLimit(sparse, 1000).AppendBinary(make([]byte, prefix))
		b = NewIndex(dense).AppendBinary(b)
		own := slices.Clone(b) // a buffer of its own, aligned as allocated
		ps, rest, err := ReadIndex(own[prefix:])
		if err != nil {
			t.Fatal(err)
		}
		vs, _, err := ReadIndex(rest)
		if err != nil {
			t.Fatal(err)
		}
		if littleEndian && (!within(own, unsafe.Pointer(&ps.sparse.ids[0])) || !within(own, unsafe.Pointer(&ps.sparse.vals[0])) || !within(own, unsafe.Pointer(&vs.vecs[0][0]))) {
			t.Errorf("prefix %d: arrays copied from a buffer that holds them in line", prefix)
		}
		// One byte further on, the arrays are out of line: copied.
		odd := append([]byte{0}, b...)
		ps2, rest2, err := ReadIndex(odd[1+prefix:])
		if err != nil {
			t.Fatal(err)
		}
		vs2, _, err := ReadIndex(rest2)
		if err != nil {
			t.Fatal(err)
		}
		if within(odd, unsafe.Pointer(&ps2.sparse.ids[0])) || within(odd, unsafe.Pointer(&vs2.vecs[0][0])) {
			t.Errorf("prefix %d: out-of-line arrays used in place", prefix)
		}
		for i := 0; i < 50; i++ {
			if a, b := ps.Search(sparse[i], 5), ps2.Search(sparse[i], 5); !slices.Equal(a, b) {
				t.Fatalf("prefix %d: in place %v, copied %v", prefix, a, b)
			}
			if a, b := vs.Search(dense[i], 5), vs2.Search(dense[i], 5); !slices.Equal(a, b) {
				t.Fatalf("prefix %d: in place %v, copied %v", prefix, a, b)
			}
		}
	}
}

// An index stored before its arrays were padded (version 1, in
// testdata: postings of 300 names and 3 dense vectors, written at an odd
// offset) is read and searches as one built from the same vectors now.
func TestIndexBinary_Version1(t *testing.T) {
	b, err := os.ReadFile("testdata/index-v1.bin")
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = "person " + strconv.Itoa(i) + " of family " + strconv.Itoa(i%17)
	}
	sparse, _, err := Offline{}.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	dense, _, err := Offline{}.Embed(t.Context(), []string{"a long text about the weather in the north of the country and its rivers and the people who live along them", "another text on rivers", "a third one, on mountains and their weather"})
	if err != nil {
		t.Fatal(err)
	}
	ps, rest, err := ReadIndex(b)
	if err != nil {
		t.Fatal(err)
	}
	vs, rest, err := ReadIndex(rest)
	if err != nil || len(rest) != 0 {
		t.Fatalf("%v, %d bytes left", err, len(rest))
	}
	want, wantV := NewIndexLimit(sparse, 1000), NewIndex(dense)
	for i := range sparse {
		if a, b := ps.Search(sparse[i], 5), want.Search(sparse[i], 5); !slices.Equal(a, b) {
			t.Fatalf("postings: %v, built now %v", a, b)
		}
	}
	for i := range dense {
		if a, b := vs.Search(dense[i], 3), wantV.Search(dense[i], 3); !slices.Equal(a, b) {
			t.Fatalf("vectors: %v, built now %v", a, b)
		}
	}
}

// An index of sparse vectors stored apart from its postings searches,
// once given the postings of its query's dimensions, as the index it was
// written from; it asks only for those, and refuses postings of another
// shape. An index of dense vectors is written whole.
func TestIndexApart(t *testing.T) {
	texts := make([]string, 800)
	for i := range texts {
		texts[i] = "person " + strconv.Itoa(i) + " of family " + strconv.Itoa(i%41)
	}
	sparse, _, err := Offline{}.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	built := NewIndexLimit(sparse, 1000)
	head, dims := built.AppendApart([]byte("x"))
	ix, rest, err := ReadIndex(head[1:])
	if err != nil || len(rest) != 0 || !ix.Apart() || ix.Len() != built.Len() || ix.Bounded() != built.Bounded() {
		t.Fatalf("read: %v, %d left, apart %t", err, len(rest), ix.Apart())
	}
	if len(head) >= len(built.AppendBinary(nil))/4 {
		t.Errorf("the form without postings is %d bytes, the whole one %d", len(head), len(built.AppendBinary(nil)))
	}
	filled := 0
	for i := 0; i < len(sparse); i += 37 {
		q := sparse[i]
		missing := ix.Missing(q)
		for _, d := range missing {
			if q[d] == 0 || dims[d] == nil {
				t.Fatalf("asked for dimension %d, which the query has not (%v) or no vector has", d, q[d])
			}
			if err := ix.Fill(d, dims[d]); err != nil {
				t.Fatal(err)
			}
		}
		filled += len(missing)
		if m := ix.Missing(q); len(m) != 0 {
			t.Fatalf("still missing %v after they were filled", m)
		}
		if got, want := ix.Search(q, 10), built.Search(q, 10); !slices.Equal(got, want) {
			t.Fatalf("query %d: %v, the whole index %v", i, got, want)
		}
	}
	if nonzero := slices.IndexFunc(dims, func(b []byte) bool { return b != nil }); nonzero < 0 || filled == 0 {
		t.Fatal("no postings written or filled")
	}
	// Postings of another shape are refused.
	other, _, _ := ReadIndex(head[1:])
	for d, form := range dims {
		if form == nil {
			continue
		}
		if err := other.Fill(d, form[:len(form)-8]); err == nil {
			t.Error("postings cut short were taken")
		}
		bad := slices.Clone(form)
		copy(bad, []byte{0xff, 0xff, 0xff, 0x7f}) // an id past the vectors
		if err := other.Fill(d, bad); err == nil {
			t.Error("postings naming a vector past the index were taken")
		}
		break
	}
	// A search that skipped Fill is a fault in the caller, said as such.
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("a search over postings never filled answered")
			}
		}()
		other.Search(sparse[1], 5)
	}()
	// Dense vectors have no postings to keep apart.
	dense := NewIndex(clustered(rand.New(rand.NewSource(6)), 100, 48))
	if whole, dims := dense.AppendApart(nil); dims != nil || !slices.Equal(whole, dense.AppendBinary(nil)) {
		t.Error("a dense index was not written whole")
	}
}

// Float16 vectors read from a buffer of their own are scanned where they
// lie, in parts at once past halfScanSplit, with the scores and order of
// the widened vectors' scan, every score when all are asked for.
func TestIndexHalf_InPlace(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	dense := clustered(rng, halfScanSplit/48+500, 48)
	for _, v := range dense {
		for j, x := range v {
			v[j] = fromHalf(toHalf(x))
		}
	}
	built := NewIndex(dense)
	own := slices.Clone(built.AppendBinary(nil))
	read, rest, err := ReadIndex(own)
	if err != nil || len(rest) != 0 || read.half == nil || read.vecs != nil {
		t.Fatalf("read: %v, %d left, half %t", err, len(rest), read.half != nil)
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(own)))
	if p := uintptr(unsafe.Pointer(&read.half[0])); littleEndian && (p < start || p >= start+uintptr(len(own))) {
		t.Error("float16 vectors copied from a buffer that holds them in line")
	}
	if again := read.AppendBinary(nil); !slices.Equal(again, own) {
		t.Error("written again, the index's form changed")
	}
	for qi := 0; qi < len(dense); qi += len(dense) / 7 {
		q := dense[qi]
		for _, k := range []int{10, len(dense)} {
			if got, want := read.Search(q, k), built.Search(q, k); !slices.Equal(got, want) {
				t.Fatalf("query %d, top %d: the float16 scan ranks otherwise", qi, k)
			}
		}
	}
}

// TestNewSparseIndex: vectors given one at a time make the index the
// whole list makes, byte for byte in its stored form, sparse (offline
// vectors of texts) and dense (every component set) alike.
func TestNewSparseIndex(t *testing.T) {
	texts := []string{"Ada Lovelace wrote the first program", "Charles Babbage designed the Analytical Engine",
		"Lovelace and Babbage corresponded", "The engine was never built", "", "Programs, engines and notes"}
	for i := range 300 {
		texts = append(texts, fmt.Sprintf("passage %d about topic %d and place %d", i, i%17, i%5))
	}
	var w OfflineWriter
	sparse := func(i int, v []float32) { w.Vector(texts[i], v) }
	dense := func(i int, v []float32) {
		for d := range v {
			v[d] = float32((i*31+d*7)%13) - 6
		}
		Normalize(v)
	}
	for _, c := range []struct {
		name  string
		n     int
		dims  int
		vec   func(int, []float32)
		limit int
	}{
		{"offline", len(texts), OfflineDimensions, sparse, ExactLimit},
		{"offline bounded", len(texts), OfflineDimensions, sparse, 1000},
		{"dense", 50, 16, dense, ExactLimit},
	} {
		vecs := make([][]float32, c.n)
		for i := range vecs {
			vecs[i] = make([]float32, c.dims)
			c.vec(i, vecs[i])
		}
		want := NewIndexLimit(vecs, c.limit)
		got := NewSparseIndex(c.n, c.dims, c.limit, c.vec)
		if !bytes.Equal(got.AppendBinary(nil), want.AppendBinary(nil)) {
			t.Errorf("%s: stored forms differ", c.name)
		}
		if got.Bounded() != want.Bounded() || got.Approximate() != want.Approximate() || got.Len() != want.Len() {
			t.Errorf("%s: bounded %v/%v approximate %v/%v len %d/%d", c.name, got.Bounded(), want.Bounded(),
				got.Approximate(), want.Approximate(), got.Len(), want.Len())
		}
		q := vecs[3]
		if g, w := got.Search(q, 5), want.Search(q, 5); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: search %v, want %v", c.name, g, w)
		}
	}
}
