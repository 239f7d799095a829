package extract_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestJSONProblem(t *testing.T) {
	var v struct {
		Name  string   `json:"name"`
		Count int      `json:"count"`
		Tags  []string `json:"tags"`
		Sub   struct{} `json:"sub"`
	}
	for in, want := range map[string]string{
		`{"name": 5}`:             "line 1: name must be a string, not number",
		"{\n\"count\": \"x\"}":    "line 2: count must be a whole number, not string",
		`{"tags": {}}`:            "tags must be a list, not object",
		`{"sub": []}`:             "sub must be an object, not array",
		`{"name": "a",`:           "unexpected end of JSON input",
		"{\n\n\"name\" \"x\"}":    "line 3: invalid character",
		`["not", "an", "object"]`: "the value must be an object",
	} {
		err := json.Unmarshal([]byte(in), &v)
		got := extract.JSONProblem([]byte(in), err)
		if !strings.Contains(got, want) || strings.Contains(got, "Go ") || strings.Contains(got, "struct") || strings.Contains(got, "int") && !strings.Contains(want, "int") {
			t.Errorf("%s: %q, want %q and no Go types", in, got, want)
		}
	}
}
