package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestParseJSON(t *testing.T) {
	t.Run("FlatListAndBOM", func(t *testing.T) {
		got, err := ParseJSON([]byte("\xEF\xBB\xBF" + `{"name":"flat","types":[{"name":"Person","kind":"entity"},{"name":"Place","alias":"地点","kind":"entity","properties":[]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		want := &Schema{Name: "flat", Types: []EntityType{{Name: "Person", Kind: KindEntity}, {Name: "Place", Alias: "地点", Kind: KindEntity}}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParseJSON = %#v", got)
		}
	})
	t.Run("RoundTrip", func(t *testing.T) {
		d := Default()
		got, err := ParseJSON(FormatJSON(d))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, d) {
			t.Errorf("round trip differs: %#v", got)
		}
		if !strings.HasSuffix(string(FormatJSON(d)), "}\n") || !strings.Contains(string(FormatJSON(d)), "\n  \"types\"") {
			t.Error("FormatJSON should be indented and end with a newline")
		}
	})
	errs := []struct {
		name, src, want string
	}{
		{"Empty", "", "invalid schema JSON: empty input"},
		{"Syntax", "{\n\"types\": [\n}", "invalid schema JSON: line 3:"},
		{"WrongType", `{"types": {"name": "x"}}`, "invalid schema JSON: line 1: types must be"},
		{"UnknownKey", `{"types": [], "colour": "red"}`, `invalid schema JSON: json: unknown field "colour"`},
		{"Trailing", `{"types": []} {}`, "invalid schema JSON: unexpected data after"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSON([]byte(tt.src))
			if extract.KindOf(err) != extract.KindInvalid || !strings.HasPrefix(extract.MessageOf(err), tt.want) {
				t.Errorf("err = %v, want kind invalid with %q", err, tt.want)
			}
		})
	}
}
