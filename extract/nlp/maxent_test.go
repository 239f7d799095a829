package nlp

import (
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	prose "github.com/jdkato/prose/v2"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
)

// TestRecognizer_MatchesProse extracts A Christmas Carol, the Re-DocRED
// and the WebNLG samples, then labels every entity window the extractor
// asked about both ways: with prose's split of each run of the window, the
// tagger and the recognizer, and with prose's own NewDocument. Every token
// (text, offsets, tag and label) and every window's answer must be the
// same, but where two classes score within rounding of each other.
func TestRecognizer_MatchesProse(t *testing.T) {
	for _, src := range []struct {
		name string
		docs func(t *testing.T) []extract.Document
	}{
		{"Carol", func(t *testing.T) []extract.Document { return []extract.Document{carolDoc(t)} }},
		{"ReDocRED", func(t *testing.T) []extract.Document {
			_, docs := goldDocs(t, "gold/redocred_dev_revised_first100.json", eval.ReadDocRED)
			return docs
		}},
		{"WebNLG", func(t *testing.T) []extract.Document {
			_, docs := goldDocs(t, "gold/webnlg2020_text2rdf_seen_first200.xml", eval.ReadWebNLG)
			return docs
		}},
	} {
		t.Run(src.name, func(t *testing.T) {
			e := mustNew(t, Options{})
			for _, d := range src.docs(t) {
				extractDoc(t, e, d)
			}
			e.nerMu.Lock()
			keys := make([]string, 0, len(e.nerCache))
			for k := range e.nerCache {
				keys = append(keys, k)
			}
			e.nerMu.Unlock()
			sort.Strings(keys)
			if len(keys) < 100 {
				t.Fatalf("only %d windows", len(keys))
			}
			var sum proseMatch
			for _, k := range keys {
				s, rest, _ := strings.Cut(k, ":")
				en, window, _ := strings.Cut(rest, ":")
				start, end := atoi(t, s), atoi(t, en)
				m := matchProse(t, e, window)
				sum.add(m)
				if m.tied {
					continue
				}
				if r, wr := e.nerCache[k], spanAnswer(m.want, start, end); r != wr {
					t.Errorf("%q [%d,%d): %+v, prose %+v", window, start, end, r, wr)
				}
			}
			if sum.labelled == 0 {
				t.Fatal("prose labelled no token")
			}
			t.Logf("%d windows, %d tokens (%d labelled), %d windows with a tie", len(keys), sum.tokens, sum.labelled, sum.ties)
		})
	}
}

// TestRecognizer_MatchesProseParagraphs labels every paragraph of A
// Christmas Carol whole, with and without the space after it, both ways, as
// TestRecognizer_MatchesProse does.
func TestRecognizer_MatchesProseParagraphs(t *testing.T) {
	doc := carolDoc(t)
	e := mustNew(t, Options{})
	var sum proseMatch
	for _, p := range strings.SplitAfter(doc.Content, "\n\n") {
		for _, text := range []string{p, strings.TrimSpace(p)} {
			if strings.TrimSpace(text) != "" {
				sum.add(matchProse(t, e, text))
			}
		}
	}
	if sum.tokens < 10000 || sum.labelled < 100 {
		t.Fatalf("only %d tokens, %d labelled", sum.tokens, sum.labelled)
	}
	t.Logf("%d tokens (%d labelled), %d paragraphs cut at a tie", sum.tokens, sum.labelled, sum.ties)
}

// FuzzRecognizer labels odd text both ways, as TestRecognizer_MatchesProse
// does.
func FuzzRecognizer(f *testing.F) {
	for _, s := range []string{
		"", "   ", "\xff\xfe Scrooge", "'sdeath, Scrooge's nephew!", "Mr. Fezziwig's ball at 7 p.m.",
		"\u201cBah,\u201d said Scrooge to Marley\u2019s ghost.", "Bob &rsquo;s hat (and Tim's) [sic]",
		"the the the London London", "Scrooge Scrooge\n", "U.S.A. and the E.U. met in Paris, France.",
		"$100 in New York", ":-) Tiny Tim :)", "Jean-Luc Picard of the USS Enterprise",
	} {
		f.Add(s)
	}
	e := mustNew(f, Options{})
	f.Fuzz(func(t *testing.T, text string) {
		// Documents are valid UTF-8; prose's tokeniser panics on some
		// text whose lower case is longer or shorter ("\u212a's"), whole
		// chunks included, and the pipeline recovers each chunk's panic.
		if !utf8.ValidString(text) || proseFails(text) {
			t.Skip()
		}
		matchProse(t, e, text)
	})
}

// proseFails reports whether prose's tokeniser panics on text.
func proseFails(text string) (failed bool) {
	defer func() {
		if recover() != nil {
			failed = true
		}
	}()
	_, _ = prose.NewDocument(text, prose.WithSegmentation(false), prose.WithTagging(false), prose.WithExtraction(false))
	return false
}

// proseMatch counts what matchProse compared.
type proseMatch struct {
	want             []tok // prose's tokens
	tokens, labelled int
	tied             bool // a tie parted the rest of the text
	ties             int  // texts with a tie, in a sum
}

func (m *proseMatch) add(o proseMatch) {
	m.tokens += o.tokens
	m.labelled += o.labelled
	if o.tied {
		m.ties++
	}
}

// matchProse labels text with nerTokens and with prose's NewDocument and
// reports every token whose text, offsets, tag or label differ, but where
// two classes score within rounding of each other (prose picks among equal
// scores in map order); the rest of the text is then skipped, its history
// having parted.
func matchProse(t *testing.T, e *Extractor, text string) proseMatch {
	t.Helper()
	pd, err := prose.NewDocument(text, prose.WithSegmentation(false), prose.UsingModel(proseModel(t)))
	if err != nil {
		t.Fatal(err)
	}
	m := proseMatch{want: alignTokens(text, pd.Tokens())}
	got := e.nerTokens(text)
	if len(got) != len(m.want) {
		t.Errorf("%.60q: %d tokens, prose %d", text, len(got), len(m.want))
		return m
	}
	for i, w := range m.want {
		m.tokens++
		if w.label != "O" {
			m.labelled++
		}
		g := got[i]
		switch {
		case g.text != w.text || g.start != w.start || g.end != w.end:
			t.Errorf("%.60q token %d: %q [%d,%d), prose %q [%d,%d)", text, i, g.text, g.start, g.end, w.text, w.start, w.end)
			return m
		case g.tag != w.tag:
			if !tagTie(e.tagger, text, i, g.tag, w.tag) {
				t.Errorf("%.60q token %q: tag %s, prose %s", text, w.text, g.tag, w.tag)
			}
			m.tied = true
			return m
		case g.label != w.label:
			if !labelTie(e.recognizer, m.want, i, g.label, w.label) {
				t.Errorf("%.60q token %q: label %s, prose %s", text, w.text, g.label, w.label)
			}
			m.tied = true
			return m
		}
	}
	return m
}

// tagTie reports whether tags a and b score within rounding of each other
// at token i of text, after the tagger's own tags, as the tagger test
// allows.
func tagTie(tg *tagger, text string, i int, a, b string) bool {
	pd, err := prose.NewDocument(text, prose.WithSegmentation(false), prose.WithTagging(false), prose.WithExtraction(false))
	if err != nil {
		return false
	}
	var words []string
	for _, t := range pd.Tokens() {
		words = append(words, t.Text)
	}
	own := tg.tag(words)
	return math.Abs(scoreOf(tg, words, own, i, a)-scoreOf(tg, words, own, i, b)) <= 1e-9
}

// labelTie reports whether labels a and b score within rounding of each
// other at token i of prose's labelling toks.
func labelTie(r *recognizer, toks []tok, i int, a, b string) bool {
	words := make([]string, len(toks))
	tags := make([]string, len(toks))
	hist := make([]string, i)
	for k, t := range toks {
		words[k], tags[k] = t.text, t.tag
		if k < i {
			hist[k] = simpleLabel(t.label)
		}
	}
	scores := make([]float64, len(r.labels))
	r.score(i, words, tags, hist, scores, nil)
	sa, sb := math.Inf(-1), math.Inf(-1)
	for li, l := range r.labels {
		switch l {
		case a:
			sa = scores[li]
		case b:
			sb = scores[li]
		}
	}
	return math.Abs(sa-sb) <= 1e-9
}

func TestShapeOf(t *testing.T) {
	for word, want := range map[string]string{
		"12": "number", "3.5": "number", "1e5": "number", "Inf": "number",
		",": "punct", "Café": "punct", "end.": "punct", "é": "punct",
		"scrooge": "downcase", "a_b": "downcase", "Scrooge": "upcase", "Jean-Luc": "upcase",
		"McDonald": "upcase", "SCROOGE": "upcase", "iPhone": "mixedcase", "": "other",
	} {
		if got := shapeOf(word); got != want {
			t.Errorf("shapeOf(%q) = %q, want %q", word, got, want)
		}
	}
}

// carolDoc is A Christmas Carol as a document.
func carolDoc(tb testing.TB) extract.Document {
	tb.Helper()
	data, err := os.ReadFile(testkit.Path(tb, "corpora/a_christmas_carol_gutenberg24022.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := extract.ReadDocument("carol.txt", data, 0)
	if err != nil {
		tb.Fatal(err)
	}
	doc.ID = 1
	return doc
}

// goldDocs reads the entries of a gold file and their texts as documents.
func goldDocs(t *testing.T, name string, read func(io.Reader) ([]eval.Entry, error)) ([]eval.Entry, []extract.Document) {
	t.Helper()
	f, err := os.Open(testkit.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := read(f)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]extract.Document, len(entries))
	for i, en := range entries {
		if docs[i], err = extract.ReadDocument(en.ID, []byte(en.Text), 0); err != nil {
			t.Fatal(err)
		}
		docs[i].ID = i + 1
	}
	return entries, docs
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
