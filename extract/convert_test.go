package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
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

// A page's furniture is left out as a reading mode leaves it: navigation,
// the site header, cookie notice, sidebar, share buttons and footer (by
// element, role, class or id); a page marking its main content gives that
// content (with the title); one marking none keeps its body's text; a
// marked content of next to nothing is not taken for the page.
func TestToText_HTMLBoilerplate(t *testing.T) {
	page := `<html><head><title>Wright brothers | Encyclopedia of Flight</title></head><body>
<header class="site-header"><a href="/">Home</a> <span>Encyclopedia of Flight</span></header>
<div id="cookie-banner">We use cookies to improve your experience. <button>Accept all</button></div>
<nav><ul><li>History</li><li>Aircraft</li><li><div>Unclosed menu item</li></ul></nav>
<div role="navigation">Skip to content</div>
<main><article><header><h1>The Wright brothers</h1><p class="byline">By A. Writer</p></header>
<p>Orville and Wilbur Wright built the first successful airplane.</p>
<p>They flew it at Kitty Hawk in 1903.</p>
<div class="share-buttons">Share on Facebook Share on X</div></article></main>
<aside class="sidebar">Related: Gliders of the 1890s</aside>
<footer>Copyright 2024 Encyclopedia of Flight. Privacy policy.</footer>
</body></html>`
	got, err := ToText(t.Context(), "wright.html", []byte(page), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Wright brothers", "The Wright brothers", "Orville and Wilbur Wright built the first successful airplane.", "Kitty Hawk in 1903."} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%q missing from %q", want, got)
		}
	}
	for _, junk := range []string{"cookies", "Accept", "History", "Unclosed", "Skip to", "Share on", "Related", "Copyright", "Home", "Encyclopedia of Flight"} {
		if strings.Contains(string(got), junk) {
			t.Errorf("furniture %q kept: %q", junk, got)
		}
	}
	// No marked content: the body less its furniture.
	plain := strings.NewReplacer("<main>", "<div>", "</main>", "</div>", "<article>", "<div>", "</article>", "</div>").Replace(page)
	got, err = ToText(t.Context(), "wright.html", []byte(plain), 0)
	if err != nil || !strings.Contains(string(got), "Kitty Hawk in 1903.") || strings.Contains(string(got), "Copyright") || strings.Contains(string(got), "cookies") {
		t.Errorf("unmarked page: %q (%v)", got, err)
	}
	// A marked content that is a sliver of the page is not the page.
	sliver := `<html><body><main><p>Hi.</p></main><div><p>` + strings.Repeat("Orville Wright flew at Kitty Hawk. ", 20) + `</p></div></body></html>`
	if got, err := ToText(t.Context(), "sliver.html", []byte(sliver), 0); err != nil || !strings.Contains(string(got), "Kitty Hawk") {
		t.Errorf("sliver main: %q (%v)", got, err)
	}
}

// Any page is read without a panic or an error, and a page of valid
// UTF-8 gives valid UTF-8.
func FuzzHTMLText(f *testing.F) {
	f.Add("<html><head><title>T</title></head><body><nav>menu</nav><main><p>Marley was dead.</p></main></body></html>")
	f.Add("<div class=cookie><div><div></nav></div><article><header>A</header><p>x</p>")
	f.Add("<p>" + strings.Repeat("<div>", 5000) + "deep")
	f.Fuzz(func(t *testing.T, page string) {
		got, err := ToText(t.Context(), "f.html", []byte(page), 0)
		if err != nil {
			t.Fatal(err)
		}
		if utf8.ValidString(page) && !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8 from a valid page: %q", got)
		}
	})
}
