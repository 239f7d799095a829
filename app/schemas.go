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

// SchemaFileFormat is the format of a schema file.
type SchemaFileFormat string

// Schema file formats.
const (
	FormatKAG  SchemaFileFormat = "kag"
	FormatJSON SchemaFileFormat = "json"
)

// SchemaFormat picks the format of a schema file: JSON for a .json name or
// content starting with '{', the KAG DSL otherwise.
func SchemaFormat(filename string, data []byte) SchemaFileFormat {
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
func ParseSchemaFile(filename string, data []byte, format SchemaFileFormat) (*schema.Schema, error) {
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
func FormatSchema(s *schema.Schema, format SchemaFileFormat) ([]byte, error) {
	switch format {
	case FormatKAG, "":
		return []byte(schema.FormatKAG(s)), nil
	case FormatJSON:
		return schema.FormatJSON(s), nil
	}
	return nil, extract.Errorf(extract.KindInvalid, "unknown schema format %q: use kag or json", format)
}

// IsRuleFile reports whether a file is a KAG rule file (`concept.rule`)
// by its name.
func IsRuleFile(filename string) bool {
	return strings.EqualFold(filepath.Ext(filename), ".rule")
}

// ImportRules attaches the concept rules of a KAG rule file (a
// `concept.rule`: its namespace, then sections headed by a concept, each
// holding rule: [[ ... ]] blocks) to a schema as its next version, and
// returns the schema's name and that version; created is false when the
// schema held these rules already. The schema is the one named name, or
// when name is empty the one the file's namespace names (a schema of that
// name, else the one schema whose namespace it is). A rule written for a
// concept replaces the rules the schema had for that concept, as KAG's
// reg_concept_rule does; the other rules stay.
func (s *Schemas) ImportRules(ctx context.Context, name string, data []byte, note string) (string, int, bool, error) {
	if len(data) > schema.MaxKAGSize {
		return "", 0, false, extract.Errorf(extract.KindInvalid, "rule file is larger than %d bytes", schema.MaxKAGSize)
	}
	file, err := schema.ParseKAGString(string(data))
	if err != nil {
		return "", 0, false, err
	}
	if len(file.Types) > 0 || len(file.ConceptRules) == 0 {
		return "", 0, false, extract.Errorf(extract.KindInvalid, "a rule file holds concept rules only: a namespace line, then sections like `TaxOfRiskApp`/`赌博应用`: with rule: [[ ... ]] under them (import type declarations as a .schema file)")
	}
	if name == "" {
		if name, err = s.byNamespace(ctx, file.Namespace); err != nil {
			return "", 0, false, err
		}
	}
	cur, num, err := s.Get(ctx, name, 0)
	if err != nil {
		return "", 0, false, err
	}
	replaced := map[string]bool{}
	for _, c := range file.ConceptRules {
		if c.Concept != "" {
			replaced[conceptKey(c.Concept)] = true
		}
	}
	next := *cur
	next.ConceptRules = nil
	for _, c := range cur.ConceptRules {
		if !replaced[conceptKey(c.Concept)] {
			next.ConceptRules = append(next.ConceptRules, c)
		}
	}
	next.ConceptRules = append(next.ConceptRules, file.ConceptRules...)
	v, created, err := s.Save(ctx, name, num, &next, note)
	return name, v, created, err
}

// byNamespace is the schema a rule file's namespace names.
func (s *Schemas) byNamespace(ctx context.Context, ns string) (string, error) {
	if ns == "" {
		return "", extract.Errorf(extract.KindInvalid, "the rule file names no namespace: give the schema's name (--name)")
	}
	list, err := s.List(ctx)
	if err != nil {
		return "", err
	}
	var found []string
	for _, info := range list {
		if info.Name == ns {
			return ns, nil
		}
		sc, _, err := s.Get(ctx, info.Name, 0)
		if err != nil {
			return "", err
		}
		if sc.Namespace == ns {
			found = append(found, info.Name)
		}
	}
	switch len(found) {
	case 0:
		return "", extract.Errorf(extract.KindNotFound, "no schema has the namespace %s: import its .schema file first, or give the schema's name (--name)", ns)
	case 1:
		return found[0], nil
	}
	return "", extract.Errorf(extract.KindInvalid, "schemas %s all have the namespace %s: give the schema's name (--name)", strings.Join(found, ", "), ns)
}

// conceptKey compares concept section heads without backticks, spaces or
// a namespace prefix on the type.
func conceptKey(head string) string {
	typ, concept, _ := strings.Cut(strings.NewReplacer("`", "", " ", "").Replace(head), "/")
	if i := strings.LastIndexByte(typ, '.'); i >= 0 {
		typ = typ[i+1:]
	}
	return strings.ToLower(typ) + "/" + concept
}
