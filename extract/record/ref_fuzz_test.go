package record_test

import (
	"fmt"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// FuzzParseRef: a reference parses into a name and a version that
// print back to an equivalent reference, or is refused as invalid.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"Medicine", "Medicine@3", " kg@0", "a@b@2", "@", "x@-1", "x@99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		name, v, err := record.ParseRef("schema", ref)
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error of kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		if v < 0 {
			t.Fatalf("%q: version %d", ref, v)
		}
		again := name
		if v > 0 {
			again = fmt.Sprintf("%s@%d", name, v)
		}
		n2, v2, err := record.ParseRef("schema", again)
		if err != nil || n2 != name || v2 != v {
			t.Fatalf("%q -> (%q, %d) -> %q -> (%q, %d, %v)", ref, name, v, again, n2, v2, err)
		}
	})
}
