package nlp

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// greetings are capitalised phrases that name no one ("Merry
// Christmas!"): they stay concepts and never stand in for a short form.
var greetings = setOf("Merry Christmas", "Happy Christmas", "Happy New Year", "Good Morning", "Good Afternoon",
	"Good Evening", "Good Night", "Good Day", "Happy Birthday", "Happy Easter")

// feasts are named days, concepts rather than persons ("Christmas Eve").
var feasts = setOf("Christmas", "Christmas Eve", "Christmas Day", "New Year", "New Year's Eve", "New Year's Day",
	"Easter", "Easter Sunday", "Good Friday", "Boxing Day", "Twelfth Night", "Christmas-time", "Christmas Eves",
	"Thanksgiving", "Halloween", "Hanukkah", "Ramadan", "Lent", "Whitsun", "Michaelmas", "Candlemas")

// saints are the titles that may open a place name.
var saints = setOf("St.", "St", "Saint")

// speechVerbs after a name make it a person.
var speechVerbs = setOf("said", "says", "asked", "replied", "cried", "exclaimed", "answered", "whispered", "returned",
	"thought", "muttered", "observed", "rejoined", "repeated", "shouted", "added", "continued", "sighed", "laughed")

// setOf builds a set of strings.
func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// isCap reports whether a token starts with an upper-case letter.
func isCap(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// titleCase turns "WORD" into "Word".
func titleCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + strings.ToLower(s[n:])
}

// isOpener reports opening quotes and brackets, after which a capital does
// not mark a name.
func isOpener(s string) bool {
	switch s {
	case "\"", "'", "(", "[", "\u201c", "\u2018", "--", "-", ":", ";":
		return true
	}
	return false
}

// hasLetter reports whether s holds a letter.
func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// resolve merges the candidates: where two overlap, the higher priority
// wins (a title in quotes over anything inside it, a named number such as
// "Studio 92" over the number, a date or number over a run of capitalised
// words), then the longer, then the earlier. Names are the surface text
// with white space collapsed.
func resolve(text string, cands []entity) []entity {
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].start != cands[j].start {
			return cands[i].start < cands[j].start
		}
		return cands[i].end > cands[j].end
	})
	kept := cands[:0]
	for _, c := range cands {
		// Drop c if it clashes with a kept candidate that wins; remove
		// the kept ones it beats.
		lose := false
		k := len(kept)
		for k > 0 && kept[k-1].end > c.start {
			k--
		}
		var beaten []int
		for x := k; x < len(kept); x++ {
			p := kept[x]
			if p.end <= c.start || c.end <= p.start {
				continue
			}
			if beats(p, c) {
				lose = true
				break
			}
			beaten = append(beaten, x)
		}
		if lose {
			continue
		}
		for n := len(beaten) - 1; n >= 0; n-- {
			x := beaten[n]
			kept = append(kept[:x], kept[x+1:]...)
		}
		kept = append(kept, c)
	}
	for i := range kept {
		kept[i].name = strings.Join(strings.Fields(text[kept[i].start:kept[i].end]), " ")
	}
	return kept
}

// beats reports whether candidate a wins over an overlapping b.
func beats(a, b entity) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if la, lb := a.end-a.start, b.end-b.start; la != lb {
		return la > lb
	}
	return a.start <= b.start
}

// repeats reports whether a word occurs twice among words.
func repeats(words []string) bool {
	for i := 1; i < len(words); i++ {
		for j := 0; j < i; j++ {
			if words[i] == words[j] {
				return true
			}
		}
	}
	return false
}

// opensSentence reports whether the word at byte i opens a sentence: only
// spaces, quotes and brackets lie between it and the start of the text, a
// blank line, or a sentence end (".", "!", "?", ":").
func opensSentence(text string, i int) bool {
	newlines := 0
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		switch {
		case r == '\n':
			if newlines++; newlines >= 2 {
				return true
			}
		case unicode.IsSpace(r), strings.ContainsRune("'\"‘’“”([", r):
		case r == '.':
			// "Mr. Fezziwig", "J. Smith": an abbreviation, no sentence end.
			w := text[:i-n]
			k := strings.LastIndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
			w = w[k+1:]
			return !(titles[w+"."] || titles[w] || utf8.RuneCountInString(w) == 1 && isCap(w))
		case strings.ContainsRune("!?:", r):
			return true
		default:
			return false
		}
		i -= n
	}
	return true
}
