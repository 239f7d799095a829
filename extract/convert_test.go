package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestToText_HTML: a page's title and the text of its blocks, a block a
// paragraph, without scripts, styles or markup; entities decoded.
func TestToText_HTML(t *testing.T) {
	page := `<!doctype html><html><head><title>Marley &amp; Scrooge</title><style>p{color:red}</style>
<script>var x = "not text";</script></head><body><h1>Stave One</h1><p>Marley was <b>dead</b>,
to begin with.</p><ul><li>Scrooge</li><li>Cratchit</li></ul><noscript>enable scripts</noscript>
<table><tr><td>Cell A</td><td>Cell B</td></tr></table></body></html>`
	got, err := ToText(t.Context(), "carol.html", []byte(page), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "Marley & Scrooge\n\nStave One\n\nMarley was dead, to begin with.\n\nScrooge\n\nCratchit\n\nCell A\tCell B"
	if string(got) != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	d, err := ReadDocument("carol.html", got, 0)
	if err != nil || !strings.Contains(d.Content, "Marley was dead") {
		t.Fatalf("document %+v (%v)", d, err)
	}
}

// docx builds a minimal Word document of paragraphs.
func docx(t *testing.T, paras ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	for _, p := range paras {
		b.WriteString(`<w:p><w:r><w:t xml:space="preserve">` + p + `</w:t></w:r></w:p>`)
	}
	b.WriteString(`<w:p><w:r><w:t>Split</w:t></w:r><w:r><w:tab/><w:t> run</w:t></w:r></w:p></w:body></w:document>`)
	w.Write([]byte(b.String()))
	zw.Close()
	return buf.Bytes()
}

// TestToText_DOCX: a Word document's paragraphs, a paragraph a block,
// runs joined, tabs kept; a zip without a document part, and one whose
// text is over the limit, are refused with the reason.
func TestToText_DOCX(t *testing.T) {
	got, err := ToText(t.Context(), "notes.docx", docx(t, "Ada Lovelace wrote the first program.", "Charles Babbage &amp; the Engine."), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "Ada Lovelace wrote the first program.\n\nCharles Babbage & the Engine.\n\nSplit\t run"
	if string(got) != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("other.xml")
	w.Write([]byte("<x/>"))
	zw.Close()
	if _, err := ToText(t.Context(), "bad.docx", buf.Bytes(), 0); KindOf(err) != KindInvalid || !strings.Contains(err.Error(), "word/document.xml") {
		t.Fatalf("a zip without a document part: %v", err)
	}
	if _, err := ToText(t.Context(), "bad.docx", []byte("not a zip"), 0); KindOf(err) != KindInvalid {
		t.Fatalf("not a zip: %v", err)
	}
	if _, err := ToText(t.Context(), "big.docx", docx(t, strings.Repeat("word ", 400)), 1000); KindOf(err) != KindInvalid {
		t.Fatalf("over the limit: %v", err)
	}
}

// An HTML page or a Word document being read stops when its request
// does (the client left, or a deadline passed), with the context's error;
// a small one is read before the first look.
func TestToText_HTMLAndDOCXCanceled(t *testing.T) {
	paras := make([]string, 20_000)
	for i := range paras {
		paras[i] = "Marley was dead."
	}
	page := []byte("<html><body><p>" + strings.Join(paras, "</p><p>") + "</p></body></html>")
	doc := docx(t, paras...)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for name, data := range map[string][]byte{"big.html": page, "big.docx": doc} {
		if _, err := ToText(ctx, name, data, DefaultMaxBytes); !errors.Is(err, context.Canceled) {
			t.Errorf("%s, canceled: %v", name, err)
		}
		got, err := ToText(t.Context(), name, data, DefaultMaxBytes)
		if err != nil || strings.Count(string(got), "Marley was dead.") != len(paras) {
			t.Errorf("%s: %d paragraphs (%v)", name, strings.Count(string(got), "Marley was dead."), err)
		}
	}
	if _, err := ToText(ctx, "small.html", []byte("<p>Marley</p>"), 0); err != nil {
		t.Errorf("small page: %v", err)
	}
}
