package extract

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Clip shortens s to at most n bytes, cutting on a rune boundary, and marks
// the cut with "…". Text that fits is returned as it is.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:RuneBoundary(s, n)] + "…"
}

// RuneBoundary returns the largest i <= n at which s can be cut without
// splitting a rune.
func RuneBoundary(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// MostlyHan reports whether at least a fifth of the letters of text are
// Han characters: Chinese text, for choosing the language of prompts and
// answers.
func MostlyHan(text string) bool {
	han, letters := 0, 0
	for _, r := range text {
		if unicode.Is(unicode.Han, r) {
			han++
			letters++
		} else if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters > 0 && han*5 >= letters
}

// Count says how many of a thing there are: "1 document", "3 documents"
// (the plural is word+"s").
func Count(n int, word string) string {
	s := strconv.Itoa(n) + " " + word
	if n != 1 {
		s += "s"
	}
	return s
}
