package extract

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfText reads the text layer of a PDF, page by page (a blank line
// between pages): the glyphs of a page in the order drawn, a new line
// where the baseline moves by more than half the font size, a space where
// the gap to the previous glyph is wider than a sixth of it. A PDF with no
// text layer (a scan), an encrypted one, or one that cannot be parsed is
// refused with the reason; the text may be at most maxBytes.
//
// A PDF is untrusted input that the parser cannot be interrupted in (a
// page tree or a cross-reference chain that lists itself loops, a
// compressed stream may unpack to gigabytes), so it is parsed in a child
// process on a budget (see pdfchild.go): killed when ctx ends, when it
// spends more CPU time than the file's size allows, or when it needs
// more memory than PDFMemoryLimit.
func pdfText(ctx context.Context, name string, data []byte, maxBytes int) ([]byte, error) {
	return runPDFChild(ctx, name, data, maxBytes)
}

// pdfTextLocal is pdfText in this process, with no budget: the child's
// work.
func pdfTextLocal(name string, data []byte, maxBytes int) (out []byte, err error) {
	// The parser panics on some malformed files: that is a refusal too.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, Errorf(KindInvalid, "%s cannot be read as a PDF (damaged or unusual: %v)", name, r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if strings.Contains(err.Error(), "encrypt") || strings.Contains(err.Error(), "password") {
			return nil, Errorf(KindInvalid, "%s is an encrypted PDF: save it without a password first", name)
		}
		return nil, Errorf(KindInvalid, "%s cannot be read as a PDF: %v", name, err)
	}
	pages, err := pdfPages(r, len(data))
	if err != nil {
		return nil, Errorf(KindInvalid, "%s cannot be read as a PDF: %v", name, err)
	}
	texts := make([]string, 0, len(pages))
	size := 0
	for i, p := range pages {
		var b strings.Builder
		pageText(&b, p.Content().Text)
		texts = append(texts, b.String())
		if size += b.Len() + 2; size > maxBytes {
			return nil, Errorf(KindInvalid, "%s holds more than %d bytes of text (page %d of %d)", name, maxBytes, i+1, len(pages))
		}
	}
	text := strings.TrimSpace(joinPages(dropRunningLines(texts)))
	if text == "" {
		return nil, Errorf(KindInvalid, "%s has no text layer (%d pages; a scan needs text recognition first)", name, len(pages))
	}
	return []byte(text + "\n"), nil
}

// pdfPages lists a PDF's pages in order by one walk of its page tree, so
// a file of n pages costs n steps (the library's Page(i) walks from the
// root for each page, n² in all). A tree that lists a node twice (itself
// among its kids, or a kid of two parents) or nests deeper than
// maxPageTreeDepth is refused; so is one with more nodes than the file
// has room for.
func pdfPages(r *pdf.Reader, size int) ([]pdf.Page, error) {
	var pages []pdf.Page
	seen := map[uint64]bool{}
	visits := 0
	var walk func(v pdf.Value, depth int) error
	walk = func(v pdf.Value, depth int) error {
		if depth > maxPageTreeDepth {
			return fmt.Errorf("its page tree nests deeper than %d", maxPageTreeDepth)
		}
		if visits++; visits > size/8+16 {
			return fmt.Errorf("its page tree has more nodes than the file has room for")
		}
		if id, ok := pdfObjectID(v); ok {
			if seen[id] {
				return fmt.Errorf("its page tree lists an object twice (object %d)", id>>16)
			}
			seen[id] = true
		}
		switch v.Key("Type").Name() {
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				if err := walk(kids.Index(i), depth+1); err != nil {
					return err
				}
			}
		case "Page":
			pages = append(pages, pdf.Page{V: v})
		}
		return nil
	}
	if err := walk(r.Trailer().Key("Root").Key("Pages"), 0); err != nil {
		return nil, err
	}
	return pages, nil
}

// maxPageTreeDepth bounds how deep a page tree nests; writers keep
// theirs a few levels deep.
const maxPageTreeDepth = 64

// pdfObjectID is the number and generation of the indirect object a
// value was read from, when it was read from one. The library keeps it
// unexported; reflection reads it without changing anything.
func pdfObjectID(v pdf.Value) (uint64, bool) {
	p := reflect.ValueOf(v).FieldByName("ptr")
	if !p.IsValid() || p.Kind() != reflect.Struct || p.NumField() < 2 {
		return 0, false
	}
	id, gen := p.Field(0), p.Field(1)
	if !id.CanUint() || !gen.CanUint() || (id.Uint() == 0 && gen.Uint() == 0) {
		return 0, false
	}
	return id.Uint()<<16 | gen.Uint(), true
}

// runningEdge is how many lines at the top and at the bottom of a page
// may be a running header or footer.
const runningEdge = 3

// dropRunningLines drops what a printer repeats on every page: lines
// among the first or last runningEdge of a page that recur, digits aside,
// at the same end of at least half the pages (two at least: a title and
// date header, "3/5", a file's address), and lines there that are a page
// number alone ("12", "Page 3 of 5", "- 4 -").
func dropRunningLines(pages []string) []string {
	if len(pages) < 2 {
		return pages
	}
	lines := make([][]string, len(pages))
	topSeen, bottomSeen := map[string]int{}, map[string]int{}
	for i, p := range pages {
		lines[i] = strings.Split(strings.TrimSpace(p), "\n")
		top, bottom := map[string]bool{}, map[string]bool{}
		for j, l := range lines[i] {
			k := runningKey(l)
			if k == "" {
				continue
			}
			if j < runningEdge {
				top[k] = true
			}
			if j >= len(lines[i])-runningEdge {
				bottom[k] = true
			}
		}
		for k := range top {
			topSeen[k]++
		}
		for k := range bottom {
			bottomSeen[k]++
		}
	}
	most := max(2, (len(pages)+1)/2)
	out := make([]string, len(pages))
	for i, ls := range lines {
		kept := ls[:0:0]
		for j, l := range ls {
			k := runningKey(l)
			atTop, atBottom := j < runningEdge, j >= len(ls)-runningEdge
			if (atTop || atBottom) && (pageNumber(l) || atTop && topSeen[k] >= most || atBottom && bottomSeen[k] >= most) {
				continue
			}
			kept = append(kept, l)
		}
		out[i] = strings.Join(kept, "\n")
	}
	if strings.TrimSpace(strings.Join(out, "")) == "" {
		return pages // every line repeats: nothing tells a header from the text
	}
	return out
}

// runningKey is a line as it repeats from page to page: trimmed, digits
// as one mark ("3/5" and "4/5" are one line).
func runningKey(l string) string {
	var b strings.Builder
	digit := false
	for _, r := range strings.TrimSpace(l) {
		if r >= '0' && r <= '9' {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(r)
	}
	return b.String()
}

// pageNumber reports a line that is a page number alone.
func pageNumber(l string) bool {
	switch runningKey(strings.ToLower(l)) {
	case "#", "# / #", "#/#", "- # -", "– # –", "page #", "page # of #", "p. #", "[#]", "(#)":
		return true
	}
	return false
}

// joinPages joins the pages' text: a blank line between pages, or a line
// break where a page ends inside a sentence (no closing punctuation), so
// the sentence split by the page break reads as one.
func joinPages(pages []string) string {
	var b strings.Builder
	for _, p := range pages {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			prev := strings.TrimRight(b.String(), " ")
			if strings.ContainsAny(prev[len(prev)-1:], ".!?:;\"”)]") {
				b.WriteString("\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		b.WriteString(p)
	}
	return b.String()
}

// pageText writes a page's glyphs as lines of text. Where the parser
// knows no glyph widths of an embedded font (it gives each glyph of a run
// the run's start and no width, as for the fonts browsers print with), a
// run's end is
// estimated from its characters (see glyphWidth), and only a gap wider
// than the estimate's error is a space, so a word drawn as two runs for
// kerning ("Quarterly r" "eport") stays one word.
func pageText(b *strings.Builder, glyphs []pdf.Text) {
	var prev *pdf.Text
	end := 0.0 // where the previous glyph ends (estimated without widths)
	for i := range glyphs {
		g := &glyphs[i]
		if strings.TrimSpace(g.S) == "" && (g.S == "" || strings.ContainsAny(g.S, "\r\n")) {
			continue // a line break the parser drew: the baselines say it
		}
		size := math.Max(g.FontSize, 1)
		sameRun := prev != nil && g.W == 0 && prev.W == 0 && g.X == prev.X && g.Y == prev.Y && !standardFont(g.Font)
		// A space is wider than a sixth of the size; an estimated end
		// may be half an em short, so a gap must be wider to count.
		gap := size / 6
		if prev != nil && prev.W == 0 && !standardFont(prev.Font) {
			gap = size * 0.6
		}
		if prev != nil {
			switch {
			case math.Abs(g.Y-prev.Y) > size/2 && math.Abs(size-math.Max(prev.FontSize, 1)) > size/8:
				// A new line in another size: a heading and its text
				// are paragraphs apart, so a title is no sentence's
				// opening words.
				b.WriteString("\n\n")
			case math.Abs(g.Y-prev.Y) > size/2:
				b.WriteByte('\n')
			case !sameRun && g.X-end > gap && !strings.HasSuffix(prev.S, " ") && !strings.HasPrefix(g.S, " "):
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.S)
		switch {
		case g.W > 0 || standardFont(g.Font):
			end = g.X + g.W
		case sameRun:
			end += glyphWidth(g.S, size)
		default:
			end = g.X + glyphWidth(g.S, size)
		}
		prev = g
	}
}

// standardFont reports whether a font is one of the PDF's standard 14
// (Helvetica, Times, Courier, Symbol, ZapfDingbats), which a PDF may use
// without widths and whose writers place each word as a run of its own:
// there a new run on the line is a new word.
func standardFont(name string) bool {
	for _, f := range []string{"Helvetica", "Times", "Courier", "Symbol", "ZapfDingbats"} {
		if strings.HasPrefix(name, f) {
			return true
		}
	}
	return false
}

// glyphWidth estimates the width of text set at size in a proportional
// font: narrow letters and punctuation a third of the size, wide ones and
// capitals more, the rest half.
func glyphWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("ijlftrI.,;:!'|()[] ", r):
			w += 0.3
		case strings.ContainsRune("mwMW", r):
			w += 0.85
		case r >= 'A' && r <= 'Z':
			w += 0.65
		case r > 0x2e80: // CJK: a full em
			w += 1
		default:
			w += 0.5
		}
	}
	return w * size
}
