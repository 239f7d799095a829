package diff

import "strings"

// maxLineCells bounds the table of one line diff: when the differing middle
// parts of the two texts have n and m lines with (n+1)*(m+1) above this
// bound, the middle is reported as all its removed lines, then all its
// added lines.
const maxLineCells = 4 << 20

// Lines returns the line diff from old to new: one segment per line, in
// order, without its line break. A final line break does not start an
// empty line, and an empty text has no lines. It aligns lines the way Words
// aligns words.
func Lines(old, new string) []Segment {
	var out []Segment
	align(splitLines(old), splitLines(new),
		func(n, m int) bool { return (n+1)*(m+1) <= maxLineCells },
		func(op, line string) { out = append(out, Segment{Op: op, Text: line}) })
	return out
}

// splitLines cuts s at line breaks, leaving out a final one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
