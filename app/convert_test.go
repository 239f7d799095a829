package app

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

// TestReadDocuments_WordAndHTML: a .docx is a document, not a zip of
// documents, and a zip holding a .docx and an .html page reads both as
// text.
func TestReadDocuments_WordAndHTML(t *testing.T) {
	var d bytes.Buffer
	zw := zip.NewWriter(&d)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Ada Lovelace wrote programs.</w:t></w:r></w:p></w:body></w:document>`))
	zw.Close()
	fd, err := ReadDocuments(t.Context(), "ada.docx", d.Bytes(), 0)
	if err != nil || len(fd.Docs) != 1 || fd.Docs[0].Content != "Ada Lovelace wrote programs." || fd.Docs[0].Name != "ada.docx" {
		t.Fatalf("docx: %+v (%v)", fd, err)
	}
	var z bytes.Buffer
	zw = zip.NewWriter(&z)
	w, _ = zw.Create("ada.docx")
	w.Write(d.Bytes())
	w, _ = zw.Create("page.html")
	w.Write([]byte("<p>Charles Babbage built engines.</p>"))
	zw.Close()
	fd, err = ReadDocuments(t.Context(), "both.zip", z.Bytes(), 0)
	if err != nil || len(fd.Docs) != 2 {
		t.Fatalf("zip: %+v (%v)", fd, err)
	}
	for _, doc := range fd.Docs {
		if strings.ContainsAny(doc.Content, "<>") {
			t.Fatalf("%s kept markup: %q", doc.Name, doc.Content)
		}
	}
}
