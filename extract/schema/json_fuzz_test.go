package schema_test

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// FuzzParseJSON: schema JSON either parses, and then formats and parses
// back to the same content, or is refused with an invalid error; Validate
// never panics on what parsed.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(schema.FormatJSON(schema.Default())))
	f.Add([]byte(`{"namespace": "Med", "types": [{"name": "Disease", "kind": "entity", "properties": [{"name": "symptom", "type": "Symptom", "constraint": "MultiValue"}]}]}`))
	f.Add([]byte(`{"types": [{"name": 5}]}`))
	f.Add([]byte("\xEF\xBB\xBF{\"types\": []} trailing"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := schema.ParseJSON(data)
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error of kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		_ = schema.Validate(sc)
		back, err := schema.ParseJSON(schema.FormatJSON(sc))
		if err != nil {
			t.Fatalf("formatted schema does not parse: %v\n%s", err, schema.FormatJSON(sc))
		}
		if schema.Hash(back) != schema.Hash(sc) {
			t.Fatalf("round trip changed the schema:\n%s\n%s", schema.FormatJSON(sc), schema.FormatJSON(back))
		}
	})
}
