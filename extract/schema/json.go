package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/kgstudio/kgstudio/extract"
)

// ParseJSON reads the JSON form of a schema (the Schema struct with
// snake_case keys, as FormatJSON writes it). Unknown keys and trailing data
// are errors of kind invalid; a leading byte-order mark is accepted. Empty
// lists come back as nil so that equal content compares equal.
func ParseJSON(data []byte) (*Schema, error) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Schema
	if err := dec.Decode(&s); err != nil {
		return nil, extract.Errorf(extract.KindInvalid, "invalid schema JSON: %s", extract.JSONProblem(data, err))
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return nil, extract.Errorf(extract.KindInvalid, "invalid schema JSON: unexpected data after the schema object")
	}
	return normalized(&s), nil
}

// FormatJSON writes s as indented JSON followed by a newline.
func FormatJSON(s *Schema) []byte {
	if s == nil {
		s = &Schema{}
	}
	// Marshalling plain strings and slices cannot fail.
	b, _ := json.MarshalIndent(normalized(s), "", "  ")
	return append(b, '\n')
}
