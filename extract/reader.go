package extract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxBytes is the default size limit of one document: 20 MiB.
const DefaultMaxBytes = 20 << 20

// TableScale is how many times the size limit a CSV or TSV table may be:
// a table's rows are mapped a chunk at a time (see Config.TableRows), so
// its size does not bound what a run holds at once, and a table of a
// million rows is some 30 MB.
const TableScale = 8

// SizeLimit is the size limit of the document named name under the limit
// maxBytes (DefaultMaxBytes when maxBytes <= 0): TableScale times it for a
// .csv or .tsv file.
func SizeLimit(name string, maxBytes int) int {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv", ".tsv":
		return maxBytes * TableScale
	}
	return maxBytes
}

// OverLimit says why a document named name of size bytes is refused
// under the limit maxBytes (SizeLimit: a table's is larger), or "" when
// it is within it.
func OverLimit(name string, size int64, maxBytes int) string {
	if limit := SizeLimit(name, maxBytes); size > int64(limit) {
		return fmt.Sprintf("%d bytes is over the limit of %d bytes", size, limit)
	}
	return ""
}

// utf8BOM is the UTF-8 encoding of U+FEFF.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ReadDocument validates raw bytes and turns them into a Document.
//
// It refuses (with an *Error of kind KindInvalid) input larger than maxBytes
// (DefaultMaxBytes when maxBytes <= 0; see SizeLimit for tables), binary input (NUL bytes), invalid
// UTF-8 and empty or whitespace-only content. It strips a UTF-8 byte-order
// mark and normalises line endings (CRLF and lone CR become LF). Kind is
// detected from the extension of name and, failing that, from the content:
// .md/.markdown is markdown, .csv/.tsv is csv, JSON that holds turns of a
// conversation (objects with speaker/role and text/content, or
// query/response pairs) is dialogue, anything else is text. SHA256 is the hex
// digest of the normalised content, so the same text with or without a BOM or
// with other line endings has the same digest.
func ReadDocument(name string, data []byte, maxBytes int) (Document, error) {
	maxBytes = SizeLimit(name, maxBytes)
	label := name
	if label == "" {
		label = "document"
	}
	if err := CheckName("document name", name); err != nil {
		return Document{}, err
	}
	if len(data) > maxBytes {
		return Document{}, Errorf(KindInvalid, "%s is %d bytes, over the size limit of %d bytes", label, len(data), maxBytes)
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return Document{}, Errorf(KindInvalid, "%s looks binary (NUL byte at offset %d); only UTF-8 text is accepted", label, i)
	}
	if !utf8.Valid(data) {
		off := firstInvalidUTF8(data)
		return Document{}, Errorf(KindInvalid, "%s is not valid UTF-8 (first bad byte at offset %d); save it as UTF-8 and retry", label, off)
	}
	content := normalizeNewlines(string(data))
	if strings.TrimFunc(content, isBlank) == "" {
		return Document{}, Errorf(KindInvalid, "%s is empty", label)
	}
	sum := sha256.Sum256([]byte(content))
	return Document{
		Name:    name,
		Kind:    DetectKind(name, content),
		Content: content,
		SHA256:  hex.EncodeToString(sum[:]),
	}, nil
}

// isBlank reports white space and invisible format characters (a stray
// byte-order mark, zero-width spaces).
func isBlank(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
}

// firstInvalidUTF8 returns the byte offset of the first invalid sequence.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// DetectKind returns the document kind (DocText, DocMarkdown, DocCSV or
// DocDialogue) from the file name's extension, then from the content.
func DetectKind(name, content string) DocKind {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return DocMarkdown
	case ".csv", ".tsv":
		return DocCSV
	case ".txt", ".text":
		return DocText
	case ".json", ".jsonl":
		if looksLikeDialogue(content) {
			return DocDialogue
		}
		return DocText
	}
	trimmed := strings.TrimSpace(content)
	if (strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[")) && looksLikeDialogue(trimmed) {
		return DocDialogue
	}
	if looksLikeMarkdown(content) {
		return DocMarkdown
	}
	return DocText
}

// looksLikeMarkdown reports whether the text starts with a heading or holds
// several markdown block markers.
func looksLikeMarkdown(s string) bool {
	lines := strings.SplitN(s, "\n", 50)
	marks := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "# "), strings.HasPrefix(t, "## "), strings.HasPrefix(t, "### "):
			marks += 2
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "- ["), strings.HasPrefix(t, "* "):
			marks++
		}
	}
	return marks >= 2
}

// looksLikeDialogue reports whether s is JSON (or JSON Lines) holding turns
// of a conversation.
func looksLikeDialogue(s string) bool {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		// JSON Lines: judge the first line.
		first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
		if err := json.Unmarshal([]byte(first), &v); err != nil {
			return false
		}
	}
	return hasTurns(v, 0)
}

// hasTurns looks a few levels deep for an object shaped like a turn.
func hasTurns(v any, depth int) bool {
	if depth > 5 {
		return false
	}
	switch t := v.(type) {
	case map[string]any:
		_, sp := t["speaker"]
		_, ro := t["role"]
		_, tx := t["text"]
		_, co := t["content"]
		_, q := t["query"]
		_, r := t["response"]
		if ((sp || ro) && (tx || co)) || (q && r) {
			return true
		}
		for _, x := range t {
			if hasTurns(x, depth+1) {
				return true
			}
		}
	case []any:
		for i, x := range t {
			if i >= 8 {
				break
			}
			if hasTurns(x, depth+1) {
				return true
			}
		}
	}
	return false
}
