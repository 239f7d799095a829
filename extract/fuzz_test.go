package extract_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// FuzzReadDocument: any bytes under any name are either refused with an
// invalid error or read into a UTF-8 document whose kind DetectKind agrees
// with.
func FuzzReadDocument(f *testing.F) {
	f.Add("notes.txt", []byte("Ada Lovelace met Charles Babbage.\r\n"))
	f.Add("table.csv", []byte("\ufeffid,name\n1,Ada\n"))
	f.Add("chat.json", []byte(`{"sessions": [{"turns": [{"speaker": "A", "text": "hi"}]}]}`))
	f.Add("x.md", []byte("# Title\n\n\x00binary"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		d, err := extract.ReadDocument(name, data, 1<<20)
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error of kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		if !utf8.ValidString(d.Content) || strings.Contains(d.Content, "\r") || d.SHA256 == "" {
			t.Fatalf("document %+v", d)
		}
		switch d.Kind {
		case extract.DocText, extract.DocMarkdown, extract.DocCSV, extract.DocDialogue:
		default:
			t.Fatalf("kind %q", d.Kind)
		}
		if k := extract.DetectKind(name, d.Content); k != d.Kind {
			t.Fatalf("DetectKind %q, ReadDocument %q", k, d.Kind)
		}
	})
}

// FuzzSplit: every chunk is the document's text between its offsets, the
// chunks are in order and cover the document's content.
func FuzzSplit(f *testing.F) {
	f.Add("Marley was dead: to begin with. There is no doubt whatever about that.", 20, 5, false)
	f.Add("子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？", 8, 2, true)
	f.Add("a\n\nb\n\n\n   c", 1, 0, true)
	f.Fuzz(func(t *testing.T, text string, size, overlap int, strict bool) {
		if !utf8.ValidString(text) || len(text) > 1<<16 {
			return
		}
		size, overlap = size%5000, overlap%5000
		doc := extract.Document{ID: 1, Content: text}
		chunks := extract.Split(doc, size, overlap, strict)
		prevStart := -1
		for i, c := range chunks {
			if c.Start < 0 || c.End > len(text) || c.Start > c.End || text[c.Start:c.End] != c.Text || c.Index != i {
				t.Fatalf("chunk %d: [%d,%d) %q", i, c.Start, c.End, c.Text)
			}
			if c.Start <= prevStart {
				t.Fatalf("chunk %d starts at %d, after %d", i, c.Start, prevStart)
			}
			prevStart = c.Start
		}
		if strings.TrimSpace(text) != "" && len(chunks) == 0 {
			t.Fatal("no chunks for a document with text")
		}
	})
}

// FuzzStripReasoning: stripping never adds text, leaves output without a
// tag as it is, and strips a complete block wrapped around anything.
func FuzzStripReasoning(f *testing.F) {
	f.Add("<think>plan</think>{\"entities\": []}")
	f.Add("<THINKING>\nunclosed")
	f.Add("a < b and <reasoning>x</reasoning> c")
	f.Fuzz(func(t *testing.T, out string) {
		got := extract.StripReasoning(out)
		if len(got) > len(out) || (!strings.Contains(out, "<") && got != out) {
			t.Fatalf("%q -> %q", out, got)
		}
		if !strings.Contains(strings.ToLower(out), "think") {
			if w := extract.StripReasoning("<think>" + out + "</think>ok"); w != "ok" {
				t.Fatalf("block around %q left %q", out, w)
			}
		}
	})
}
