package app

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

// EnsureDefaults creates what a fresh database needs: the built-in default
// schema.
func (a *App) EnsureDefaults(ctx context.Context) error {
	return a.store.EnsureDefaultSchema(ctx)
}

// Resolve loads the schema version a reference names ("NAME" for the
// latest, "NAME@V") and pins it in the config: the schema name, the exact
// version number and the entity type names.
func (s *Schemas) Resolve(ctx context.Context, cfg *extract.Config, ref string) error {
	name, num, err := record.ParseRef("schema", ref)
	if err != nil {
		return err
	}
	sc, n, err := s.st.SchemaVersion(ctx, name, num)
	if err != nil {
		return err
	}
	cfg.SchemaName = name
	cfg.SchemaVersion = n
	cfg.EntityTypes = sc.TypeNames()
	return nil
}

// Schema file formats.
const (
	FormatKAG  = "kag"
	FormatJSON = "json"
)

// SchemaFormat picks the format of a schema file: JSON for a .json name or
// content starting with '{', the KAG DSL otherwise.
func SchemaFormat(filename string, data []byte) string {
	if strings.EqualFold(filepath.Ext(filename), ".json") {
		return FormatJSON
	}
	if t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return FormatJSON
	}
	return FormatKAG
}

// ParseSchemaFile parses a schema file in the given format ("" to guess
// from the name and content).
func ParseSchemaFile(filename string, data []byte, format string) (*schema.Schema, error) {
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")))) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "the file is empty: a schema needs at least one type")
	}
	if format == "" {
		format = SchemaFormat(filename, data)
	}
	switch format {
	case FormatJSON:
		return schema.ParseJSON(data)
	case FormatKAG:
		if len(data) > schema.MaxKAGSize {
			return nil, extract.Errorf(extract.KindInvalid, "KAG schema is larger than %d bytes", schema.MaxKAGSize)
		}
		return schema.ParseKAGString(string(data))
	default:
		return nil, extract.Errorf(extract.KindInvalid, "unknown schema format %q: use kag or json", format)
	}
}

// ImportName is the name a schema file is stored under when none is given:
// the schema's own name (JSON), its namespace (KAG), else the file's base
// name without extension, cut to a valid schema name.
func ImportName(filename string, s *schema.Schema) string {
	for _, cand := range []string{s.Name, s.Namespace, strings.TrimSuffix(filepath.Base(filename), filepath.Ext(filename))} {
		cand = strings.Map(func(r rune) rune {
			if r == ' ' || r == '@' || r == '/' || r == '\\' {
				return '_'
			}
			return r
		}, strings.TrimSpace(cand))
		if store.ValidSchemaName(cand) == nil {
			return cand
		}
	}
	return "imported"
}

// FormatSchema writes a schema in a format: the KAG DSL or JSON.
func FormatSchema(s *schema.Schema, format string) ([]byte, error) {
	switch format {
	case FormatKAG, "":
		return []byte(schema.FormatKAG(s)), nil
	case FormatJSON:
		return schema.FormatJSON(s), nil
	}
	return nil, extract.Errorf(extract.KindInvalid, "unknown schema format %q: use kag or json", format)
}
