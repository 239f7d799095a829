package diff

import (
	"unicode"
	"unicode/utf8"
)

// Segment is one run of a word diff or one line of a line diff. Op is "="
// (in both), "-" (only in the old text) or "+" (only in the new text). In a
// word diff, concatenating the "=" and "-" segments gives the old text and
// the "=" and "+" segments give the new one; Lines leaves out the line
// breaks.
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
	var out []Segment
	align(tokenize(old), tokenize(new),
		func(n, m int) bool { return n*m <= MaxDiffCells },
		func(op, tok string) { out = appendSeg(out, op, tok) })
	if out == nil {
		out = []Segment{}
	}
	return out
}

// align walks an alignment of the token lists a and b and calls emit for
// every token in order with its op ("=", "-" or "+"). The common prefix and
// suffix are matched first; the differing middle, of n and m tokens, is
// aligned by the longest common subsequence when fits(n, m) allows the
// table, and is otherwise reported as all its removals, then all its
// additions.
func align(a, b []string, fits func(n, m int) bool, emit func(op, tok string)) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	for _, t := range a[:p] {
		emit("=", t)
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if fits(len(ma), len(mb)) {
		lcs(ma, mb, emit)
	} else {
		for _, t := range ma {
			emit("-", t)
		}
		for _, t := range mb {
			emit("+", t)
		}
	}
	for _, t := range a[len(a)-s:] {
		emit("=", t)
	}
}

// lcs emits the alignment of a and b found by the classic longest common
// subsequence table; of two equally long alignments it removes first.
func lcs(a, b []string, emit func(op, tok string)) {
	n, m := len(a), len(b)
	if n > 0 && m > 0 {
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
				emit("=", a[i])
				i++
				j++
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				emit("-", a[i])
				i++
			default:
				emit("+", b[j])
				j++
			}
		}
		a, b = a[i:], b[j:]
	}
	for _, t := range a {
		emit("-", t)
	}
	for _, t := range b {
		emit("+", t)
	}
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
