package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/web"
)

// listSchemas renders the schema list with the import form.
func (h *Handler) listSchemas(c echo.Context) error {
	list, err := h.appOf(c).Schemas.List(c.Request().Context())
	if err != nil {
		return err
	}
	rows := make([]web.SchemaRow, len(list))
	for i, s := range list {
		rows[i] = web.SchemaRow{Name: s.Name, Description: s.Description, Latest: s.Latest, Versions: s.Versions,
			Types: s.Types, Updated: s.Updated.Format("2006-01-02 15:04")}
	}
	return h.page(c, "schemas", "Schemas", web.SchemasList(web.SchemasPage{Rows: rows}))
}

// importSchema stores an uploaded .schema or .json file as a schema version.
func (h *Handler) importSchema(c echo.Context) error {
	fh, err := c.FormFile("file")
	if err != nil {
		return h.importFailed(c, extract.Errorf(extract.KindInvalid, "choose a .schema or .json file to import"))
	}
	if fh.Size > int64(h.maxUpload()) {
		return h.importFailed(c, extract.Errorf(extract.KindInvalid, "%s is over the limit of %s", fh.Filename, web.HumanBytes(h.maxUpload())))
	}
	f, err := fh.Open()
	if err != nil {
		return h.importFailed(c, extract.Wrap(extract.KindInvalid, err, "cannot read the upload"))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(h.maxUpload())+1))
	if err != nil {
		return h.importFailed(c, extract.Wrap(extract.KindInvalid, err, "cannot read the upload"))
	}
	if app.IsRuleFile(fh.Filename) {
		return h.importRules(c, fh.Filename, data)
	}
	sc, err := app.ParseSchemaFile(fh.Filename, data, "")
	if err != nil {
		return h.importFailed(c, extract.Errorf(extract.KindInvalid, "%s: %s", fh.Filename, extract.MessageOf(err)))
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" {
		name = app.ImportName(fh.Filename, sc)
	}
	note := strings.TrimSpace(c.FormValue("note"))
	if note == "" {
		note = "imported from " + fh.Filename
	}
	v, created, err := h.appOf(c).Schemas.Save(c.Request().Context(), name, app.AnyBase, sc, note)
	if err != nil {
		return h.importFailed(c, err)
	}
	if wantsJSON(c) {
		return c.JSON(saveStatus(created), map[string]any{"name": name, "version": v, "created": created})
	}
	msg := fmt.Sprintf("Imported %s as %s@%d.", fh.Filename, name, v)
	if !created {
		msg = fmt.Sprintf("%s holds the same content as %s@%d; no version added.", fh.Filename, name, v)
	}
	return redirectFlash(c, schemaURL(name, v), msg, false)
}

// importRules attaches an uploaded KAG rule file's concept rules to the
// schema its namespace (or the form's name) names.
func (h *Handler) importRules(c echo.Context, filename string, data []byte) error {
	note := strings.TrimSpace(c.FormValue("note"))
	if note == "" {
		note = "concept rules from " + filename
	}
	name, v, created, err := h.appOf(c).Schemas.ImportRules(c.Request().Context(), strings.TrimSpace(c.FormValue("name")), data, note)
	if err != nil {
		if extract.KindOf(err) != extract.KindInternal {
			err = extract.Errorf(extract.KindOf(err), "%s: %s", filename, extract.MessageOf(err))
		}
		return h.importFailed(c, err)
	}
	if wantsJSON(c) {
		return c.JSON(saveStatus(created), map[string]any{"name": name, "version": v, "created": created})
	}
	msg := fmt.Sprintf("Added the concept rules of %s to %s@%d.", filename, name, v)
	if !created {
		msg = fmt.Sprintf("%s@%d holds these rules already; no version added.", name, v)
	}
	var warned []string
	if sc, _, err := h.appOf(c).Schemas.Get(c.Request().Context(), name, v); err == nil {
		for _, w := range schema.RuleWarnings(sc) {
			if strings.HasPrefix(w.Field, "concept_rules") {
				warned = append(warned, w.Message)
			}
		}
	}
	if len(warned) > 0 {
		msg += " Check: " + strings.Join(warned, "; ")
	}
	return redirectFlash(c, schemaURL(name, v), msg, len(warned) > 0)
}

func (h *Handler) importFailed(c echo.Context, err error) error {
	if wantsJSON(c) || extract.KindOf(err) == extract.KindInternal {
		return err
	}
	return redirectFlash(c, "/schemas", "Import refused: "+extract.MessageOf(err), true)
}

func saveStatus(created bool) int {
	if created {
		return http.StatusCreated
	}
	return http.StatusOK
}

func schemaURL(name string, v int) string {
	return fmt.Sprintf("/schemas/%s?v=%d", url.PathEscape(name), v)
}

// showSchema renders one version (?v=N, default the latest) with the
// history and, given ?a=&b=, the difference of two versions.
func (h *Handler) showSchema(c echo.Context) error {
	ctx := c.Request().Context()
	name, err := pathParam(c, "name", "schema name")
	if err != nil {
		return err
	}
	sc, n, err := h.appOf(c).Schemas.Get(ctx, name, max(intQuery(c, "v", 0), 0))
	if err != nil {
		return err
	}
	hist, err := h.appOf(c).Schemas.Versions(ctx, name)
	if err != nil {
		return err
	}
	p := web.SchemaPage{Name: name, Namespace: sc.Namespace, Description: sc.Description, Version: n,
		Types: typeViews(sc), History: historyRows(hist), Warnings: warningLines(sc)}
	for _, r := range sc.ConceptRules {
		p.ConceptRules = append(p.ConceptRules, web.ConceptRuleView{Concept: r.Concept, Rule: r.Rule})
	}
	if len(hist) > 0 {
		p.Latest = hist[0].Number
	}
	if a, b := intQuery(c, "a", 0), intQuery(c, "b", 0); a > 0 && b > 0 {
		d, err := h.schemaDiff(ctx, name, a, b)
		if err != nil {
			return err
		}
		p.Diff = &d
	}
	return h.page(c, "schemas", p.Ref(), web.SchemaView(p))
}

// diffSchema renders the difference between versions ?a= and ?b=.
func (h *Handler) diffSchema(c echo.Context) error {
	a, b := intQuery(c, "a", 0), intQuery(c, "b", 0)
	if a <= 0 || b <= 0 {
		return extract.Errorf(extract.KindInvalid, "pick two versions to compare")
	}
	name, err := pathParam(c, "name", "schema name")
	if err != nil {
		return err
	}
	d, err := h.schemaDiff(c.Request().Context(), name, a, b)
	if err != nil {
		return err
	}
	return h.page(c, "schemas", fmt.Sprintf("%s@%d → @%d", d.Name, a, b), web.SchemaDiff(d))
}

func (h *Handler) schemaDiff(ctx context.Context, name string, a, b int) (web.SchemaDiffView, error) {
	sa, _, err := h.appIn(ctx).Schemas.Get(ctx, name, a)
	if err != nil {
		return web.SchemaDiffView{}, err
	}
	sb, _, err := h.appIn(ctx).Schemas.Get(ctx, name, b)
	if err != nil {
		return web.SchemaDiffView{}, err
	}
	d := web.SchemaDiffView{Name: name, A: a, B: b, Counts: map[string]int{}}
	for _, ch := range schema.Diff(sa, sb).Items {
		subject := ch.Type
		if ch.Name != "" {
			subject += "." + ch.Name
		}
		row := web.SchemaChange{Op: string(ch.Op), Element: string(ch.Element), Subject: subject}
		for _, f := range ch.Fields {
			row.Fields = append(row.Fields, fmt.Sprintf("%s: %q → %q", f.Field, f.Old, f.New))
		}
		d.Changes = append(d.Changes, row)
		d.Counts[string(ch.Element)+" "+string(ch.Op)]++
	}
	return d, nil
}

// exportSchema downloads one version as a KAG .schema or .json file.
func (h *Handler) exportSchema(c echo.Context) error {
	name, err := pathParam(c, "name", "schema name")
	if err != nil {
		return err
	}
	n, err := versionParam(c)
	if err != nil {
		return err
	}
	format := app.SchemaFileFormat(c.QueryParam("format"))
	if format == "" {
		format = app.FormatKAG
	}
	sc, n, err := h.appOf(c).Schemas.Get(c.Request().Context(), name, n)
	if err != nil {
		return err
	}
	out, err := app.FormatSchema(sc, format)
	if err != nil {
		return err
	}
	ext, ctype := ".schema", "text/plain; charset=utf-8"
	if format == app.FormatJSON {
		ext, ctype = ".json", "application/json"
	}
	c.Response().Header().Set("Content-Disposition",
		mime.FormatMediaType("attachment", map[string]string{"filename": fmt.Sprintf("%s-v%d%s", name, n, ext)}))
	return c.Blob(http.StatusOK, ctype, out)
}

// versionParam reads :n, a positive number or "latest" (0).
func versionParam(c echo.Context) (int, error) {
	if c.Param("n") == "latest" {
		return 0, nil
	}
	return intParam(c, "n")
}

// newSchema opens the editor on an empty schema, with the suggestion
// from documents unfolded.
func (h *Handler) newSchema(c echo.Context) error {
	e := editorView("", 0, "", &schema.Schema{}, nil)
	var err error
	if err = h.fillSuggestBox(c.Request().Context(), &e, nil, ""); err != nil {
		return err
	}
	e.SuggestOpen = true
	return h.page(c, "schemas", "New schema", web.SchemaEditorPage(e))
}

// editSchema opens the editor on a version (?v=N, default the latest).
func (h *Handler) editSchema(c echo.Context) error {
	name, err := pathParam(c, "name", "schema name")
	if err != nil {
		return err
	}
	sc, n, err := h.appOf(c).Schemas.Get(c.Request().Context(), name, max(intQuery(c, "v", 0), 0))
	if err != nil {
		return err
	}
	e := editorView(name, n, "", sc, nil)
	if err = h.fillSuggestBox(c.Request().Context(), &e, nil, ""); err != nil {
		return err
	}
	return h.page(c, "schemas", "Edit "+name, web.SchemaEditorPage(e))
}

// suggestMaxDocs bounds the documents a schema is suggested from at once.
const suggestMaxDocs = 20

// fillSuggestBox fills the editor's suggestion box: the newest stored
// documents, those picked checked, and who drafts (offline unless a
// provider was picked; those not configured say so).
func (h *Handler) fillSuggestBox(ctx context.Context, e *web.SchemaEditor, picked map[int]bool, provider extract.Provider) error {
	docs, err := h.appIn(ctx).Documents.List(ctx, 200)
	if err != nil {
		return err
	}
	e.Docs = make([]web.DocChoice, len(docs))
	for i, d := range docs {
		e.Docs[i] = web.DocChoice{ID: d.ID, Name: d.Name, Kind: string(d.Kind), Checked: picked[d.ID]}
	}
	p := h.appIn(ctx).Providers()
	e.SuggestProviders = nil
	for _, o := range []struct {
		v extract.Provider
		l string
	}{{extract.ProviderNone, "offline (nlp extractor)"}, {extract.ProviderGemini, "Gemini"}, {extract.ProviderOpenAI, "OpenAI-compatible"}} {
		l := o.l
		if m := p.Model(o.v); m != "" && p.Has(o.v) {
			l += " (" + m + ")"
		}
		if !p.Has(o.v) {
			l += " — not configured"
		}
		e.SuggestProviders = append(e.SuggestProviders, web.Option{Value: string(o.v), Label: l, Selected: cmp.Or(provider, extract.ProviderNone) == o.v})
	}
	return nil
}

// suggest drafts a schema from the picked documents (Schemas.Suggest,
// offline or by the provider picked, nothing stored) and adds its types
// to the working copy sc: all of them to an empty copy, else those it
// lacks (by name). It answers the editor's message and the field to
// focus; a model's refusal or unreadable answer is the message, the
// working copy as it was.
func (h *Handler) suggest(c echo.Context, name string, picked []int, provider extract.Provider, sc *schema.Schema) (string, string, error) {
	if len(picked) == 0 {
		return "Pick one or more documents to suggest a schema from.", web.OpValue("suggest"), nil
	}
	if len(picked) > suggestMaxDocs {
		return fmt.Sprintf("Pick at most %d documents; a draft needs only a sample.", suggestMaxDocs), web.OpValue("suggest"), nil
	}
	if extract.Offline(provider) {
		// The offline extractor is the heavy work; a model's call is not.
		release, err := h.enterHeavy(c)
		if err != nil {
			return "", "", err
		}
		defer release()
	}
	ctx := c.Request().Context()
	docs := make([]extract.Document, 0, len(picked))
	size := 0
	for _, id := range picked {
		d, err := h.appOf(c).Documents.Get(ctx, id)
		if err != nil {
			return "", "", err
		}
		if size += len(d.Content); size > h.maxUpload() {
			return fmt.Sprintf("The documents picked hold more than %s; pick fewer.", web.HumanBytes(h.maxUpload())), web.OpValue("suggest"), nil
		}
		docs = append(docs, d)
	}
	draft, err := h.appOf(c).Schemas.Suggest(ctx, cmp.Or(name, "Draft"), docs, app.SuggestOptions{Provider: provider})
	if k := extract.KindOf(err); err != nil && !extract.Offline(provider) && (k == extract.KindInvalid || k == extract.KindUnavailable) {
		return extract.MessageOf(err), "suggest_provider", nil
	}
	if err != nil {
		return "", "", err
	}
	have := map[string]bool{}
	for _, t := range sc.Types {
		have[strings.ToLower(t.Name)] = true
	}
	first := len(sc.Types)
	var added []string
	for _, t := range draft.Types {
		if have[strings.ToLower(t.Name)] {
			continue
		}
		sc.Types = append(sc.Types, t)
		added = append(added, t.Name)
	}
	if sc.Description == "" {
		sc.Description = draft.Description
	}
	if len(added) == 0 {
		return fmt.Sprintf("The %s suggested no type the schema lacks.", web.Count(len(docs), "document", "documents")), web.OpValue("suggest"), nil
	}
	by := ""
	if !extract.Offline(provider) {
		by = " by the " + string(provider) + " model"
	}
	msg := fmt.Sprintf("Drafted %s from %s%s: %s. Review them, then press Save version; nothing is saved until then.",
		web.Count(len(added), "type", "types"), web.Count(len(docs), "document", "documents"), by, strings.Join(added, ", "))
	return msg, web.TypeField(first, "name"), nil
}

// postEditor applies one editor action to the posted working copy: add or
// remove a type, property or relation, check it, or save it as a new
// version. It answers with the editor again, or redirects after a save.
func (h *Handler) postEditor(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "cannot read the form")
	}
	name := strings.TrimSpace(form.Get("schema"))
	from, _ := strconv.Atoi(form.Get("from"))
	note := strings.TrimSpace(form.Get("note"))
	sc, formProblems := schemaFromForm(form)
	op, idx := parseOp(form.Get("op"))
	var problems []schema.Problem
	msg, focus := "", ""
	// conflict is a save refused because another save came first;
	// latest, the version that save made.
	conflict, latest := "", 0
	picked := map[int]bool{}
	var pickedIDs []int
	for _, s := range form["suggest_doc"] {
		if id, err := strconv.Atoi(s); err == nil && id > 0 && !picked[id] {
			picked[id] = true
			pickedIDs = append(pickedIDs, id)
		}
	}
	provider := extract.Provider(strings.TrimSpace(form.Get("suggest_provider")))
	switch op {
	case "suggest":
		// A draft fills the working copy; only Save stores it.
		if msg, focus, err = h.suggest(c, name, pickedIDs, provider, sc); err != nil {
			return err
		}
	case "validate", "save":
		r, err := h.checkOrSave(c, op, name, from, note, sc, formProblems)
		if err != nil || r.redirect != "" {
			if err == nil {
				err = redirectFlash(c, r.redirect, r.flash, false)
			}
			return err
		}
		problems, msg, conflict, latest = r.problems, r.msg, r.conflict, r.latest
	default:
		focus = editSchema(sc, op, idx)
	}
	e := editorView(name, from, note, sc, problems)
	e.Message, e.Focus, e.Dirty = msg, focus, true
	e.Conflict, e.Latest = conflict, latest
	if err = h.fillSuggestBox(c.Request().Context(), &e, picked, provider); err != nil {
		return err
	}
	e.SuggestOpen = op == "suggest"
	status := http.StatusOK
	if len(problems) > 0 {
		status = http.StatusUnprocessableEntity
	}
	if conflict != "" {
		status = http.StatusConflict
	}
	if c.Request().Header.Get("HX-Request") == "true" {
		// htmx swaps only 2xx answers; the messages are in the form.
		return render(c, http.StatusOK, web.SchemaEditorForm(e))
	}
	title := "Edit " + name
	if from == 0 {
		title = "New schema"
	}
	return render(c, status, web.Layout(web.Page{Title: title, Nav: "schemas", Asset: h.assets.URL}, web.SchemaEditorPage(e)))
}

// editSchema applies one of the editor's structural buttons to the
// working copy (add or remove a type, a property, a relation) and
// returns the field to focus next ("" for none; an unknown op or a
// position out of range changes nothing).
func editSchema(sc *schema.Schema, op string, idx []int) (focus string) {
	switch op {
	case "add-type":
		sc.Types = append(sc.Types, schema.EntityType{Kind: schema.KindEntity})
		return web.TypeField(len(sc.Types)-1, "name")
	case "remove-type":
		if at(idx, 0) < len(sc.Types) {
			sc.Types = append(sc.Types[:idx[0]], sc.Types[idx[0]+1:]...)
			if len(sc.Types) > 0 {
				return web.TypeField(min(idx[0], len(sc.Types)-1), "name")
			}
			return web.OpValue("add-type")
		}
	case "add-prop":
		if t := typeAt(sc, idx); t != nil {
			t.Properties = append(t.Properties, schema.Property{Type: "Text"})
			return web.PropField(idx[0], len(t.Properties)-1, "name")
		}
	case "remove-prop":
		if t := typeAt(sc, idx); t != nil && at(idx, 1) < len(t.Properties) {
			t.Properties = append(t.Properties[:idx[1]], t.Properties[idx[1]+1:]...)
			if len(t.Properties) > 0 {
				return web.PropField(idx[0], min(idx[1], len(t.Properties)-1), "name")
			}
			return web.OpValue("add-prop", idx[0])
		}
	case "add-rel":
		if t := typeAt(sc, idx); t != nil {
			t.Relations = append(t.Relations, schema.Relation{Target: t.Name})
			return web.RelField(idx[0], len(t.Relations)-1, "name")
		}
	case "remove-rel":
		if t := typeAt(sc, idx); t != nil && at(idx, 1) < len(t.Relations) {
			t.Relations = append(t.Relations[:idx[1]], t.Relations[idx[1]+1:]...)
			if len(t.Relations) > 0 {
				return web.RelField(idx[0], min(idx[1], len(t.Relations)-1), "name")
			}
			return web.OpValue("add-rel", idx[0])
		}
	}
	return ""
}

// editorResult is what checking or saving the editor's working copy
// came to: a page to go to with its message (saved), or the problems, a
// message, or a conflict with a later save (latest, its version) to show
// in the form.
type editorResult struct {
	redirect, flash string
	problems        []schema.Problem
	msg, conflict   string
	latest          int
}

// checkOrSave validates the working copy (op "validate") or saves it as
// a new version of name (op "save"), over version from (0: a new schema).
func (h *Handler) checkOrSave(c echo.Context, op, name string, from int, note string, sc *schema.Schema, formProblems []schema.Problem) (editorResult, error) {
	ctx := c.Request().Context()
	r := editorResult{problems: formProblems}
	if op == "validate" {
		r.problems = append(r.problems, schema.Validate(sc)...)
	}
	if from == 0 {
		r.problems = append(r.problems, h.newNameProblems(ctx, name)...)
	}
	if len(r.problems) > 0 || op == "validate" {
		if len(r.problems) == 0 {
			r.msg = "No problems found."
		}
		return r, nil
	}
	// Save validates the schema (its problems come back listed); the
	// store refuses the save when a version was saved after the one the
	// editor started from: saving would undo it.
	v, created, err := h.appOf(c).Schemas.Save(ctx, name, from, sc, note)
	if ps := schema.ProblemsOf(err); ps != nil {
		r.problems = ps
		return r, nil
	}
	if extract.KindOf(err) == extract.KindConflict && from > 0 {
		// Another save came first: the message and the way out go at the
		// top of the form.
		r.conflict = extract.MessageOf(err)
		if _, n, err := h.appOf(c).Schemas.Get(ctx, name, 0); err == nil && n > from {
			r.latest = n
		}
		return r, nil
	}
	if k := extract.KindOf(err); k == extract.KindInvalid || k == extract.KindConflict {
		r.problems = append(r.problems, schema.Problem{Field: "schema", Message: extract.MessageOf(err)})
		return r, nil
	}
	if err != nil {
		return r, err
	}
	r.redirect, r.flash = schemaURL(name, v), fmt.Sprintf("Saved %s@%d.", name, v)
	if !created {
		r.flash = fmt.Sprintf("No changes: %s@%d already holds this content.", name, v)
	}
	return r, nil
}

// newNameProblems checks the name of a schema created in the editor.
func (h *Handler) newNameProblems(ctx context.Context, name string) []schema.Problem {
	if err := h.appIn(ctx).Schemas.ValidName(name); err != nil {
		return []schema.Problem{{Field: "schema", Message: extract.MessageOf(err)}}
	}
	if _, _, err := h.appIn(ctx).Schemas.Get(ctx, name, 0); err == nil {
		return []schema.Problem{{Field: "schema", Message: fmt.Sprintf("a schema named %q exists; open it and edit it instead", name)}}
	}
	return nil
}

func at(idx []int, i int) int {
	if i < len(idx) {
		return idx[i]
	}
	return 1 << 30
}

func typeAt(sc *schema.Schema, idx []int) *schema.EntityType {
	if i := at(idx, 0); i < len(sc.Types) {
		return &sc.Types[i]
	}
	return nil
}

// parseOp splits "remove-prop:2:0" into the action and its indexes.
func parseOp(s string) (string, []int) {
	parts := strings.Split(s, ":")
	var idx []int
	for _, p := range parts[1:] {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return "", nil
		}
		idx = append(idx, n)
	}
	return parts[0], idx
}

var (
	typeFieldRE = regexp.MustCompile(`^types\[(\d{1,4})\]\.([a-z_]+)$`)
	itemFieldRE = regexp.MustCompile(`^types\[(\d{1,4})\]\.(properties|relations)\[(\d{1,4})\]\.([a-z_]+)$`)
)

// schemaFromForm rebuilds the working copy from the editor's fields
// ("types[2].relations[0].target"), in index order. Sub-properties travel
// as JSON in hidden fields; a broken one is reported, not guessed.
func schemaFromForm(form url.Values) (*schema.Schema, []schema.Problem) {
	type typ struct {
		vals        map[string]string
		props, rels map[int]map[string]string
	}
	types := map[int]*typ{}
	get := func(i int) *typ {
		if types[i] == nil {
			types[i] = &typ{vals: map[string]string{}, props: map[int]map[string]string{}, rels: map[int]map[string]string{}}
		}
		return types[i]
	}
	for key, vs := range form {
		if len(vs) == 0 {
			continue
		}
		if m := typeFieldRE.FindStringSubmatch(key); m != nil {
			i, _ := strconv.Atoi(m[1])
			get(i).vals[m[2]] = vs[0]
		} else if m := itemFieldRE.FindStringSubmatch(key); m != nil {
			i, _ := strconv.Atoi(m[1])
			j, _ := strconv.Atoi(m[3])
			t := get(i)
			dst := t.props
			if m[2] == "relations" {
				dst = t.rels
			}
			if dst[j] == nil {
				dst[j] = map[string]string{}
			}
			dst[j][m[4]] = vs[0]
		}
	}
	var problems []schema.Problem
	sub := func(field, s string) []schema.Property {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		var ps []schema.Property
		if err := json.Unmarshal([]byte(s), &ps); err != nil {
			problems = append(problems, schema.Problem{Field: field, Message: "the sub-properties could not be read back; reload the editor"})
			return nil
		}
		return ps
	}
	sc := &schema.Schema{
		Namespace:   strings.TrimSpace(form.Get("namespace")),
		Description: strings.TrimSpace(form.Get("description")),
	}
	for ti, i := range sortedKeys(types) {
		t := types[i]
		v := t.vals
		et := schema.EntityType{
			Name: strings.TrimSpace(v["name"]), Alias: strings.TrimSpace(v["alias"]), Kind: schema.Kind(strings.TrimSpace(v["kind"])),
			Description: strings.TrimSpace(v["description"]), Parent: strings.TrimSpace(v["parent"]),
			HypernymPredicate: strings.TrimSpace(v["hypernym_predicate"]), AutoRelate: strings.TrimSpace(v["auto_relate"]),
			Spreadable: strings.TrimSpace(v["spreadable"]), Regular: strings.TrimSpace(v["regular"]),
		}
		if et.Kind == "" {
			et.Kind = schema.KindEntity
		}
		for pi, j := range sortedKeys(t.props) {
			p := t.props[j]
			et.Properties = append(et.Properties, schema.Property{
				Name: strings.TrimSpace(p["name"]), Alias: strings.TrimSpace(p["alias"]), Type: strings.TrimSpace(p["type"]),
				Description: strings.TrimSpace(p["description"]), Constraint: strings.TrimSpace(p["constraint"]),
				Index: strings.TrimSpace(p["index"]), Rule: textareaValue(p["rule"]),
				Properties: sub(fmt.Sprintf("types[%d].properties[%d].properties", ti, pi), p["sub"]),
			})
		}
		for ri, j := range sortedKeys(t.rels) {
			r := t.rels[j]
			et.Relations = append(et.Relations, schema.Relation{
				Name: strings.TrimSpace(r["name"]), Alias: strings.TrimSpace(r["alias"]), Target: strings.TrimSpace(r["target"]),
				Description: strings.TrimSpace(r["description"]), Constraint: strings.TrimSpace(r["constraint"]),
				Rule:       textareaValue(r["rule"]),
				Properties: sub(fmt.Sprintf("types[%d].relations[%d].properties", ti, ri), r["sub"]),
			})
		}
		sc.Types = append(sc.Types, et)
	}
	if text := textareaValue(form.Get("concept_rules")); text != "" {
		rules, err := schema.ParseKAGString(text)
		switch {
		case err != nil:
			problems = append(problems, schema.Problem{Field: "concept_rules", Message: extract.MessageOf(err)})
		case len(rules.Types) > 0 || rules.Namespace != "":
			problems = append(problems, schema.Problem{Field: "concept_rules", Message: "only concept rule sections go here (`Type`/`Concept`: then rule: [[ ... ]]); types and the namespace have their own fields"})
		default:
			sc.ConceptRules = rules.ConceptRules
		}
	}
	return sc, problems
}

// textareaValue undoes the CRLF line ends browsers send for textareas and
// drops a rule that is only blank.
func textareaValue(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// editorView prepares the editor for a working copy and its problems.
func editorView(name string, from int, note string, sc *schema.Schema, problems []schema.Problem) web.SchemaEditor {
	e := web.SchemaEditor{
		Name: name, New: from == 0, From: from, Note: note,
		Namespace: sc.Namespace, Description: sc.Description,
		Types: typeViews(sc), BasicTypes: schema.BasicTypes, ConceptRules: conceptRulesText(sc),
		Errors: map[string][]string{}, Problems: len(problems), Warnings: warningLines(sc),
	}
	for _, p := range problems {
		if p.Field == "schema" || web.EditorHasField(p.Field) {
			e.Errors[p.Field] = append(e.Errors[p.Field], p.Message)
		} else {
			e.Other = append(e.Other, p.String())
		}
	}
	return e
}

// conceptRulesText is a schema's concept rules as a KAG rule file's
// sections, for the editor.
func conceptRulesText(sc *schema.Schema) string {
	if len(sc.ConceptRules) == 0 {
		return ""
	}
	return schema.FormatKAG(&schema.Schema{ConceptRules: sc.ConceptRules})
}

// typeViews converts a schema's types for display and editing.
func typeViews(sc *schema.Schema) []web.SchemaType {
	out := make([]web.SchemaType, len(sc.Types))
	for i, t := range sc.Types {
		v := web.SchemaType{Name: t.Name, Alias: t.Alias, Kind: string(t.Kind), Description: t.Description, Parent: t.Parent,
			HypernymPredicate: t.HypernymPredicate, AutoRelate: t.AutoRelate, Spreadable: t.Spreadable, Regular: t.Regular}
		for _, p := range t.Properties {
			sub, n := subJSON(p.Properties)
			v.Props = append(v.Props, web.SchemaProp{Name: p.Name, Alias: p.Alias, Type: p.Type, Description: p.Description,
				Constraint: p.Constraint, Index: p.Index, Rule: p.Rule, Sub: sub, SubCount: n})
		}
		for _, r := range t.Relations {
			sub, n := subJSON(r.Properties)
			v.Rels = append(v.Rels, web.SchemaRel{Name: r.Name, Alias: r.Alias, Target: r.Target, Description: r.Description,
				Constraint: r.Constraint, Rule: r.Rule, Sub: sub, SubCount: n})
		}
		out[i] = v
	}
	return out
}

func subJSON(ps []schema.Property) (string, int) {
	if len(ps) == 0 {
		return "", 0
	}
	// Marshalling plain strings and slices cannot fail.
	b, _ := json.Marshal(ps)
	return string(b), len(ps)
}

func historyRows(hist []record.SchemaVersionInfo) []web.SchemaVersionRow {
	rows := make([]web.SchemaVersionRow, len(hist))
	for i, v := range hist {
		rows[i] = web.SchemaVersionRow{Number: v.Number, Note: v.Note, Types: v.Types, Hash: v.Hash, Created: v.Created.Format("2006-01-02 15:04")}
	}
	return rows
}

// apiListSchemas lists schemas as JSON.
func (h *Handler) apiListSchemas(c echo.Context) error {
	list, err := h.appOf(c).Schemas.List(c.Request().Context())
	if err != nil {
		return err
	}
	type row struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Latest      int    `json:"latest"`
		Versions    int    `json:"versions"`
		Types       int    `json:"types"`
		Updated     string `json:"updated"`
	}
	out := make([]row, len(list))
	for i, s := range list {
		out[i] = row{s.Name, s.Description, s.Latest, s.Versions, s.Types, s.Updated.UTC().Format("2006-01-02T15:04:05Z")}
	}
	return c.JSON(http.StatusOK, out)
}

// apiSaveSchema stores a schema posted as {"name","note","schema":{...}},
// or as KAG text with ?format=kag (&name=, &note=). The optional
// "base_version" (or &base_version=) is the latest version the client saw,
// 0 for a new schema: when another version was saved since, the save is
// refused with 409. Without it the schema is saved on top of the latest
// version. It answers {"name","version","created"}, or 400 with the
// validation problems.
func (h *Handler) apiSaveSchema(c echo.Context) error {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, int64(h.maxUpload())+1))
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "cannot read the request body")
	}
	if len(body) > h.maxUpload() {
		return extract.Errorf(extract.KindInvalid, "the request body is over the limit of %s", web.HumanBytes(h.maxUpload()))
	}
	var sc *schema.Schema
	name, note := c.QueryParam("name"), c.QueryParam("note")
	var bodyBase *int
	switch app.SchemaFileFormat(c.QueryParam("format")) {
	case app.FormatKAG:
		if sc, err = app.ParseSchemaFile("", body, app.FormatKAG); err != nil {
			return err
		}
	case "", app.FormatJSON:
		var req struct {
			Name        string          `json:"name"`
			Note        string          `json:"note"`
			Schema      json.RawMessage `json:"schema"`
			BaseVersion *int            `json:"base_version"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return extract.Errorf(extract.KindInvalid, "the body must be a JSON object {\"name\", \"note\", \"schema\"}: %s", extract.JSONProblem(body, err))
		}
		if sc, err = schema.ParseJSON(req.Schema); err != nil {
			return err
		}
		name, note, bodyBase = firstNonEmpty(req.Name, name), firstNonEmpty(req.Note, note), req.BaseVersion
	default:
		return extract.Errorf(extract.KindInvalid, "format must be json or kag")
	}
	base, err := baseVersion(c.QueryParam("base_version"), bodyBase)
	if err != nil {
		return err
	}
	if name == "" {
		name = app.ImportName("", sc)
	}
	v, created, err := h.appOf(c).Schemas.Save(c.Request().Context(), name, base, sc, note)
	if problems := schema.ProblemsOf(err); problems != nil {
		return c.JSON(http.StatusBadRequest, map[string]any{
			"error": extract.MessageOf(err), "status": http.StatusBadRequest, "problems": problems,
		})
	}
	if err != nil {
		return err
	}
	return c.JSON(saveStatus(created), map[string]any{"name": name, "version": v, "created": created})
}

// baseVersion reads the optional base version of a schema save, from the
// body or else the query; without one the save goes on top of the latest
// version (app.AnyBase).
func baseVersion(query string, body *int) (int, error) {
	n := -1
	switch {
	case body != nil:
		n = *body
	case query == "":
		return app.AnyBase, nil
	default:
		if v, err := strconv.Atoi(query); err == nil {
			n = v
		}
	}
	if n < 0 {
		return 0, extract.Errorf(extract.KindInvalid, "base_version must be a version number (0 for a new schema)")
	}
	return n, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// apiSchemaVersion answers one version's JSON form (n may be "latest").
func (h *Handler) apiSchemaVersion(c echo.Context) error {
	n, err := versionParam(c)
	if err != nil {
		return err
	}
	name, err := pathParam(c, "name", "schema name")
	if err != nil {
		return err
	}
	sc, _, err := h.appOf(c).Schemas.Get(c.Request().Context(), name, n)
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, schema.FormatJSON(sc))
}

// apiSchemaVersions answers a schema's history, newest first.
func (h *Handler) apiSchemaVersions(c echo.Context) error {
	name, err := pathParam(c, "name", "schema name")
	if err != nil {
		return err
	}
	hist, err := h.appOf(c).Schemas.Versions(c.Request().Context(), name)
	if err != nil {
		return err
	}
	type row struct {
		Number  int    `json:"number"`
		Note    string `json:"note,omitempty"`
		Types   int    `json:"types"`
		Hash    string `json:"hash"`
		Created string `json:"created"`
	}
	out := make([]row, len(hist))
	for i, v := range hist {
		out[i] = row{v.Number, v.Note, v.Types, v.Hash, v.Created.UTC().Format("2006-01-02T15:04:05Z")}
	}
	return c.JSON(http.StatusOK, out)
}

// warningLines lists KAG's conventions a schema does not follow, each with
// its field path.
func warningLines(sc *schema.Schema) []string {
	var out []string
	for _, w := range schema.Warnings(sc) {
		out = append(out, w.String())
	}
	return out
}
