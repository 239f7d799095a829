package extract

import (
	"bytes"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfText reads the text layer of a PDF, page by page (a blank line
// between pages): the glyphs of a page in the order drawn, a new line
// where the baseline moves by more than half the font size, a space where
// the gap to the previous glyph is wider than a sixth of it. A PDF with no
// text layer (a scan), an encrypted one, or one that cannot be parsed is
// refused with the reason; the text may be at most maxBytes.
func pdfText(name string, data []byte, maxBytes int) (out []byte, err error) {
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
	var b strings.Builder
	pages := r.NumPage()
	for i := 1; i <= pages; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		pageText(&b, p.Content().Text)
		if b.Len() > maxBytes {
			return nil, Errorf(KindInvalid, "%s holds more than %d bytes of text (page %d of %d)", name, maxBytes, i, pages)
		}
	}
	text := strings.TrimSpace(b.String())
	if text == "" {
		return nil, Errorf(KindInvalid, "%s has no text layer (%d pages; a scan needs text recognition first)", name, pages)
	}
	return []byte(text + "\n"), nil
}

// pageText writes a page's glyphs as lines of text.
func pageText(b *strings.Builder, glyphs []pdf.Text) {
	var prev *pdf.Text
	for i := range glyphs {
		g := &glyphs[i]
		if strings.TrimSpace(g.S) == "" && (g.S == "" || strings.ContainsAny(g.S, "\r\n")) {
			continue // a line break the parser drew: the baselines say it
		}
		size := math.Max(g.FontSize, 1)
		if prev != nil {
			switch {
			case math.Abs(g.Y-prev.Y) > size/2:
				b.WriteByte('\n')
			case g.X-(prev.X+prev.W) > size/6 && !strings.HasSuffix(prev.S, " ") && !strings.HasPrefix(g.S, " "):
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.S)
		prev = g
	}
}
