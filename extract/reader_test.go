package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

func TestReadDocument(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		data     []byte
		max      int
		kind     DocKind
		content  string
		errKind  ErrorKind
		errMatch string
	}{
		{name: "Text", file: "a.txt", data: []byte("Hello world."), kind: DocText, content: "Hello world."},
		{name: "BOMStripped", file: "a.txt", data: []byte("\xEF\xBB\xBFHello."), kind: DocText, content: "Hello."},
		{name: "CRLFNormalised", file: "a.txt", data: []byte("a\r\nb\rc"), kind: DocText, content: "a\nb\nc"},
		{name: "Markdown", file: "notes.md", data: []byte("# Title\n\ntext"), kind: DocMarkdown, content: "# Title\n\ntext"},
		{name: "MarkdownByContent", file: "notes", data: []byte("# Title\n\n## Part\ntext"), kind: DocMarkdown, content: "# Title\n\n## Part\ntext"},
		{name: "CSV", file: "t.csv", data: []byte("a,b\n1,2\n"), kind: DocCSV, content: "a,b\n1,2\n"},
		{name: "DialogueCanonical", file: "d.json", data: []byte(`{"turns":[{"speaker":"user","text":"hi"}]}`), kind: DocDialogue},
		{name: "DialogueMemoryBank", file: "m.json", data: []byte(`{"Emily":{"history":{"2023-04-27":[{"query":"q","response":"r"}]}}}`), kind: DocDialogue},
		{name: "DialogueByContent", file: "upload", data: []byte(`[{"role":"user","content":"hi"}]`), kind: DocDialogue},
		{name: "PlainJSONIsText", file: "x.json", data: []byte(`{"a":1}`), kind: DocText},
		{name: "Chinese", file: "zh.txt", data: []byte("北京是中国的首都。"), kind: DocText, content: "北京是中国的首都。"},
		{name: "Empty", file: "e.txt", data: nil, errKind: KindInvalid, errMatch: "empty"},
		{name: "WhitespaceOnly", file: "e.txt", data: []byte(" \n\t \xEF\xBB\xBF\u200b"), errKind: KindInvalid, errMatch: "empty"},
		{name: "BOMOnly", file: "e.txt", data: []byte("\xEF\xBB\xBF \n"), errKind: KindInvalid, errMatch: "empty"},
		{name: "Binary", file: "b.bin", data: []byte("PK\x03\x04\x00\x00"), errKind: KindInvalid, errMatch: "binary"},
		{name: "InvalidUTF8", file: "l.txt", data: []byte("caf\xe9 au lait"), errKind: KindInvalid, errMatch: "offset 3"},
		{name: "TooLarge", file: "big.txt", data: []byte(strings.Repeat("a", 11)), max: 10, errKind: KindInvalid, errMatch: "limit of 10 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ReadDocument(tt.file, tt.data, tt.max)
			if tt.errKind != "" {
				if err == nil {
					t.Fatalf("want error, got document %+v", doc)
				}
				if KindOf(err) != tt.errKind || !strings.Contains(err.Error(), tt.errMatch) {
					t.Fatalf("error = %v (kind %s), want kind %s containing %q", err, KindOf(err), tt.errKind, tt.errMatch)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if doc.Kind != tt.kind {
				t.Errorf("kind = %q, want %q", doc.Kind, tt.kind)
			}
			if tt.content != "" && doc.Content != tt.content {
				t.Errorf("content = %q, want %q", doc.Content, tt.content)
			}
			if len(doc.SHA256) != 64 {
				t.Errorf("sha256 = %q", doc.SHA256)
			}
		})
	}
}

func TestReadDocument_SHA256(t *testing.T) {
	a, err := ReadDocument("a.txt", []byte("line one\nline two\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadDocument("b.txt", []byte("\xEF\xBB\xBFline one\r\nline two\r\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadDocument("c.txt", []byte("line one\nline 2\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.SHA256 != b.SHA256 {
		t.Errorf("BOM/CRLF variant changed the digest: %s vs %s", a.SHA256, b.SHA256)
	}
	if a.SHA256 == c.SHA256 {
		t.Errorf("different content has the same digest")
	}
	sum := sha256.Sum256([]byte("line one\nline two\n"))
	if want := hex.EncodeToString(sum[:]); a.SHA256 != want {
		t.Errorf("sha256 = %s, want %s", a.SHA256, want)
	}
}

func TestReadDocument_SharedData(t *testing.T) {
	tests := []struct {
		path string
		kind DocKind
	}{
		{"corpora/a_christmas_carol_gutenberg24022.txt", DocText},
		{"dialogues/locomo10_conv26.json", DocDialogue},
		{"dialogues/memorybank_en_users1-8.json", DocDialogue},
		{"dialogues/memorybank_probing_questions_en_users1-8.jsonl", DocText},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			data := testkit.Read(t, tt.path)
			doc, err := ReadDocument(tt.path, data, 0)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Kind != tt.kind {
				t.Errorf("kind = %q, want %q", doc.Kind, tt.kind)
			}
		})
	}
}
