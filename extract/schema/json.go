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
		return nil, extract.Errorf(extract.KindInvalid, "invalid schema JSON: %s", jsonProblem(data, err))
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return nil, extract.Errorf(extract.KindInvalid, "invalid schema JSON: unexpected data after the schema object")
	}
	return normalized(&s), nil
}

// jsonProblem describes a decoding error, with the line where the decoder
// stopped when it says so.
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return "line " + itoa(1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))) + ": " + syn.Error()
	case errors.As(err, &typ):
		return "line " + itoa(1+bytes.Count(data[:min(int(typ.Offset), len(data))], []byte("\n"))) + ": " + typ.Field + " must be " + typ.Type.String() + ", not " + typ.Value
	case errors.Is(err, io.EOF):
		return "empty input"
	}
	return err.Error()
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
