package embed

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

// longText is a paragraph whose hashed vector holds more than 16 values.
var longText = strings.Repeat("Marley was dead: to begin with. There is no doubt whatever about that. ", 3) +
	strings.Repeat("Scrooge signed it. ", 9) + strings.Repeat("Old Marley was as dead as a door-nail. ", 5) +
	"The register of his burial was signed by the clergyman, the clerk, the undertaker, and the chief mourner. " +
	strings.Repeat("Mind! ", 17) + strings.Repeat("counting-house ", 23) + strings.Repeat("humbug ", 31)

func TestCompactRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dense := make([]float32, 768)
	for i := range dense {
		dense[i] = float32(r.NormFloat64())
	}
	Normalize(dense)
	for name, v := range map[string][]float32{
		"dense":  dense,
		"sparse": Offline{}.Vector("Bank of England"),
		"long":   Offline{}.Vector(longText),
		"zero":   make([]float32, 1024),
		"empty":  {},
		"short":  {0.5, -0.25, 1},
	} {
		t.Run(name, func(t *testing.T) {
			b := EncodeCompact(v)
			if len(b)%4 != compactRem {
				t.Fatalf("length %d", len(b))
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(v) {
				t.Fatalf("%d components, want %d", len(got), len(v))
			}
			for i := range v {
				if d := math.Abs(float64(got[i] - v[i])); d > math.Abs(float64(v[i]))/2048+1e-7 {
					t.Fatalf("component %d: %v, want %v", i, got[i], v[i])
				}
				// Every form holds the float16 value exactly.
				if got[i] != fromHalf(toHalf(v[i])) {
					t.Fatalf("component %d: %v, float16 %v", i, got[i], fromHalf(toHalf(v[i])))
				}
			}
			// A cut or altered vector is refused or decoded, never a panic.
			for cut := range len(b) {
				_, _ = Decode(b[:cut])
				bad := slices.Clone(b)
				bad[cut] ^= 0xff
				_, _ = Decode(bad)
			}
			if len(b) >= 4*len(v) && len(v) > 8 {
				t.Fatalf("%d bytes for %d components", len(b), len(v))
			}
		})
	}
	// The float32 form still decodes.
	if got, err := Decode(Encode([]float32{1, 2})); err != nil || !slices.Equal(got, []float32{1, 2}) {
		t.Fatalf("float32 form: %v %v", got, err)
	}
	if _, err := Decode([]byte{'x', 0, 0, 0, 0, 0, 0, 0, 0, 0}); err == nil {
		t.Fatal("a bad compact vector decoded")
	}
	if n := len(EncodeCompact(Offline{}.Vector("Bank of England"))); n > 100 {
		t.Fatalf("a name takes %d bytes", n)
	}
	// The hashed embedder's vectors take a palette form (a sentence's
	// few values the small one, a long text's the other); a sentence
	// encoder's (values all distinct) stay dense.
	if b := EncodeCompact(Offline{}.Vector("The Bank of England is the central bank of the United Kingdom.")); b[0] != compactPalette16 {
		t.Fatalf("a sentence's hashed vector is stored as %q", b[0])
	}
	if b := EncodeCompact(Offline{}.Vector(longText)); b[0] != compactPalette {
		t.Fatalf("a long text's hashed vector is stored as %q", b[0])
	}
	if b := EncodeCompact(dense); b[0] != compactDense {
		t.Fatalf("a dense vector is stored as %q", b[0])
	}
}

// TestCompactKeepsRankings ranks the MuSiQue and HotpotQA passages for
// each question of the two sets by the cosine of offline vectors, as
// stored before (float32) and now (compact, float16), and checks that the
// top 10 are the same passages in the same order, bar swaps of two
// passages whose scores differ by less than 5e-4 (near ties).
func TestCompactKeepsRankings(t *testing.T) {
	var passages, questions []string
	var musique []struct{ Title, Text string }
	if err := json.Unmarshal(testkit.Read(t, "multihop/musique_train_corpus.json"), &musique); err != nil {
		t.Fatal(err)
	}
	for _, p := range musique {
		passages = append(passages, p.Title+"\n"+p.Text)
	}
	var hotpot map[string][]string
	if err := json.Unmarshal(testkit.Read(t, "multihop/hotpotqa_train_corpus.json"), &hotpot); err != nil {
		t.Fatal(err)
	}
	for title, sents := range hotpot {
		passages = append(passages, title+"\n"+strings.Join(sents, ""))
	}
	for _, f := range []string{"multihop/musique_train.json", "multihop/hotpotqa_train.json"} {
		var qs []struct{ Question string }
		if err := json.Unmarshal(testkit.Read(t, f), &qs); err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			questions = append(questions, q.Question)
		}
	}
	exact, compact := make([][]float32, len(passages)), make([][]float32, len(passages))
	for i, p := range passages {
		exact[i] = Offline{}.Vector(p)
		var err error
		if compact[i], err = Decode(EncodeCompact(exact[i])); err != nil {
			t.Fatal(err)
		}
	}
	top := func(q []float32, vs [][]float32) ([]int, []float32) {
		idx := make([]int, len(vs))
		score := make([]float32, len(vs))
		for i, v := range vs {
			idx[i] = i
			for j := range v {
				score[i] += q[j] * v[j]
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case score[a] > score[b]:
				return -1
			case score[a] < score[b]:
				return 1
			}
			return a - b
		})
		return idx[:10], score
	}
	same, near := 0, 0
	for _, question := range questions {
		q := Offline{}.Vector(question)
		a, sa := top(q, exact)
		b, _ := top(q, compact)
		if slices.Equal(a, b) {
			same++
			continue
		}
		// Allowed: each displaced passage within 5e-4 of the one whose
		// place it took (a near tie).
		for i := range a {
			if a[i] != b[i] && math.Abs(float64(sa[a[i]]-sa[b[i]])) > 5e-4 {
				t.Fatalf("%q: top 10 %v, compact %v", question, a, b)
			}
		}
		near++
	}
	t.Logf("%d questions: top 10 identical for %d, near ties swapped for %d", len(questions), same, near)
}
