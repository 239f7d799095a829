package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
)

const schemaUsage = `usage:
  kgstudio schema import FILE [--name NAME] [--note TEXT]
      FILE is a .schema (KAG DSL) or .json schema, or a KAG .rule file of
      concept rules, which joins the schema its namespace names
  kgstudio schema export NAME[@VERSION] [--format kag|json]
  kgstudio schema list
  kgstudio schema delete NAME
  kgstudio schema suggest NAME FILE... [--provider gemini|openai] [--model M] [--out FILE]`

// cmdSchema handles "schema import|export|list|delete".
func cmdSchema(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(schemaUsage)
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, schemaUsage)
		return nil
	}
	switch args[0] {
	case "import":
		return cmdSchemaImport(ctx, args[1:], stdout, stderr)
	case "export":
		return cmdSchemaExport(ctx, args[1:], stdout, stderr)
	case "list":
		return cmdSchemaList(ctx, args[1:], stdout, stderr)
	case "delete":
		return cmdSchemaDelete(ctx, args[1:], stdout, stderr)
	case "suggest":
		return cmdSchemaSuggest(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("schema: unknown subcommand %q\n%s", args[0], schemaUsage)
}

// cmdSchemaImport stores a .schema (KAG DSL) or .json file as the next
// version of a schema and prints NAME@VERSION. Importing unchanged content
// prints the existing version.
func cmdSchemaImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("schema import", stderr)
	name := fs.String("name", "", "schema name (default: the schema's namespace or the file's base name)")
	note := fs.String("note", "", "note for the new version")
	format := fs.String("format", "", "file format: kag, json or rule (default: from the file name and content; a .rule file's concept rules join the schema its namespace names)")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return errors.New("schema import: name exactly one FILE")
	}
	if fi, err := os.Stat(files[0]); err == nil && fi.IsDir() {
		return fmt.Errorf("schema import: %s is a folder: name one .schema or .json file in it", files[0])
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return err
	}
	if app.IsRuleFile(files[0]) || *format == "rule" {
		return importRules(ctx, cfg, files[0], data, *name, *note, stdout, stderr)
	}
	sc, err := app.ParseSchemaFile(files[0], data, app.SchemaFileFormat(*format))
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	for _, w := range append(schema.Warnings(sc), schema.RuleWarnings(sc)...) {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if *name == "" {
		*name = app.ImportName(files[0], sc)
	}
	if *note == "" {
		*note = "imported from " + filepath.Base(files[0])
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	v, created, err := a.Schemas.Save(ctx, *name, app.AnyBase, sc, *note)
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	if !created {
		fmt.Fprintf(stderr, "unchanged: %s@%d already holds this content\n", *name, v)
	}
	fmt.Fprintf(stdout, "%s@%d\n", *name, v)
	return nil
}

// importRules attaches a KAG rule file's concept rules to the schema its
// namespace (or --name) names, as that schema's next version.
func importRules(ctx context.Context, cfg *Config, file string, data []byte, name, note string, stdout, stderr io.Writer) error {
	if note == "" {
		note = "concept rules from " + filepath.Base(file)
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	name, v, created, err := a.Schemas.ImportRules(ctx, name, data, note)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if sc, _, err := a.Schemas.Get(ctx, name, v); err == nil {
		for _, w := range schema.RuleWarnings(sc) {
			if strings.HasPrefix(w.Field, "concept_rules") {
				fmt.Fprintf(stderr, "warning: %s\n", w)
			}
		}
	}
	if !created {
		fmt.Fprintf(stderr, "unchanged: %s@%d already holds these rules\n", name, v)
	}
	fmt.Fprintf(stdout, "%s@%d\n", name, v)
	return nil
}

// cmdSchemaExport writes one schema version to stdout.
func cmdSchemaExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("schema export", stderr)
	format := fs.String("format", string(app.FormatKAG), "output format: kag or json")
	refs, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(refs) != 1 {
		return errors.New("schema export: name exactly one NAME[@VERSION]")
	}
	if f := app.SchemaFileFormat(*format); f != app.FormatKAG && f != app.FormatJSON {
		return fmt.Errorf("schema export: --format %q: use kag or json", *format)
	}
	name, num, err := record.ParseRef("schema", refs[0])
	if err != nil {
		return err
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.EnsureDefaults(ctx); err != nil {
		return err
	}
	sc, _, err := a.Schemas.Get(ctx, name, num)
	if err != nil {
		return err
	}
	out, err := app.FormatSchema(sc, app.SchemaFileFormat(*format))
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// cmdSchemaList prints one line per schema: NAME@LATEST, type count, update
// time.
func cmdSchemaList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("schema list", stderr)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.EnsureDefaults(ctx); err != nil {
		return err
	}
	list, err := a.Schemas.List(ctx)
	if err != nil {
		return err
	}
	for _, s := range list {
		fmt.Fprintf(stdout, "%s@%d\t%d types\t%s\n", s.Name, s.Latest, s.Types, s.Updated.Format("2006-01-02 15:04"))
	}
	return nil
}

// cmdSchemaDelete deletes a schema with all its versions, unless a version
// was run with it.
func cmdSchemaDelete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("schema delete", stderr)
	names, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return errors.New("schema delete: name one schema")
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.Schemas.Delete(ctx, names[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "deleted schema %s\n", names[0])
	return nil
}

// cmdSchemaSuggest drafts a schema from sample documents (offline: the
// types, relation verbs and values the nlp extractor finds; with
// --provider: a model's answer for passages sampled from them, cached)
// and prints it in KAG's DSL, or writes it to --out; nothing is stored,
// and `kgstudio schema import` takes the draft once it is reviewed.
func cmdSchemaSuggest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("schema suggest", stderr)
	var o app.SuggestOptions
	fs.StringVar((*string)(&o.Provider), "provider", "", "ask gemini or openai for the draft (default: offline)")
	fs.StringVar(&o.Model, "model", "", "model name (default per provider)")
	out := fs.String("out", "", "write the draft to FILE instead of stdout")
	force := fs.Bool("force", false, "overwrite --out if it exists")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return errors.New("usage: kgstudio schema suggest NAME FILE... [--provider gemini|openai] [--model M] [--out FILE]")
	}
	if o.Model != "" && extract.Offline(o.Provider) {
		return errors.New("schema suggest: --model needs --provider gemini or openai")
	}
	if *out != "" && !*force {
		if err := refuseOverwrite(*out); err != nil {
			return err
		}
	}
	var docs []extract.Document
	for _, f := range pos[1:] {
		data, err := os.ReadFile(f)
		if err != nil {
			return extract.Errorf(extract.KindInvalid, "schema suggest: %v", err)
		}
		fd, err := app.ReadDocuments(ctx, filepath.Base(f), data, cfg.MaxUpload)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		docs = append(docs, fd.Docs...)
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	sc, err := a.Schemas.Suggest(ctx, pos[0], docs, o)
	if err != nil {
		return err
	}
	text, err := app.FormatSchema(sc, app.FormatKAG)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(text)
		return err
	}
	return os.WriteFile(*out, text, 0o644)
}
