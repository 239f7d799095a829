package nlp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// fixTokens repairs prose's tokens where they would spoil names and
// sentences:
//   - a capital letter and the period right after it are one token, an
//     initial ("William P. Carey"), so the period ends no sentence;
//   - a word with a trailing period that is no abbreviation ("Zia." before
//     "Khalidi has ...") is split into the word and a full stop;
//   - a word with a clitic that prose kept whole ("I'd", "you'll") is split
//     into the word and the clitic.
func fixTokens(text string, toks []tok) []tok {
	out := make([]tok, 0, len(toks)+8)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case (isLetterInitial(t.text) && t.text != "I" || len(t.text) > 2 && isInitial(t.text+".")) && i+1 < len(toks) &&
			toks[i+1].text == "." && toks[i+1].start == t.end:
			t.text, t.end, t.tag = text[t.start:toks[i+1].end], toks[i+1].end, "NNP"
			out = append(out, t)
			i++
			continue
		case len(t.text) > 2 && strings.HasSuffix(t.text, ".") && !isAbbreviation(t.text):
			w := tok{text: t.text[:len(t.text)-1], tag: t.tag, label: t.label, start: t.start, end: t.end - 1}
			out = append(out, w, tok{text: ".", tag: ".", start: t.end - 1, end: t.end})
			continue
		}
		// "'Jacob": a quote that opens speech, kept on the word by the
		// tagger.
		if q, n := utf8.DecodeRuneInString(t.text); (q == '\'' || q == '‘') && n < len(t.text) && t.end-t.start == len(t.text) &&
			!leadingClitics[strings.ToLower(t.text[n:])] {
			if r, _ := utf8.DecodeRuneInString(t.text[n:]); unicode.IsLetter(r) {
				tag := "NN"
				if unicode.IsUpper(r) {
					tag = "NNP"
				}
				out = append(out, tok{text: t.text[:n], tag: "``", start: t.start, end: t.start + n},
					tok{text: t.text[n:], tag: tag, start: t.start + n, end: t.end})
				continue
			}
		}
		if k := clitic(t.text); k > 0 && t.end-t.start == len(t.text) {
			base, cl := t.text[:k], t.text[k:]
			if _, ok := contractions[strings.ToLower(strings.ReplaceAll(cl, "’", "'"))]; ok {
				out = append(out, tok{text: base, tag: t.tag, label: t.label, start: t.start, end: t.start + k},
					tok{text: cl, tag: "MD", start: t.start + k, end: t.end})
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// leadingClitics are words that open with an apostrophe.
var leadingClitics = setOf("s", "ll", "d", "ve", "re", "m", "em", "tis", "twas", "t", "n", "cause", "til", "bout")

// clitic returns the byte index of the apostrophe of a clitic ending a
// word ("I'd" -> 1, "you’ll" -> 3), or -1.
func clitic(w string) int {
	i := strings.LastIndexAny(w, "'’")
	if i <= 0 || i == len(w)-1 {
		return -1
	}
	return i
}

// isLetterInitial reports a single upper-case letter.
func isLetterInitial(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == len(s) && unicode.IsUpper(r)
}

// isInitial reports an initial or a run of initials: "P.", "J.R.R.",
// "U.S.".
func isInitial(s string) bool {
	if len(s) < 2 || !strings.HasSuffix(s, ".") {
		return false
	}
	prevDot := true
	for _, r := range s {
		switch {
		case r == '.':
			if prevDot {
				return false
			}
			prevDot = true
		case unicode.IsUpper(r) && prevDot:
			prevDot = false
		default:
			return false
		}
	}
	return true
}

// isAbbreviation reports a token whose period is part of it: a known
// abbreviation, an initial or a dotted acronym ("U.S.", "e.g.").
func isAbbreviation(s string) bool {
	if abbreviations[s] || isInitial(s) {
		return true
	}
	// Dotted words such as "e.g." or "Ph.D." keep their periods.
	return strings.Count(s, ".") >= 2
}

// isAllCaps reports a word of two or more letters, all upper case
// ("PLEASE", "NASA", "MARLEY'S").
func isAllCaps(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters >= 2
}

// maskMarkup blanks plain-text markup so that it never becomes part of a
// name: underscores and asterisks that open or close a word (Gutenberg's
// _italics_ and *bold*) and runs of two or more hyphens used as dashes
// ("Eve--old Scrooge"). Each masked byte becomes a space, so byte offsets
// are unchanged; underscores inside a word ("snake_case") stay.
func maskMarkup(text string) string {
	if !strings.ContainsAny(text, "_*") && !strings.Contains(text, "--") {
		return text
	}
	b := []byte(text)
	wordByte := func(i int) bool {
		if i < 0 || i >= len(b) {
			return false
		}
		c := b[i]
		return c >= 0x80 || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '_', '*':
			if !(wordByte(i-1) && wordByte(i+1)) {
				b[i] = ' '
			}
		case '-':
			j := i
			for j < len(b) && b[j] == '-' {
				j++
			}
			if j-i >= 2 {
				for k := i; k < j; k++ {
					b[k] = ' '
				}
			}
			i = j - 1
		}
	}
	return string(b)
}
