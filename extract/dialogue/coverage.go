package dialogue

import (
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// stopWords are common English function words that carry no content.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are aren't as at
be because been before being below between both but by can can't cannot could couldn't did didn't do does
doesn't doing don't down during each few for from further get got had hadn't has hasn't have haven't having he
he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't
it it's its itself just let's like me more most mustn't my myself no nor not now of off oh ok okay on once only
or other ought our ours ourselves out over own really same shan't she she'd she'll she's should shouldn't so
some such than that that's the their theirs them themselves then there there's these they they'd they'll
they're they've this those through to too under until up us very was wasn't we we'd we'll we're we've were
weren't what what's when when's where where's which while who who's whom why why's will with won't would
wouldn't yeah yes you you'd you'll you're you've your yours yourself yourselves hey hi hello thanks thank
well much many lot lots something anything thing things one ll re ve s t d m`) {
		m[w] = true
	}
	return m
}()

// contentWords splits text into lower-cased, lightly stemmed words,
// dropping stop words. Letters and digits of any script count; a run of
// Han, Hiragana, Katakana or Hangul characters yields one word per
// character, since those scripts do not separate words by spaces.
func contentWords(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := strings.Trim(string(cur), "'")
		cur = cur[:0]
		if w == "" || stopWords[w] {
			return
		}
		if i := strings.Index(w, "'"); i > 0 {
			w = w[:i] // possessives and contractions: "caroline's" -> "caroline"
			if stopWords[w] {
				return
			}
		}
		out = append(out, stem(w))
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		case r == '\'' || r == '’':
			cur = append(cur, '\'')
		default:
			flush()
		}
	}
	flush()
	return out
}

// stem strips a few English suffixes so that "apps" matches "app" and
// "planning" matches "plan". It is deliberately simple.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for _, suf := range []string{"ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s"} {
		if !strings.HasSuffix(w, suf) || len(w)-len(suf) < 3 {
			continue
		}
		base := w[:len(w)-len(suf)]
		switch suf {
		case "ies", "ied":
			base += "y"
		case "es":
			// "boxes" -> "box", but "loves" -> "love"
			if !strings.HasSuffix(base, "s") && !strings.HasSuffix(base, "x") && !strings.HasSuffix(base, "z") &&
				!strings.HasSuffix(base, "ch") && !strings.HasSuffix(base, "sh") {
				base = w[:len(w)-1]
			}
		case "s":
			if strings.HasSuffix(base, "s") || strings.HasSuffix(base, "u") || strings.HasSuffix(base, "i") {
				continue // "glass", "bus", "analysis"
			}
		}
		w = base
		break
	}
	// "love" and "loved" -> "lov"
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	// "planning" -> "plann" -> "plan"
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && strings.IndexByte("bdgklmnprt", w[n-1]) >= 0 {
		w = w[:n-1]
	}
	return w
}

// Coverage returns the share of the distinct content words of turnText
// (lower-cased, stop words removed, lightly stemmed) that appear among the
// words of producedText (labels and descriptions produced from the turn).
// A turn without content words has coverage 1: nothing could be lost.
func Coverage(turnText string, producedText []string) float64 {
	want := map[string]bool{}
	for _, w := range contentWords(turnText) {
		want[w] = true
	}
	if len(want) == 0 {
		return 1
	}
	have := map[string]bool{}
	for _, t := range producedText {
		for _, w := range contentWords(t) {
			have[w] = true
		}
	}
	hit := 0
	for w := range want {
		if have[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

// CoverageOf is Coverage of a segment's text against the operations
// applied for it.
func CoverageOf(seg Segment, ops []extract.Operation) float64 {
	return Coverage(seg.User+"\n"+seg.Assistant, ProducedText(ops))
}
