package nlp

import (
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	prose "github.com/jdkato/prose/v2"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

// TestTagger_MatchesProse tags A Christmas Carol and a few odd tokens, chunk
// by chunk, with the tagger and with prose: every tag must be the same,
// but where two classes score within rounding of each other.
func TestTagger_MatchesProse(t *testing.T) {
	data, err := os.ReadFile(testkit.Path(t, "corpora/a_christmas_carol_gutenberg24022.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data) + " Café naïve @someone http://example.com a-b 1843 -LRB- *-1 3.5 ÉMILE 'twas :-) (._.) 8D ¯\\(ツ)/¯"
	e := mustNew(t, Options{})
	tokens, diffs := 0, 0
	var chunks []string
	for _, c := range strings.SplitAfter(text, "\n\n") {
		// Also without the space at the end: prose treats a last word
		// with nothing after it apart.
		chunks = append(chunks, c, strings.TrimSpace(c))
	}
	for _, chunk := range chunks {
		pd, err := prose.NewDocument(chunk, prose.WithSegmentation(false), prose.WithExtraction(false), prose.UsingModel(proseModel(t)))
		if err != nil {
			t.Fatal(err)
		}
		want := pd.Tokens()
		words := make([]string, len(want))
		for i := range want {
			words[i] = want[i].Text
		}
		toks := alignTokens(chunk, want)
		own := e.tagger.tag(words)
		for i, tag := range shareSpanTags(chunk, toks, words, own) {
			tokens++
			if tag == want[i].Tag {
				continue
			}
			// prose sums a token's feature weights in map order, so two
			// classes within rounding of each other come out either way.
			sa, sb := scoreOf(e.tagger, words, own, i, tag), scoreOf(e.tagger, words, own, i, want[i].Tag)
			if math.Abs(sa-sb) > 1e-9 {
				diffs++
				t.Errorf("%q in %q: tag %s (%v), prose %s (%v)", words[i], chunk[:min(len(chunk), 60)], tag, sa, want[i].Tag, sb)
			}
		}
	}
	if tokens < 10000 {
		t.Fatalf("only %d tokens tagged", tokens)
	}
	t.Logf("%d tokens, %d tags differ", tokens, diffs)
}

// proseModel is prose's own model (tagger and entity extracter), built
// once, for tests that compare with prose.
func proseModel(tb testing.TB) *prose.Model {
	tb.Helper()
	proseOnce.Do(func() { proseM = prose.ModelFromData("kgstudio-en") })
	if proseM == nil {
		tb.Fatal("no prose model")
	}
	return proseM
}

var (
	proseOnce sync.Once
	proseM    *prose.Model
)

// scoreOf is the tagger's score for class at token i, after the tags tags.
func scoreOf(tg *tagger, words, tags []string, i int, class string) float64 {
	ctx := []string{"-START-", "-START2-"}
	for _, w := range words {
		ctx = append(ctx, normalizeWord(w))
	}
	ctx = append(ctx, "-END-", "-END2-")
	p1, p2 := "-START-", "-START2-"
	if i > 0 {
		p1 = tags[i-1]
	}
	if i > 1 {
		p2 = tags[i-2]
	} else if i == 1 {
		p2 = "-START-"
	}
	score := 0.0
	tg.features(i, ctx, words[i], p1, p2, func(parts ...string) {
		for _, cw := range tg.weights[strings.Join(parts, " ")] {
			if tg.classes[cw.class] == class {
				score += cw.w
			}
		}
	})
	return score
}
