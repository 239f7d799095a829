package csvmap

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// record is one CSV record with its place in the document.
type record struct {
	line       int      // 1-based line of the record's first byte
	fields     []string // as decoded
	start, end int      // byte span of the record in the document (no newline)
	cells      [][2]int // byte span of each field (quotes included)
}

// text returns the record's source text.
func (r record) text(content string) string { return content[r.start:r.end] }

// cell returns the span of value v within field i: where it occurs in the
// field's source, else the whole field.
func (r record) cell(content string, i int, v string) (int, int) {
	if i < 0 || i >= len(r.cells) {
		return r.start, r.end
	}
	s, e := r.cells[i][0], r.cells[i][1]
	if v != "" {
		if j := strings.Index(content[s:e], v); j >= 0 {
			return s + j, s + j + len(v)
		}
	}
	return s, e
}

// utf8BOM is U+FEFF encoded.
const utf8BOM = "\ufeff"

// readTable decodes the content into records, one at a time: each is
// given to row as it is read, and reading stops when row returns false.
// Records that cannot be decoded are reported as failures; reading goes
// on after them.
func readTable(name, content string, row func(record) bool) []extract.ParseFailure {
	return readSpan(content, 0, len(content), delimiter(name, content), row)
}

// readSpan is readTable for the records of content[start:end], where
// start is where a record begins (a row chunk's start, see RowChunks):
// offsets and line numbers are the document's.
func readSpan(content string, start, end int, comma rune, row func(record) bool) []extract.ParseFailure {
	base := start
	if start == 0 && strings.HasPrefix(content, utf8BOM) {
		base = len(utf8BOM)
	}
	lines := strings.Count(content[:base], "\n") // before the span
	body := content[base:max(base, end)]
	lineStarts := make([]int, 1, strings.Count(body, "\n")+1)
	for i := 0; i < len(body); i++ {
		if body[i] == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	offset := func(line, col int) int {
		if line < 1 || line > len(lineStarts) {
			return len(body)
		}
		o := lineStarts[line-1] + col - 1
		return min(max(o, 0), len(body))
	}
	r := csv.NewReader(strings.NewReader(body))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var fails []extract.ParseFailure
	var cells [][2]int
	for {
		before := r.InputOffset()
		fields, err := r.Read()
		after := int(r.InputOffset())
		if err == io.EOF {
			break
		}
		if err != nil {
			line := lineOf(lineStarts, int(before))
			var pe *csv.ParseError
			reason := err.Error()
			if errors.As(err, &pe) {
				line, reason = pe.StartLine, pe.Err.Error()
				// A quote inside an unquoted field (JSON in KAG's SPO.csv:
				// {"confidence": 1.0}) is read as written.
				if errors.Is(pe.Err, csv.ErrBareQuote) && pe.StartLine == pe.Line {
					if rec, ok := lazyLine(body, lineStarts, pe.Line, r.Comma); ok {
						rec.line += lines
						if !row(rec.shift(base)) {
							break
						}
						continue
					}
				}
			}
			s := skipNewlines(body, int(before))
			fails = append(fails, failure(line+lines, body[s:trimEnd(body, s, after)], "malformed CSV: "+reason))
			if int64(after) <= before {
				break
			}
			continue
		}
		// The record's fields and cells are reused by the next record.
		cells = slices.Grow(cells[:0], len(fields))[:len(fields)]
		rec := record{fields: fields, cells: cells}
		line, col := r.FieldPos(0)
		rec.line = line + lines
		rec.start = offset(line, col)
		rec.end = max(trimEnd(body, rec.start, after), rec.start)
		for i := range fields {
			l, c := r.FieldPos(i)
			rec.cells[i][0] = min(max(offset(l, c), rec.start), rec.end)
		}
		for i := range fields {
			e := rec.end
			if i+1 < len(fields) {
				e = rec.cells[i+1][0] - utf8.RuneLen(r.Comma)
			}
			rec.cells[i][1] = min(max(e, rec.cells[i][0]), rec.end)
		}
		if !row(rec.shift(base)) {
			break
		}
	}
	return fails
}

// shift moves a record's offsets by n bytes.
func (r record) shift(n int) record {
	r.start += n
	r.end += n
	for i := range r.cells {
		r.cells[i][0] += n
		r.cells[i][1] += n
	}
	return r
}

// lazyLine reads one line of body as a record with bare quotes allowed.
func lazyLine(body string, lineStarts []int, line int, comma rune) (record, bool) {
	if line < 1 || line > len(lineStarts) {
		return record{}, false
	}
	start := lineStarts[line-1]
	end := len(body)
	if line < len(lineStarts) {
		end = lineStarts[line] - 1
	}
	end = trimEnd(body, start, end)
	text := body[start:end]
	lr := csv.NewReader(strings.NewReader(text))
	lr.Comma = comma
	lr.LazyQuotes = true
	lr.FieldsPerRecord = -1
	fields, err := lr.Read()
	if err != nil || lr.InputOffset() < int64(len(text)) {
		return record{}, false
	}
	rec := record{line: line, fields: fields, start: start, end: end, cells: make([][2]int, len(fields))}
	for i := range fields {
		_, c := lr.FieldPos(i)
		rec.cells[i][0] = min(start+c-1, end)
	}
	for i := range fields {
		e := end
		if i+1 < len(fields) {
			e = rec.cells[i+1][0] - utf8.RuneLen(comma)
		}
		rec.cells[i][1] = min(max(e, rec.cells[i][0]), end)
	}
	return rec, true
}

// delimiter is a tab for .tsv files and for a first line with tabs and no
// commas, a comma otherwise.
func delimiter(name, body string) rune {
	if strings.EqualFold(path.Ext(name), ".tsv") {
		return '\t'
	}
	first, _, _ := strings.Cut(body, "\n")
	if strings.Contains(first, "\t") && !strings.Contains(first, ",") {
		return '\t'
	}
	return ','
}

// lineOf returns the 1-based line holding byte off.
func lineOf(starts []int, off int) int {
	return max(sort.Search(len(starts), func(i int) bool { return starts[i] > off }), 1)
}

func skipNewlines(s string, i int) int {
	for i < len(s) && (s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// trimEnd returns end moved back over the newline that ends a record.
func trimEnd(s string, start, end int) int {
	end = min(end, len(s))
	for end > start && (s[end-1] == '\n' || s[end-1] == '\r') {
		end--
	}
	return max(end, start)
}

// failure builds a parse failure for a row.
func failure(line int, text, reason string) extract.ParseFailure {
	return extract.ParseFailure{Line: fmt.Sprintf("row %d: %s", line, extract.Clip(text, 200)), Reason: reason}
}

// cleanHeader trims a header cell of spaces, a byte-order mark and
// zero-width characters.
func cleanHeader(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\ufeff', '\u200b', '\u200c', '\u200d', '\u2060':
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}
