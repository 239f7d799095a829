package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/net/html"
)

// Converted formats: an HTML page, a Word document and a PDF become text
// before ReadDocument reads them (see ToText).
var convertedExts = map[string]bool{".html": true, ".htm": true, ".xhtml": true, ".docx": true, ".pdf": true}

// Converts reports whether ToText turns a file of this name into text.
func Converts(name string) bool { return convertedExts[strings.ToLower(filepath.Ext(name))] }

// ToText turns an HTML page or a Word (.docx) document into plain text:
// HTML's title, then the text of its body, one block (paragraph, heading,
// list item, table row) a line, without scripts, styles or markup; a
// .docx's paragraphs, a line each, tabs and line breaks kept; a PDF's text
// layer, a line per baseline (see pdfText). Any other
// file is returned as it is. The text may be at most maxBytes; a .docx
// whose document part unpacks to more is refused without reading it all.
// A PDF is read in a child process on a budget that ends with ctx.
func ToText(ctx context.Context, name string, data []byte, maxBytes int) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".html", ".htm", ".xhtml":
		return htmlText(ctx, data)
	case ".docx":
		return docxText(ctx, name, data, maxBytes)
	case ".pdf":
		return pdfText(ctx, name, data, maxBytes)
	}
	return data, nil
}

// blockTags end a line of text.
var blockTags = map[string]bool{"p": true, "div": true, "br": true, "li": true, "tr": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "section": true, "article": true, "header": true, "footer": true, "blockquote": true,
	"pre": true, "table": true, "ul": true, "ol": true, "dt": true, "dd": true, "title": true, "hr": true, "figcaption": true}

// skipTags hold no reader-visible text.
var skipTags = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true, "head": false}

// checkEvery is how many tokens a parser reads between looks at its
// context: a client that leaves, or a deadline, stops a parse within
// microseconds.
const checkEvery = 4096

// htmlText is the text a reader of a page reads: its title and the
// blocks of its main content. Navigation, banners, cookie notices,
// sidebars, footers and the like (by element, role, or a class or id
// that says so) are dropped, as reading modes drop them; a page that marks
// its content (<main>, <article>, role="main") gives that content alone,
// unless it holds almost none of the page's text.
func htmlText(ctx context.Context, data []byte) ([]byte, error) {
	hasMain, err := htmlPass(ctx, data, false, nil)
	if err != nil {
		return nil, err
	}
	var all strings.Builder
	if _, err := htmlPass(ctx, data, false, &all); err != nil {
		return nil, err
	}
	text := tidyLines(all.String())
	if hasMain {
		var main strings.Builder
		if _, err := htmlPass(ctx, data, true, &main); err != nil {
			return nil, err
		}
		// The marked content, unless it is next to nothing of the page.
		if m := tidyLines(main.String()); len(m) >= len(text)/5 {
			text = m
		}
	}
	return []byte(text), nil
}

// maxHTMLDepth bounds the open elements htmlPass tracks; deeper ones are
// read as if they closed at once.
const maxHTMLDepth = 4096

// htmlFrame is an open element: its tag, and whether it is boilerplate
// or main content.
type htmlFrame struct {
	tag          string
	boiler, main bool
}

// voidTags have no end tag.
var voidTags = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// boilerTags hold a page's furniture, not its text.
var boilerTags = map[string]bool{"nav": true, "aside": true, "footer": true, "button": true, "select": true, "dialog": true,
	"iframe": true, "menu": true}

// boilerRoles and boilerWords mark furniture by role, or by a word of a
// class or id ("cookie-banner", "site_footer", "nav-menu").
var (
	boilerRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
		"search": true, "dialog": true, "alertdialog": true, "menu": true, "menubar": true}
	boilerWords = map[string]bool{"cookie": true, "cookies": true, "consent": true, "gdpr": true, "breadcrumb": true,
		"breadcrumbs": true, "nav": true, "navbar": true, "navigation": true, "menu": true, "sidebar": true, "footer": true,
		"social": true, "share": true, "sharing": true, "subscribe": true, "newsletter": true, "ad": true, "ads": true,
		"advert": true, "advertisement": true, "promo": true, "popup": true, "modal": true, "skip": true, "masthead": true, "byline": true}
)

// htmlPass reads a page's tokens once. With out nil it reports whether
// the page marks its main content; else it writes the page's text to out
// (that content's alone when mainOnly), furniture left out.
func htmlPass(ctx context.Context, data []byte, mainOnly bool, out *strings.Builder) (bool, error) {
	z := html.NewTokenizer(bytes.NewReader(data))
	w := &htmlWriter{b: out, mainOnly: mainOnly}
	for n := 1; ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return false, context.Cause(ctx)
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return false, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			role, words := tagAttrs(z, hasAttr)
			isMain := tag == "main" || tag == "article" || role == "main"
			if out == nil {
				if isMain {
					return true, nil
				}
				continue
			}
			w.start(tag, role, words, isMain, tt == html.StartTagToken)
		case html.EndTagToken:
			if out == nil {
				continue
			}
			name, _ := z.TagName()
			w.end(string(name))
		case html.TextToken:
			if out == nil || !w.reading() {
				continue
			}
			w.text(string(z.Text()))
		}
	}
}

// tagAttrs reads the attributes of the tag z is at (when hasAttr): its
// role in lower case, and its class, id and hidden marks as words, each
// after a space.
func tagAttrs(z *html.Tokenizer, hasAttr bool) (role, words string) {
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		switch string(k) {
		case "role":
			role = strings.ToLower(string(v))
		case "class", "id":
			words += " " + strings.ToLower(string(v))
		case "hidden":
			words += " hidden"
		case "aria-hidden":
			if string(v) == "true" {
				words += " hidden"
			}
		}
	}
	return role, words
}

// htmlWriter writes the text of a page as htmlPass reads its tokens,
// keeping track of the open elements.
type htmlWriter struct {
	b        *strings.Builder
	mainOnly bool // write the main content's text (and the title) only
	stack    []htmlFrame
	// How many open elements are boilerplate, main content and skipped.
	boiler, inMain, skip int
	inHead, inTitle      bool
	trail                bool // the last text ended in white space
}

// newline ends the current line, unless the text is empty or ends one.
func (w *htmlWriter) newline() {
	s := w.b.String()
	if s != "" && !strings.HasSuffix(s, "\n") {
		w.b.WriteString("\n")
	}
}

// pop closes the innermost open element tag and every element inside it.
func (w *htmlWriter) pop(tag string) {
	i := len(w.stack) - 1
	for i >= 0 && w.stack[i].tag != tag {
		i--
	}
	if i < 0 {
		return // an end tag of nothing open
	}
	for _, f := range w.stack[i:] {
		if f.boiler {
			w.boiler--
		}
		if f.main {
			w.inMain--
		}
	}
	w.stack = w.stack[:i]
}

// start opens an element (one with an end tag when open is set): it is
// boilerplate by its tag, role or words, main content when isMain.
func (w *htmlWriter) start(tag, role, words string, isMain, open bool) {
	f := htmlFrame{tag: tag, main: isMain}
	f.boiler = boilerTags[tag] || boilerRoles[role] || tag == "header" && w.inMain == 0 || boilerClass(words)
	switch {
	case skipTags[tag]:
		w.skip++
	case tag == "head":
		w.inHead = true
	case tag == "title":
		w.inTitle = true
	}
	if open && !voidTags[tag] && !skipTags[tag] && tag != "head" && tag != "title" && len(w.stack) < maxHTMLDepth {
		w.stack = append(w.stack, f)
		if f.boiler {
			w.boiler++
		}
		if f.main {
			w.inMain++
		}
	}
	if blockTags[tag] {
		w.newline()
	}
	if tag == "td" || tag == "th" {
		// Cells of a row stay apart.
		if s := w.b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			w.b.WriteString("\t")
		}
		w.trail = false
	}
}

// end closes an element.
func (w *htmlWriter) end(tag string) {
	switch {
	case skipTags[tag] && w.skip > 0:
		w.skip--
	case tag == "head":
		w.inHead = false
	case tag == "title":
		w.inTitle = false
	default:
		w.pop(tag)
	}
	if blockTags[tag] {
		w.newline()
	}
}

// reading reports whether text here is written: the title, or text
// outside skipped elements, the head and boilerplate (and, with
// mainOnly, inside the main content).
func (w *htmlWriter) reading() bool {
	return !(w.skip > 0 || (w.inHead && !w.inTitle) || w.boiler > 0 && !w.inTitle || w.mainOnly && w.inMain == 0 && !w.inTitle)
}

// text writes a text token, white space collapsed (the title cut to the
// page's own).
func (w *htmlWriter) text(raw string) {
	t := strings.Join(strings.Fields(raw), " ")
	if w.inTitle {
		t = pageTitle(t)
	}
	if t == "" {
		w.trail = w.trail || raw != ""
		return
	}
	// Text split by inline markup ("was <b>dead</b>,") joins as
	// it was written: a space only where the page had one.
	lead := strings.TrimLeftFunc(raw, isBlank) != raw
	if s := w.b.String(); s != "" && !strings.HasSuffix(s, "\n") && (lead || w.trail) {
		w.b.WriteString(" ")
	}
	w.b.WriteString(t)
	w.trail = strings.TrimRightFunc(raw, isBlank) != raw
}

// pageTitle drops a site's name from a page's title: "Alcock and Brown:
// The First Nonstop Transatlantic Flight | Skyward History" is the
// article's title, the part after the last separator (of four words at
// most) the site's.
func pageTitle(t string) string {
	for _, sep := range []string{" | ", " – ", " — ", " - ", " · ", " :: "} {
		if i := strings.LastIndex(t, sep); i > 0 && len(strings.Fields(t[i+len(sep):])) <= 4 {
			return strings.TrimSpace(t[:i])
		}
	}
	return t
}

// boilerClass reports whether the words of a class or id name
// furniture (split at anything but letters: "cookie-banner" is
// "cookie" and "banner").
func boilerClass(words string) bool {
	for _, w := range strings.FieldsFunc(words, func(r rune) bool { return r < 'a' || r > 'z' }) {
		if boilerWords[w] || w == "hidden" {
			return true
		}
	}
	return false
}

// tidyLines trims each line and keeps at most one blank line between
// blocks.
func tidyLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n\n")
}

func docxText(ctx context.Context, name string, data []byte, maxBytes int) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, Errorf(KindInvalid, "%s is not a Word document (not a zip: %v)", name, err)
	}
	var part *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			part = f
		}
	}
	if part == nil {
		return nil, Errorf(KindInvalid, "%s is not a Word document (no word/document.xml)", name)
	}
	// The XML is larger than its text, a few times over: allow for it,
	// and stop reading at the bound whatever the size declared.
	limit := int64(maxBytes) * 8
	if part.UncompressedSize64 > uint64(limit) {
		return nil, Errorf(KindInvalid, "%s unpacks to %d bytes of XML, over the limit of %d", name, part.UncompressedSize64, limit)
	}
	rc, err := part.Open()
	if err != nil {
		return nil, Errorf(KindInvalid, "%s: %v", name, err)
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, limit+1))
	var b strings.Builder
	inText := false
	for n := 1; ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, Errorf(KindInvalid, "%s: its document part is not well-formed XML: %v", name, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				b.WriteString("\t")
			case "br", "cr":
				b.WriteString("\n")
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				b.WriteString("\n")
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
		if b.Len() > maxBytes {
			return nil, Errorf(KindInvalid, "%s holds more than %d bytes of text", name, maxBytes)
		}
	}
	return []byte(tidyLines(b.String())), nil
}
