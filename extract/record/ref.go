package record

import (
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// ParseRef splits a reference to a version of a schema or an extraction,
// "NAME" (its latest) or "NAME@V", into the name and the number (0 for the
// latest). what names the kind of thing in the error ("schema", "version").
func ParseRef(what, ref string) (string, int, error) {
	ref = strings.TrimSpace(ref)
	name, num := ref, 0
	if i := strings.LastIndexByte(ref, '@'); i >= 0 {
		n, err := strconv.Atoi(ref[i+1:])
		if err != nil || n <= 0 {
			return "", 0, extract.Errorf(extract.KindInvalid, "%s reference %q: the version after @ must be a positive number", what, ref)
		}
		name, num = ref[:i], n
	}
	if name == "" {
		return "", 0, extract.Errorf(extract.KindInvalid, "%s reference %q has no name", what, ref)
	}
	return name, num, nil
}
