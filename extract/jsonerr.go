package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
)

// JSONProblem describes a JSON decoding error for a user: the line where
// the decoder stopped and what was wrong, in JSON's words (a string, a
// number, a list, an object), never Go's type names.
func JSONProblem(data []byte, err error) string {
	line := func(off int64) string {
		return "line " + strconv.Itoa(1+bytes.Count(data[:min(int(off), len(data))], []byte("\n"))) + ": "
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return line(syn.Offset) + syn.Error()
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the value"
		}
		return line(typ.Offset) + field + " must be " + jsonKind(typ.Type) + ", not " + typ.Value
	case errors.Is(err, io.EOF):
		return "empty input"
	}
	return err.Error()
}

// jsonKind names the JSON kind a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another kind of value"
}
