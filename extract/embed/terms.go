package embed

import (
	"strings"
	"unicode"
)

// stopWords are English function words that carry no retrieval value.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but nor so yet of in on at to for from by with without about
into onto over under between among through during before after above below up down out off
is are was were be been being am do does did doing done have has had having will would shall
should can could may might must i me my mine we us our ours you your yours he him his she her
hers it its they them their theirs this that these those who whom whose which what when where
why how whether if then than there here not no yes all any both each few more most other some
such only own same too very just also as s t don doesn didn isn wasn aren weren ll ve re d m
oh hey hi wow yeah yes ok okay really so get got go going gonna thing things lot`) {
		m[w] = true
	}
	return m
}()

// Terms cuts text into retrieval terms: lower-cased words of letters and
// digits, stop words dropped, English plural and verb endings trimmed
// (Stem); runs of Han, Hiragana, Katakana or Hangul characters give their
// overlapping character pairs. The offline embedder and BM25 share it, so
// both see the same terms.
func Terms(text string) []string {
	var out []string
	var word, cjk []rune
	apostrophe := false // letters after an apostrophe ("'s", "'ll") are dropped
	flushWord := func() {
		if len(word) > 0 {
			if w := string(word); !stopWords[w] {
				out = append(out, Stem(w))
			}
		}
		word, apostrophe = word[:0], false
	}
	flushCJK := func() {
		switch {
		case len(cjk) == 1:
			out = append(out, string(cjk))
		case len(cjk) > 1:
			for i := 0; i+1 < len(cjk); i++ {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case isCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			if !apostrophe {
				word = append(word, unicode.ToLower(r))
			}
		case (r == '\'' || r == '’') && len(word) > 0:
			apostrophe = true
		default:
			flushCJK()
			flushWord()
		}
	}
	flushWord()
	flushCJK()
	return out
}

func isCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo, the first of these scripts
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// Stem trims common English inflections so "paints", "painted" and
// "painting" meet at "paint". It is deliberately light (no dictionary):
// plurals, -ing, -ed, -ly, -ies, -ness; words of three letters or fewer
// are kept as they are.
func Stem(w string) string {
	if len([]rune(w)) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ness") && len(w) > 6:
		return w[:len(w)-4]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return trimE(undouble(w[:len(w)-3]))
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return trimE(undouble(w[:len(w)-2]))
	case strings.HasSuffix(w, "ly") && len(w) > 5:
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return trimE(w[:len(w)-1])
	}
	return trimE(w)
}

// trimE drops a final "e" so "love", "loved" and "loving" share "lov".
func trimE(w string) string {
	if len(w) > 3 && w[len(w)-1] == 'e' {
		return w[:len(w)-1]
	}
	return w
}

// undouble turns "runn" (from "running") into "run".
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}
