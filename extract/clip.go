package extract

import "unicode/utf8"

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
