package extract

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// testPDF builds a PDF of the given pages, each a list of lines drawn with
// Helvetica one below the other (its cross-reference table computed, as a
// writer would), so the tests need no binary fixture.
func testPDF(pages ...[]string) []byte {
	var objs []string
	font := 3 + 2*len(pages)
	kids := ""
	for i := range pages {
		kids += fmt.Sprintf("%d 0 R ", 3+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.TrimSpace(kids), len(pages)))
	for i, lines := range pages {
		var c strings.Builder
		c.WriteString("BT /F1 12 Tf 72 720 Td 14 TL\n")
		for j, l := range lines {
			if j > 0 {
				c.WriteString("T* ")
			}
			// Two words drawn apart, as a typesetter places them.
			w := strings.SplitN(l, " ", 2)
			if len(w) == 2 {
				fmt.Fprintf(&c, "[(%s) -250 (%s)] TJ\n", w[0], w[1])
			} else {
				fmt.Fprintf(&c, "(%s) Tj\n", l)
			}
		}
		c.WriteString("ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", 4+2*i, font),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	return rawPDF(objs, false)
}

// A page a browser printed (Chromium's "Save as PDF", fonts embedded
// without widths the parser reads, words cut into runs for kerning) reads
// as the words it shows, not "Quarterly r eport" or "W ayne"; its heading,
// set larger than the text, is a paragraph of its own.
func TestToText_BrowserPrintedPDF(t *testing.T) {
	data, err := os.ReadFile("testdata/browser-printed.pdf")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ToText(t.Context(), "report.pdf", data, DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	want := "Quarterly report\n\nThe Tokyo office of Wayne Enterprises reported strong growth. Bruce Wayne met Lucius Fox in Tokyo.\n"
	if string(got) != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// A PDF's text layer becomes a document: a line per baseline, words
// apart, a blank line between pages; a PDF without text, a damaged one
// and one whose text is over the limit are refused with the reason.
func TestToText_PDF(t *testing.T) {
	data := testPDF([]string{"Marley was dead", "to begin with."}, []string{"Scrooge signed it."})
	got, err := ToText(t.Context(), "carol.pdf", data, DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	text := string(got)
	for _, want := range []string{"Marley was dead\nto begin with.", "\n\nScrooge signed it."} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	d, err := ReadDocument("carol.pdf", got, DefaultMaxBytes)
	if err != nil || !strings.Contains(d.Content, "Scrooge") {
		t.Fatalf("the text is not a document: %v", err)
	}
	for name, c := range map[string]struct {
		data []byte
		max  int
		want string
	}{
		"no text":   {testPDF([]string{}), DefaultMaxBytes, "no text layer"},
		"damaged":   {data[:len(data)/2], DefaultMaxBytes, "cannot be read"},
		"not a PDF": {[]byte("hello"), DefaultMaxBytes, "cannot be read"},
		"too long":  {data, 10, "more than 10 bytes"},
	} {
		_, err := ToText(t.Context(), "x.pdf", c.data, c.max)
		if KindOf(err) != KindInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an invalid error saying %q", name, err, c.want)
		}
	}
}

// A PDF reader meets hostile files: whatever the bytes, it answers text or
// an invalid error, never a panic or another kind of error.
func FuzzPDFText(f *testing.F) {
	f.Add(testPDF([]string{"Marley was dead", "to begin with."}))
	f.Add(testPDF([]string{"one"}, []string{"two words"}))
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := pdfText(t.Context(), "f.pdf", data, 1<<16)
		if err != nil && KindOf(err) != KindInvalid {
			t.Fatalf("error of kind %v: %v", KindOf(err), err)
		}
		if err == nil && len(out) > 1<<16+1 {
			t.Fatalf("%d bytes of text past the limit", len(out))
		}
	})
}

// rawPDF writes objects (their bodies, numbered from 1) with a computed
// cross-reference table and the trailer's extra entries; prevSelf points
// the trailer's /Prev at its own table, a chain that never ends.
func rawPDF(objs []string, prevSelf bool) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	prev := ""
	if prevSelf {
		prev = fmt.Sprintf(" /Prev %d", xref)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, prev, xref)
	return b.Bytes()
}

// onePage is a one-page PDF whose page draws content.
func onePage(content string, prevSelf bool) []byte {
	return rawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}, prevSelf)
}

// Hostile PDFs are refused with the reason, in bounded time and memory:
// a page tree that lists itself, a cross-reference chain that points at
// itself (the parser loops inside its reader: the child is killed on its
// CPU budget), a string that unpacks past the memory budget, arrays
// nested millions deep. None hangs the caller or takes its memory.
func TestToText_HostilePDFs(t *testing.T) {
	selfTree := rawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 2 >>",
	}, false)
	var big bytes.Buffer
	big.WriteString("BT /F1 12 Tf (")
	big.Write(bytes.Repeat([]byte("A"), 600<<20))
	big.WriteString(") Tj ET")
	bomb := compressedPage(t, big.Bytes())
	nested := onePage("BT "+strings.Repeat("[", 3_000_000)+" ET", false)
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"page tree lists itself": {selfTree, "lists an object twice"},
		"xref chain loops":       {onePage("BT /F1 12 Tf (x) Tj ET", true), "to read as a PDF"},
		"decompression bomb":     {bomb, "refused"},
		"nested arrays":          {nested, "x.pdf"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ToText(t.Context(), "x.pdf", c.data, DefaultMaxBytes)
			t.Log(err)
			if KindOf(err) != KindInvalid || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%d bytes: %v, want an invalid error saying %q", len(c.data), err, c.want)
			}
		})
	}
}

// compressedPage is a one-page PDF whose content stream is content
// compressed with Flate.
func compressedPage(t testing.TB, content []byte) []byte {
	var z bytes.Buffer
	w, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return rawPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}, false)
}

// A PDF of many pages is read in one walk of its page tree: every page's
// text, in order.
func TestToText_ManyPages(t *testing.T) {
	pages := make([][]string, 2000)
	for i := range pages {
		pages[i] = []string{"Word" + letters(i) + "."}
	}
	got, err := ToText(t.Context(), "many.pdf", testPDF(pages...), DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(got))
	if len(lines) != len(pages) || lines[0] != "Worda." || lines[len(lines)-1] != "Word"+letters(1999)+"." {
		t.Fatalf("%d pages read, first %q", len(lines), lines[0])
	}
}

// letters writes n in base 26 with the letters a to z.
func letters(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		if n /= 26; n == 0 {
			return s
		}
	}
}

// A printed page's running header and footer (a title and date, a page
// number, "3/5") are not text: they are dropped, and a sentence the page
// break cut in two reads as one.
func TestToText_RunningHeadersDropped(t *testing.T) {
	var pages [][]string
	body := [][]string{
		{"Apollo guidance was hard.", "The guidance officer was"},
		{"Steve Bales, who made the call.", "Kennedy set the goal."},
		{"The crew landed in July.", "Armstrong stepped out first."},
	}
	for i, b := range body {
		page := append([]string{"Apollo program notes 12/06/2026"}, b...)
		page = append(page, fmt.Sprintf("%d/%d", i+1, len(body)))
		pages = append(pages, page)
	}
	got, err := ToText(t.Context(), "apollo.pdf", testPDF(pages...), DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	text := string(got)
	for _, gone := range []string{"program notes", "1/3", "2/3", "3/3"} {
		if strings.Contains(text, gone) {
			t.Errorf("the running line %q is in the text:\n%s", gone, text)
		}
	}
	if !strings.Contains(text, "The guidance officer was\nSteve Bales") {
		t.Errorf("the sentence cut by the page break is not joined:\n%s", text)
	}
	if !strings.Contains(text, "Kennedy set the goal.\n\nThe crew landed") {
		t.Errorf("pages that end a sentence are not kept apart:\n%s", text)
	}
}

// A request that ends stops its PDF's reader at once.
func TestToText_PDFCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := ToText(ctx, "x.pdf", onePage("BT /F1 12 Tf (x) Tj ET", true), DefaultMaxBytes); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
}

// BenchmarkPDFPages reads a PDF of 10,000 one-line pages: the time per
// page stays flat as pages grow (one walk of the page tree).
func BenchmarkPDFPages(b *testing.B) {
	pages := make([][]string, 10_000)
	for i := range pages {
		pages[i] = []string{fmt.Sprintf("Page %d", i)}
	}
	data := testPDF(pages...)
	b.ReportMetric(float64(len(data)), "bytes")
	for b.Loop() {
		if _, err := ToText(b.Context(), "many.pdf", data, DefaultMaxBytes); err != nil {
			b.Fatal(err)
		}
	}
}
