package uselite

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

type refCase struct {
	Text string    `json:"text"`
	IDs  []int32   `json:"ids"`
	Vec  []float32 `json:"vec"`
}

// testdata/use_ref.json: 42 texts with the token ids and vectors the
// model's own TensorFlow.js code produced (sentences, short queries,
// accented and CJK text with emoji, a 600-token run of "x").
func loadRefs(t testing.TB) []refCase {
	t.Helper()
	raw, err := os.ReadFile("testdata/use_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []refCase
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs) != 42 {
		t.Fatalf("%d reference texts, want 42", len(refs))
	}
	return refs
}

func maxAbsDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// encodeWindow encodes ids (at most MaxTokens) as one window.
func encodeWindow(m *model, ids []int32) []float32 {
	w := window{ids: ids, out: make([]float32, Dimensions)}
	m.encodeBatch(newWorkspace(len(ids)), []window{w})
	return w.out
}

// checkParity compares m with the reference: every token id equal,
// every vector value within tol. TensorFlow.js truncates a text to its
// first MaxTokens tokens, so the long text is compared as that window.
func checkParity(t *testing.T, m *model, tol float64) {
	worst := 0.0
	for i, r := range loadRefs(t) {
		ids, _, _ := m.tok.encode(r.Text)
		if !slices.Equal(ids, r.IDs) {
			t.Errorf("text %d %q: ids %v, want %v", i, r.Text, ids, r.IDs)
			continue
		}
		var v []float32
		if len(ids) > MaxTokens {
			v = encodeWindow(m, ids[:MaxTokens])
		} else {
			out, err := m.embed(context.Background(), []string{r.Text})
			if err != nil {
				t.Fatal(err)
			}
			v = out[0]
		}
		d := maxAbsDiff(v, r.Vec)
		worst = math.Max(worst, d)
		if d > tol {
			t.Errorf("text %d %q: a value is %.3g off the reference (tolerance %g)", i, r.Text, d, tol)
		}
	}
	t.Logf("largest difference from the reference: %.3g", worst)
}

func TestParity(t *testing.T) {
	checkParity(t, getModel(), 1e-4)
}

// The portable kernel gives the same vectors as the assembly.
func TestPortableKernel(t *testing.T) {
	if !useAVX2 {
		t.Skip("the portable kernel is the one in use")
	}
	refs := loadRefs(t)
	var texts []string
	for _, i := range []int{0, 21, 40} {
		texts = append(texts, refs[i].Text)
	}
	fast, _, _ := Encoder{}.Embed(context.Background(), texts)
	useAVX2 = false
	defer func() { useAVX2 = true }()
	slow, _, _ := Encoder{}.Embed(context.Background(), texts)
	for i := range texts {
		if d := maxAbsDiff(fast[i], slow[i]); d > 1e-6 {
			t.Errorf("%q: kernels differ by %.3g", texts[i], d)
		}
	}
}

// Batching texts together, and encoding from several goroutines at
// once, gives exactly the vectors of encoding each text alone.
func TestBatchingAndConcurrency(t *testing.T) {
	refs := loadRefs(t)
	var texts []string
	for _, r := range refs {
		texts = append(texts, r.Text)
	}
	texts = append(texts, "", strings.Repeat("A sentence about rivers and mountains. ", 40))
	alone := make([][]float32, len(texts))
	for i, s := range texts {
		alone[i] = Encoder{}.Vector(s)
	}
	var wg sync.WaitGroup
	results := make([][][]float32, 4)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, _, err := Encoder{}.Embed(context.Background(), texts)
			if err != nil {
				t.Error(err)
			}
			results[g] = out
		}()
	}
	wg.Wait()
	for _, out := range results {
		if len(out) != len(texts) {
			t.Fatalf("%d vectors for %d texts", len(out), len(texts))
		}
		for i := range texts {
			if !slices.Equal(out[i], alone[i]) {
				t.Fatalf("text %d: batched vector differs from the text's own", i)
			}
		}
	}
}

func TestSplitWindows(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{{0, nil}, {1, []int{1}}, {128, []int{128}}, {129, []int{65, 64}}, {600, []int{120, 120, 120, 120, 120}}, {1200, []int{120, 120, 120, 120, 120, 120, 120, 120, 120, 120}}} {
		var got []int
		for _, w := range splitWindows(make([]int32, tc.n)) {
			got = append(got, len(w))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d tokens: windows %v, want %v", tc.n, got, tc.want)
		}
	}
}

// A long text is the normalised mean of its windows' vectors.
func TestLongText(t *testing.T) {
	m := getModel()
	text := strings.Repeat("The Nile flows north through Egypt into the Mediterranean Sea. ", 25)
	ids, _, _ := m.tok.encode(text)
	wins := splitWindows(ids)
	if len(wins) < 2 {
		t.Fatalf("%d tokens make %d windows; want a text longer than one", len(ids), len(wins))
	}
	want := make([]float32, Dimensions)
	for _, w := range wins {
		for j, x := range encodeWindow(m, w) {
			want[j] += x
		}
	}
	m.l2Normalize(want)
	got := Encoder{}.Vector(text)
	if d := maxAbsDiff(got, want); d > 1e-6 {
		t.Errorf("long text: %.3g off the mean of its windows", d)
	}
	if c := cos(got, Encoder{}.Vector("The Nile flows north through Egypt into the Mediterranean Sea.")); c < 0.8 {
		t.Errorf("long text repeating a sentence: cosine %.3f with the sentence", c)
	}
}

func checkUnit(t *testing.T, what string, v []float32) {
	t.Helper()
	if len(v) != Dimensions {
		t.Fatalf("%s: %d dimensions", what, len(v))
	}
	var s float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("%s: non-finite value", what)
		}
		s += float64(x) * float64(x)
	}
	if math.Abs(s-1) > 1e-5 {
		t.Fatalf("%s: squared length %v", what, s)
	}
}

func TestOddTexts(t *testing.T) {
	e := Encoder{}
	empty := e.Vector("")
	checkUnit(t, "empty", empty)
	if !slices.Equal(empty, getModel().empty) {
		t.Error("the empty text is not the fixed empty vector")
	}
	for _, s := range []string{" ", "\n\t", "!!!", "東京", "🚀🚀🚀", strings.Repeat("ab ", 3000), "\x00\xff invalid"} {
		checkUnit(t, s[:min(len(s), 10)], e.Vector(s))
	}
	// Line breaks and tabs are spaces.
	tok := getTokenizer()
	a, _, _ := tok.encode("one two\tthree")
	b, _, _ := tok.encode("one\ntwo three")
	if !slices.Equal(a, b) {
		t.Errorf("white space: %v vs %v", a, b)
	}
}

func TestServes(t *testing.T) {
	for text, want := range map[string]bool{
		"":                              true,
		"How old is the Earth?":         true,
		"Le café est très bon à Paris.": true,
		"Ünïcödé naïve café — résumé 東京 🚀":       true,
		"Marie Curie met 居里夫人 in Paris in 1895.": true,
		"東京は日本の首都です。":                            false,
		"北京是中华人民共和国的首都。":                         false,
		"서울은 대한민국의 수도이다.":                        false,
		"Москва — столица России.":               false,
		"🚀🚀🚀": false,
	} {
		if got := Serves(text); got != want {
			_, unknown, chars := getTokenizer().encode(text)
			t.Errorf("Serves(%q) = %v, want %v (%d of %d characters unknown)", text, got, want, unknown, chars)
		}
	}
}

// Paraphrases meet: each of 20 reference queries finds its sentence
// among 20, and a question is nearer its answer than an unrelated one.
func TestQuality(t *testing.T) {
	refs := loadRefs(t)
	var texts []string
	for _, r := range refs[:40] {
		texts = append(texts, r.Text)
	}
	v, _, err := Encoder{}.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for q := 20; q < 40; q++ {
		best := 0
		for s := range 20 {
			if cos(v[q], v[s]) > cos(v[q], v[best]) {
				best = s
			}
		}
		if best == q-20 {
			hits++
		} else {
			t.Logf("%q found %q", texts[q], texts[best])
		}
	}
	if hits < 18 {
		t.Errorf("%d of 20 queries find their sentence, want at least 18", hits)
	}
	e := Encoder{}
	q := e.Vector("How old is the Earth?")
	near := cos(q, e.Vector("The planet formed 4.5 billion years ago."))
	far := cos(q, e.Vector("The recipe calls for two cups of flour."))
	if near < far+0.2 {
		t.Errorf("question-answer cosine %.3f, unrelated %.3f", near, far)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := (Encoder{}).Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: error %v", err)
	}
}

func TestEmbedder(t *testing.T) {
	e := Encoder{}
	if e.Model() != Model || e.Dimensions() != Dimensions {
		t.Errorf("Model %q, Dimensions %d", e.Model(), e.Dimensions())
	}
	out, usage, err := e.Embed(context.Background(), nil)
	if err != nil || len(out) != 0 || usage != (extract.EmbedUsage{}) {
		t.Errorf("no texts: %v, %v, %v", out, usage, err)
	}
}
