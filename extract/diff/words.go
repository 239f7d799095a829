package diff

import (
	"unicode"
	"unicode/utf8"
)

// Segment is one run of a word diff. Op is "=" (in both), "-" (only in the
// old text) or "+" (only in the new text). Concatenating the "=" and "-"
// segments gives the old text; the "=" and "+" segments give the new one.
type Segment struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// MaxDiffCells bounds the work of one word diff: when the differing middle
// parts of the two texts (after removing the common prefix and suffix) have
// n and m words with n*m above this bound, the middle is reported as one
// removal and one addition instead of being aligned word by word.
const MaxDiffCells = 1 << 18

// Words returns the word diff from old to new. Words are runs of
// non-space characters together with the whitespace that follows them;
// Han, kana and Hangul characters count as one word each, so CJK text
// without spaces still diffs finely. The result is empty when both texts
// are empty.
func Words(old, new string) []Segment {
	a, b := tokenize(old), tokenize(new)
	// Common prefix and suffix.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var out []Segment
	for _, t := range a[:p] {
		out = appendSeg(out, "=", t)
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) > MaxDiffCells {
		for _, t := range ma {
			out = appendSeg(out, "-", t)
		}
		for _, t := range mb {
			out = appendSeg(out, "+", t)
		}
	} else {
		out = lcs(out, ma, mb)
	}
	for _, t := range a[len(a)-s:] {
		out = appendSeg(out, "=", t)
	}
	if out == nil {
		out = []Segment{}
	}
	return out
}

// lcs appends the alignment of a and b found by the classic longest common
// subsequence table.
func lcs(out []Segment, a, b []string) []Segment {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		for _, t := range a {
			out = appendSeg(out, "-", t)
		}
		for _, t := range b {
			out = appendSeg(out, "+", t)
		}
		return out
	}
	// t[i][j] is the LCS length of a[i:] and b[j:].
	w := m + 1
	t := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = appendSeg(out, "=", a[i])
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			out = appendSeg(out, "-", a[i])
			i++
		default:
			out = appendSeg(out, "+", b[j])
			j++
		}
	}
	for ; i < n; i++ {
		out = appendSeg(out, "-", a[i])
	}
	for ; j < m; j++ {
		out = appendSeg(out, "+", b[j])
	}
	return out
}

// appendSeg adds text to the last segment when it has the same op.
func appendSeg(out []Segment, op, text string) []Segment {
	if n := len(out); n > 0 && out[n-1].Op == op {
		out[n-1].Text += text
		return out
	}
	return append(out, Segment{Op: op, Text: text})
}

// tokenize cuts s into words with their trailing whitespace; leading
// whitespace is a token of its own. Invalid UTF-8 bytes are kept as they are.
func tokenize(s string) []string {
	var toks []string
	start := 0
	i := 0
	// Leading whitespace.
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	if i > 0 {
		toks = append(toks, s[:i])
		start = i
	}
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isIdeograph(r) {
			// Close the word before, then the ideograph is a word.
			if i > start {
				toks = append(toks, s[start:i])
			}
			start = i
			i += size
			i = skipSpace(s, i)
			toks = append(toks, s[start:i])
			start = i
			continue
		}
		if unicode.IsSpace(r) {
			i = skipSpace(s, i)
			toks = append(toks, s[start:i])
			start = i
			continue
		}
		i += size
	}
	if start < len(s) {
		toks = append(toks, s[start:])
	}
	return toks
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

func isIdeograph(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
