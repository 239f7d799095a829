package app

import (
	"path/filepath"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
)

// ReadDocument is extract.ReadDocument plus the checks that need the
// strategies' readers: a .json file, or a document that looks like a
// dialogue, must parse as one of the known dialogue shapes. A file that is
// not valid JSON, or valid JSON of no known shape, is refused with the
// reason and, for a shape, the JSON path of the bad field: it is not stored
// as text to fail later.
func ReadDocument(name string, data []byte, maxBytes int) (extract.Document, error) {
	d, err := extract.ReadDocument(name, data, maxBytes)
	if err != nil {
		return d, err
	}
	if d.Kind != extract.DocDialogue && !strings.EqualFold(filepath.Ext(name), ".json") {
		return d, nil
	}
	if _, err := dialogue.ParseAll([]byte(d.Content)); err != nil {
		return extract.Document{}, extract.Errorf(extract.KindInvalid,
			"%s: %s (a .json document must hold a dialogue: LoCoMo, MemoryBank, LongMemEval or kgstudio's own shape)", name, extract.MessageOf(err))
	}
	d.Kind = extract.DocDialogue
	return d, nil
}
