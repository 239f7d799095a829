package web

import (
	"context"
	"html"
	"io"
	"regexp"
	"strings"

	"github.com/a-h/templ"
)

// Markdown is how answers are written (a model's, and the extractive one):
// headings, bullet and numbered lists, paragraphs, **bold**, *italics* and
// `code`. markdown renders that much of it; everything else is text. Every
// piece of the input is escaped before a tag is put around it, so the
// answer reaches the page as text whatever it holds.

var (
	mdHeading  = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	mdBullet   = regexp.MustCompile(`^\s*[-*+]\s+(.*)$`)
	mdNumbered = regexp.MustCompile(`^\s*\d+[.)]\s+(.*)$`)
	mdCode     = regexp.MustCompile("`([^`]+)`")
	mdStrong   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdEm       = regexp.MustCompile(`(^|[^*\w])\*([^*\s][^*]*)\*`)
)

// markdown renders s (see above).
func markdown(s string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, markdownHTML(s))
		return err
	})
}

// markdownHTML is markdown's HTML.
func markdownHTML(s string) string {
	var b strings.Builder
	list := "" // "ul" or "ol" while a list is open
	para := false
	closeBlock := func() {
		if list != "" {
			b.WriteString("</" + list + ">")
			list = ""
		}
		if para {
			b.WriteString("</p>")
			para = false
		}
	}
	item := func(kind, text string) {
		if list != kind {
			closeBlock()
			b.WriteString("<" + kind + ">")
			list = kind
		}
		b.WriteString("<li>" + mdInline(text) + "</li>")
	}
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			closeBlock()
		case mdHeading.MatchString(line):
			closeBlock()
			b.WriteString("<h4>" + mdInline(mdHeading.FindStringSubmatch(line)[2]) + "</h4>")
		case mdBullet.MatchString(line):
			item("ul", mdBullet.FindStringSubmatch(line)[1])
		case mdNumbered.MatchString(line):
			item("ol", mdNumbered.FindStringSubmatch(line)[1])
		default:
			if list != "" {
				closeBlock()
			}
			if para {
				b.WriteString("<br>")
			} else {
				b.WriteString("<p>")
				para = true
			}
			b.WriteString(mdInline(line))
		}
	}
	closeBlock()
	return b.String()
}

// mdInline escapes a line and marks its code, bold and italics.
func mdInline(s string) string {
	s = html.EscapeString(s)
	s = mdCode.ReplaceAllString(s, "<code>$1</code>")
	s = mdStrong.ReplaceAllString(s, "<strong>$1</strong>")
	return mdEm.ReplaceAllString(s, "$1<em>$2</em>")
}
