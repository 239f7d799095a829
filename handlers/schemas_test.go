package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
)

// schemaClient is a client that returns redirects instead of following them.
var schemaClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// uploadSchema posts a schema file to the import form.
func uploadSchema(t *testing.T, a *testApp, filename string, data []byte, name string) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", filename)
	fw.Write(data)
	if name != "" {
		mw.WriteField("name", name)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/schemas", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := schemaClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func getBody(t *testing.T, a *testApp, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(a.Server.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestSchemas_List(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	_, doc := a.Get(t, "/schemas")
	if doc.Find(`[data-testid="empty-schemas"]`).Length() != 1 || doc.Find(`[data-testid="import-form"]`).Length() != 1 {
		t.Fatal("empty schema list: no empty state or no import form")
	}
	if err := a.App.EnsureDefaults(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, doc = a.Get(t, "/schemas")
	row := doc.Find(`[data-testid="schema-row"][data-name="default"]`)
	if row.Length() != 1 || !hasText(row, "11") {
		t.Fatalf("default schema row: %q", row.Text())
	}
	if doc.Find(`nav a.active`).Text() != "Schemas" {
		t.Fatalf("active nav: %q", doc.Find(`nav a.active`).Text())
	}
}

// TestSchemas_UploadKAGFolder imports every shared KAG schema through the
// upload form, re-imports it (no new version), shows it, and downloads both
// export formats back to an equal schema.
func TestSchemas_UploadKAGFolder(t *testing.T) {
	t.Parallel()
	files := testkit.Glob(t, "kag-schemas", "*.schema")
	a := MustApp(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := schema.ParseKAGString(string(src))
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(filepath.Base(f), ".schema") + "-ui"
			resp := uploadSchema(t, a, filepath.Base(f), src, name)
			loc := "/schemas/" + name + "?v=1"
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != loc {
				t.Fatalf("upload: %d %q", resp.StatusCode, resp.Header.Get("Location"))
			}
			if again := uploadSchema(t, a, filepath.Base(f), src, name); again.Header.Get("Location") != loc {
				t.Fatalf("re-upload went to %q, want %q", again.Header.Get("Location"), loc)
			}
			if _, n, _ := a.App.Schemas.Get(context.Background(), name, 0); n != 1 {
				t.Fatalf("re-upload created version %d", n)
			}
			_, doc := a.Get(t, loc)
			if got := doc.Find(`[data-testid="type"]`).Length(); got != len(want.Types) {
				t.Fatalf("schema page shows %d types, want %d", got, len(want.Types))
			}
			code, kag := getBody(t, a, "/schemas/"+name+"/versions/1/export?format=kag")
			if code != http.StatusOK {
				t.Fatalf("export kag: %d", code)
			}
			got, err := schema.ParseKAGString(string(kag))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("KAG export differs (%v):\n%s", err, kag)
			}
			code, js := getBody(t, a, "/schemas/"+name+"/versions/1/export?format=json")
			gotJ, err := schema.ParseJSON(js)
			if code != http.StatusOK || err != nil {
				t.Fatalf("export json: %d %v", code, err)
			}
			gotJ.Name = ""
			wantJ, _ := schema.ParseJSON(schema.FormatJSON(want))
			if !reflect.DeepEqual(gotJ, wantJ) {
				t.Fatal("JSON export differs from the file")
			}
			// The editor carries every field: saving it unchanged adds no version.
			_, ed := a.Get(t, "/schemas/"+name+"/edit")
			if resp, _ := postEditor(t, a, formValues(ed.Find(`form[data-testid="editor"]`)), "save", false); resp.Header.Get("Location") != loc {
				t.Fatalf("unchanged editor save: %d %q", resp.StatusCode, resp.Header.Get("Location"))
			}
			// The JSON export imports back as the same version.
			if again := uploadSchema(t, a, name+".json", js, name); again.Header.Get("Location") != loc {
				t.Fatalf("JSON re-import went to %q", again.Header.Get("Location"))
			}
		})
	}
	t.Run("BrokenFile", func(t *testing.T) {
		resp := uploadSchema(t, a, "bad.schema", []byte("Person: EntityType\n  ???\n"), "bad")
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/schemas" {
			t.Fatalf("broken upload: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, _, err := a.App.Schemas.Get(context.Background(), "bad", 0); extract.KindOf(err) != extract.KindNotFound {
			t.Fatalf("broken upload stored: %v", err)
		}
	})
}

// formValues collects what a browser would submit from a form: inputs,
// selected options and textareas (no buttons).
func formValues(form *goquery.Selection) url.Values {
	v := url.Values{}
	form.Find("input[name]").Each(func(_ int, s *goquery.Selection) {
		if typ, _ := s.Attr("type"); typ == "file" || typ == "submit" {
			return
		}
		name, _ := s.Attr("name")
		val, _ := s.Attr("value")
		v.Set(name, val)
	})
	form.Find("select[name]").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		opt := s.Find("option[selected]").First()
		if opt.Length() == 0 {
			opt = s.Find("option").First()
		}
		val, _ := opt.Attr("value")
		v.Set(name, val)
	})
	form.Find("textarea[name]").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		v.Set(name, s.Text())
	})
	return v
}

// postEditor submits the editor with an action; htmx adds the HX-Request
// header like the browser does.
func postEditor(t *testing.T, a *testApp, v url.Values, op string, htmx bool) (*http.Response, *goquery.Document) {
	t.Helper()
	v = cloneValues(v)
	v.Set("op", op)
	req, _ := http.NewRequest(http.MethodPost, a.Server.URL+"/schemas/editor", strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	resp, err := schemaClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, doc
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

const peopleKAG = `namespace People

Person(人物): EntityType
    desc: a human
    properties:
        birthPlace(出生地): City
        nickname(昵称): Text
            constraint: MultiValue
            index: Text
City(城市): EntityType
`

func TestSchemaEditor_FormEditsCreateVersions(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	src, _ := schema.ParseKAGString(peopleKAG)
	if _, _, err := a.App.Schemas.Save(ctx, "people", 0, src, "start"); err != nil {
		t.Fatal(err)
	}
	v := openPeopleEditor(t, a)

	t.Run("UnchangedSaveAddsNoVersion", func(t *testing.T) {
		resp, _ := postEditor(t, a, v, "save", false)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/schemas/people?v=1" {
			t.Fatalf("save unchanged: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})

	v = addCompanyInEditor(t, a, v)
	v.Set("note", "add Company")
	resp, _ := postEditor(t, a, v, "save", false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/schemas/people?v=2" {
		t.Fatalf("save: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	got, n, err := a.App.Schemas.Get(ctx, "people", 0)
	if err != nil || n != 2 {
		t.Fatalf("latest: %d %v", n, err)
	}
	c, ok := got.Lookup("Company")
	p, _ := got.Lookup("Person")
	if !ok || c.Alias != "公司" || len(p.Relations) != 1 || p.Relations[0].Target != "Company" || len(p.Properties) != 1 || p.Description != "a human" || got.Namespace != "People" {
		t.Fatalf("saved schema:\n%s", schema.FormatJSON(got))
	}
	hist, _ := a.App.Schemas.Versions(ctx, "people")
	if len(hist) != 2 || hist[0].Note != "add Company" {
		t.Fatalf("history: %+v", hist)
	}

	t.Run("HistoryAndDiff", func(t *testing.T) { checkPeopleHistoryAndDiff(t, a) })

	t.Run("StaleEditorRefused", func(t *testing.T) {
		// An editor opened on @1, saved after @2 exists, would undo @2.
		_, doc := a.Get(t, "/schemas/people/edit?v=1")
		stale := formValues(doc.Find(`form[data-testid="editor"]`))
		stale.Set("types[0].description", "a person")
		resp, page := postEditor(t, a, stale, "save", false)
		if resp.StatusCode != http.StatusConflict || !hasText(page.Find(`[data-testid="editor-conflict"]`), "people@2 was saved after @1") {
			t.Fatalf("stale save: %d %q", resp.StatusCode, page.Find(".error").Text())
		}
		if _, n, _ := a.App.Schemas.Get(ctx, "people", 0); n != 2 {
			t.Fatalf("a stale save added version %d", n)
		}
	})

	t.Run("TwoEditorsOnOneVersion", func(t *testing.T) { checkTwoEditorsOnOneVersion(t, a) })
}

// openPeopleEditor checks the editor of people@1 shows its two types with their fields and pickers, and returns its form's values.
func openPeopleEditor(t *testing.T, a *testApp) url.Values {
	t.Helper()
	_, doc := a.Get(t, "/schemas/people/edit")
	form := doc.Find(`form[data-testid="editor"]`)
	if form.Length() != 1 || form.Find(`[data-testid="type-editor"]`).Length() != 2 {
		t.Fatal("editor with two types not found")
	}
	if got, _ := form.Find(`select[name="types[0].kind"] option[selected]`).Attr("value"); got != "entity" {
		t.Fatalf("kind selector: %q", got)
	}
	if got, _ := form.Find(`input[name="types[0].properties[1].constraint"]`).Attr("value"); got != "MultiValue" {
		t.Fatalf("constraint field: %q", got)
	}
	if form.Find(`datalist#type-choices option[value="City"]`).Length() != 1 || form.Find(`datalist#type-choices option[value="Integer"]`).Length() != 1 {
		t.Fatal("type picker lacks the schema's or the basic types")
	}
	return formValues(form)
}

// addCompanyInEditor checks the htmx editor adds a Company type, a relation to it and removes a property, and returns the edited form's values.
func addCompanyInEditor(t *testing.T, a *testApp, v url.Values) url.Values {
	t.Helper()
	// Add a type through the htmx partial, then a relation to it.
	resp, part := postEditor(t, a, v, "add-type", true)
	if resp.StatusCode != http.StatusOK || part.Find(`[data-testid="nav"]`).Length() != 0 {
		t.Fatalf("htmx answer should be the form alone: %d", resp.StatusCode)
	}
	form := part.Find(`form[data-testid="editor"]`)
	if n := form.Find(`[data-testid="type-editor"]`).Length(); n != 3 {
		t.Fatalf("after add-type: %d types", n)
	}
	v = formValues(form)
	v.Set("types[2].name", "Company")
	v.Set("types[2].alias", "公司")
	v.Set("types[2].kind", "entity")
	_, part = postEditor(t, a, v, "add-rel:0", true)
	form = part.Find(`form[data-testid="editor"]`)
	if form.Find(`select[name="types[0].relations[0].target"] option[value="Company"]`).Length() != 1 {
		t.Fatal("target picker does not offer the new type")
	}
	v = formValues(form)
	v.Set("types[0].relations[0].name", "worksFor")
	v.Set("types[0].relations[0].target", "Company")
	_, part = postEditor(t, a, v, "remove-prop:0:1", true)
	form = part.Find(`form[data-testid="editor"]`)
	if form.Find(`input[name="types[0].properties[1].name"]`).Length() != 0 {
		t.Fatal("property not removed")
	}
	return formValues(form)
}

// checkPeopleHistoryAndDiff checks the people page lists both versions, shows the new type and relation, and diffs @1 and @2.
func checkPeopleHistoryAndDiff(t *testing.T, a *testApp) {
	t.Helper()
	_, doc := a.Get(t, "/schemas/people")
	if doc.Find(`[data-testid="history-row"]`).Length() != 2 || doc.Find(`[data-testid="diff-form"]`).Length() != 1 {
		t.Fatal("history or diff form missing")
	}
	if k := doc.Find(`[data-testid="type"][data-name="Company"] [data-testid="kind"]`).Text(); k != "entity" {
		t.Fatalf("kind badge: %q", k)
	}
	if tg := doc.Find(`[data-testid="type"][data-name="Person"] [data-testid="relation"][data-name="worksFor"] [data-testid="target"]`).Text(); tg != "Company" {
		t.Fatalf("relation target: %q", tg)
	}
	_, diff := a.Get(t, "/schemas/people/diff?a=1&b=2")
	d := diff.Find(`[data-testid="diff"]`)
	for sel, want := range map[string]string{"type-added": "+1", "property-removed": "−1", "relation-added": "+1", "type-changed": "~0"} {
		if got := d.Find(`[data-testid="` + sel + `"]`).Text(); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	if d.Find(`[data-testid="change"][data-op="removed"][data-element="property"]`).Text() == "" || !hasText(d, "Person.nickname") {
		t.Errorf("removed property not listed: %q", d.Text())
	}
	_, same := a.Get(t, "/schemas/people/diff?a=2&b=2")
	if same.Find(`[data-testid="diff-empty"]`).Length() != 1 {
		t.Error("equal versions not reported equal")
	}
	_, old := a.Get(t, "/schemas/people?v=1")
	if old.Find(`[data-testid="type"]`).Length() != 2 {
		t.Error("version 1 changed after a save")
	}
}

// checkTwoEditorsOnOneVersion checks that of two editors opened on @2 the first save is stored and the second is refused with a way out.
func checkTwoEditorsOnOneVersion(t *testing.T, a *testApp) {
	t.Helper()
	ctx := context.Background()
	// Two editors open @2: the first save is stored, the second would undo it.
	_, doc := a.Get(t, "/schemas/people/edit")
	first := formValues(doc.Find(`form[data-testid="editor"]`))
	second := cloneValues(first)
	first.Set("types[0].description", "a person")
	second.Set("types[0].description", "someone")
	if resp, _ := postEditor(t, a, first, "save", false); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/schemas/people?v=3" {
		t.Fatalf("first save: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, page := postEditor(t, a, second, "save", false)
	// The refusal is at the top of the form, with the way out: the
	// latest version in the editor, and what it changed.
	conflict := page.Find(`form[data-testid="editor"] > [data-testid="editor-conflict"]`)
	if resp.StatusCode != http.StatusConflict || !hasText(conflict, "people@3 was saved after @2") {
		t.Fatalf("second save: %d %q", resp.StatusCode, page.Find(".error").Text())
	}
	if href, _ := conflict.Find(`[data-testid="conflict-reload"]`).Attr("href"); href != "/schemas/people/edit?v=3" {
		t.Errorf("the way out opens %q", href)
	}
	if href, _ := conflict.Find(`[data-testid="conflict-diff"]`).Attr("href"); href != "/schemas/people/diff?a=2&b=3" {
		t.Errorf("the changes link to %q", href)
	}
	if _, n, _ := a.App.Schemas.Get(ctx, "people", 0); n != 3 {
		t.Fatalf("latest after two saves on @2: %d", n)
	}
}

func TestSchemaEditor_ValidationNextToField(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	src, _ := schema.ParseKAGString(peopleKAG)
	if _, _, err := a.App.Schemas.Save(ctx, "people", 0, src, ""); err != nil {
		t.Fatal(err)
	}
	_, doc := a.Get(t, "/schemas/people/edit")
	v := formValues(doc.Find(`form[data-testid="editor"]`))
	_, part := postEditor(t, a, v, "add-rel:1", true)
	v = formValues(part.Find(`form[data-testid="editor"]`))
	v.Set("types[1].relations[0].name", "twinOf")
	v.Set("types[1].relations[0].target", "Nowhere")
	v.Set("types[0].properties[0].type", "Planet")
	v.Set("types[1].name", "9City")

	for _, htmx := range []bool{false, true} {
		resp, page := postEditor(t, a, v, "save", htmx)
		want := http.StatusUnprocessableEntity
		if htmx {
			want = http.StatusOK // htmx swaps only 2xx answers
		}
		if resp.StatusCode != want {
			t.Fatalf("htmx=%v: status %d, want %d", htmx, resp.StatusCode, want)
		}
		target := `types[1].relations[0].target`
		cell := page.Find(`td:has(select[name="` + target + `"])`)
		msg := cell.Find(`[data-testid="field-error"][data-field="` + target + `"]`)
		if msg.Length() != 1 || !hasText(msg, `missing type "Nowhere"`) {
			t.Fatalf("htmx=%v: no message next to the relation target: %q", htmx, page.Find(`[data-testid="field-error"]`).Text())
		}
		if sel := cell.Find(`select[name="` + target + `"] option[selected]`); !hasText(sel, "Nowhere") {
			t.Fatalf("the missing target is not kept selected: %q", sel.Text())
		}
		ptype := page.Find(`td:has(input[name="types[0].properties[0].type"]) [data-testid="field-error"]`)
		if !hasText(ptype, `unknown type "Planet"`) {
			t.Fatalf("no message next to the property type: %q", ptype.Text())
		}
		name := page.Find(`[data-testid="field-error"][data-field="types[1].name"]`)
		if !hasText(name, "not a valid identifier") {
			t.Fatalf("no message next to the type name: %q", name.Text())
		}
		if page.Find(`[data-testid="problems"]`).Length() != 1 {
			t.Fatal("no problem summary")
		}
	}
	if _, n, _ := a.App.Schemas.Get(ctx, "people", 0); n != 1 {
		t.Fatalf("an invalid save stored version %d", n)
	}

	t.Run("NewSchemaName", func(t *testing.T) {
		_, doc := a.Get(t, "/schemas/new")
		form := doc.Find(`form[data-testid="editor"]`)
		if form.Find(`[data-testid="schema-name"]`).Length() != 1 || form.Find(`[data-testid="no-types"]`).Length() != 1 {
			t.Fatal("new-schema editor lacks the name field or the empty state")
		}
		v := formValues(form)
		_, part := postEditor(t, a, v, "add-type", true)
		v = formValues(part.Find(`form[data-testid="editor"]`))
		v.Set("types[0].name", "Star")
		v.Set("schema", "people")
		_, page := postEditor(t, a, v, "save", true)
		if !hasText(page.Find(`[data-testid="field-error"][data-field="schema"]`), "exists") {
			t.Fatal("an existing name is not refused next to the name field")
		}
		v.Set("schema", "sky")
		resp, _ := postEditor(t, a, v, "save", true)
		if resp.Header.Get("HX-Redirect") != "/schemas/sky?v=1" {
			t.Fatalf("new schema save: %d %q", resp.StatusCode, resp.Header.Get("HX-Redirect"))
		}
	})
}

func TestSchemasAPI(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	post := func(path, ctype, body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(a.Server.URL+path, ctype, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	code, out := post("/api/schemas", "application/json", `{"name":"tiny","note":"api","schema":{"types":[{"name":"Person","kind":"entity"}]}}`)
	if code != http.StatusCreated || out["version"] != float64(1) || out["created"] != true || out["name"] != "tiny" {
		t.Fatalf("create: %d %v", code, out)
	}
	code, out = post("/api/schemas", "application/json", `{"name":"tiny","schema":{"types":[{"name":"Person","kind":"entity"}]}}`)
	if code != http.StatusOK || out["version"] != float64(1) || out["created"] != false {
		t.Fatalf("same content: %d %v", code, out)
	}
	code, out = post("/api/schemas?format=kag", "text/plain", peopleKAG)
	if code != http.StatusCreated || out["name"] != "People" || out["version"] != float64(1) {
		t.Fatalf("kag: %d %v", code, out)
	}
	code, out = post("/api/schemas", "application/json", `{"name":"tiny","schema":{"types":[{"name":"Person","kind":"entity","relations":[{"name":"knows","target":"Ghost"}]}]}}`)
	probs, _ := out["problems"].([]any)
	if code != http.StatusBadRequest || len(probs) != 1 {
		t.Fatalf("invalid: %d %v", code, out)
	}
	if p := probs[0].(map[string]any); p["field"] != "types[0].relations[0].target" || !strings.Contains(p["message"].(string), "Ghost") {
		t.Fatalf("problem: %v", p)
	}
	if code, out := post("/api/schemas", "application/json", `{"name":"tiny","schema":{"typez":[]}}`); code != http.StatusBadRequest || out["error"] == nil {
		t.Fatalf("unknown key: %d %v", code, out)
	}
	// base_version: the latest version the client saw; a save on an older
	// one, or a "new" schema whose name exists, is refused.
	described := `"schema":{"description":"small","types":[{"name":"Person","kind":"entity"}]}`
	for _, c := range []struct {
		name, path, ctype, body string
		code                    int
		want                    string
	}{
		{"NewNameExists", "/api/schemas", "application/json", `{"name":"tiny","base_version":0,` + described + `}`, http.StatusConflict, "exists already"},
		{"OnLatest", "/api/schemas", "application/json", `{"name":"tiny","base_version":1,` + described + `}`, http.StatusCreated, ""},
		{"OnOlder", "/api/schemas", "application/json", `{"name":"tiny","base_version":1,"schema":{"types":[{"name":"Person","kind":"entity"}]}}`, http.StatusConflict, "tiny@2 was saved after @1"},
		{"KAGNewNameExists", "/api/schemas?format=kag&base_version=0&name=People", "text/plain", strings.Replace(peopleKAG, "desc: a human", "desc: a person", 1), http.StatusConflict, "exists already"},
		{"Negative", "/api/schemas", "application/json", `{"name":"tiny","base_version":-1,` + described + `}`, http.StatusBadRequest, "base_version"},
		{"NotANumber", "/api/schemas?format=kag&base_version=x", "text/plain", peopleKAG, http.StatusBadRequest, "base_version"},
	} {
		code, out := post(c.path, c.ctype, c.body)
		if msg, _ := out["error"].(string); code != c.code || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %v", c.name, code, out)
		}
	}

	code, body := getBody(t, a, "/api/schemas")
	var list []map[string]any
	if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil || len(list) != 2 || list[0]["name"] != "People" || list[1]["types"] != float64(1) {
		t.Fatalf("list: %d %s", code, body)
	}
	code, body = getBody(t, a, "/api/schemas/People/versions/1")
	got, err := schema.ParseJSON(body)
	if code != http.StatusOK || err != nil {
		t.Fatalf("version: %d %v", code, err)
	}
	want, _ := schema.ParseKAGString(peopleKAG)
	if schema.Hash(got) != schema.Hash(want) {
		t.Fatalf("version JSON differs: %s", body)
	}
	if code, _ := getBody(t, a, "/api/schemas/People/versions/latest"); code != http.StatusOK {
		t.Fatalf("latest: %d", code)
	}
	if code, body := getBody(t, a, "/api/schemas/People/versions/7"); code != http.StatusNotFound || !strings.Contains(string(body), "not found") {
		t.Fatalf("missing version: %d %s", code, body)
	}
	if code, body := getBody(t, a, "/api/schemas/tiny/versions"); code != http.StatusOK || !strings.Contains(string(body), `"note":"api"`) {
		t.Fatalf("history: %d %s", code, body)
	}
}

func TestResolveSchema(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	if err := a.App.EnsureDefaults(ctx); err != nil {
		t.Fatal(err)
	}
	src, _ := schema.ParseKAGString(peopleKAG)
	if _, _, err := a.App.Schemas.Save(ctx, "people", 0, src, ""); err != nil {
		t.Fatal(err)
	}
	src.Types = src.Types[:1]
	src.Types[0].Properties = nil
	if _, _, err := a.App.Schemas.Save(ctx, "people", 1, src, ""); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]extract.Config{
		"people":   {SchemaName: "people", SchemaVersion: 2, EntityTypes: []string{"Person"}},
		"people@1": {SchemaName: "people", SchemaVersion: 1, EntityTypes: []string{"Person", "City"}},
		"default":  {SchemaName: "default", SchemaVersion: 1, EntityTypes: schema.Default().TypeNames()},
	} {
		var cfg extract.Config
		if err := a.App.Schemas.Resolve(ctx, &cfg, ref); err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("%s: %+v", ref, cfg)
		}
	}
	for ref, kind := range map[string]extract.ErrorKind{"people@3": extract.KindNotFound, "people@x": extract.KindInvalid, "@1": extract.KindInvalid, "nope": extract.KindNotFound} {
		var cfg extract.Config
		if err := a.App.Schemas.Resolve(ctx, &cfg, ref); extract.KindOf(err) != kind {
			t.Errorf("%s: %v", ref, err)
		}
	}
}

// TestSchemaEditor_Browser drives the editor in Chromium: the htmx actions
// replace the form in place (no page load), a missing relation target shows
// its message next to the picker, and a valid save lands on the new version.
func TestSchemaEditor_Browser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	src, _ := schema.ParseKAGString(peopleKAG)
	if _, _, err := a.App.Schemas.Save(context.Background(), "people", 0, src, ""); err != nil {
		t.Fatal(err)
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(a.Server.URL+"/schemas/people/edit"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="editor"]`)),
		chromedp.Evaluate[chromedp.Void](`window.kgMarker = 1`),
		chromedp.Click(chromedp.CSS(`[data-testid="add-type"]`)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="types[2].name"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="types[2].name"]`), "Company"),
		chromedp.Click(chromedp.CSS(`[data-testid="type-editor"][data-index="0"] [data-testid="add-rel"]`)),
		chromedp.WaitVisible(chromedp.CSS(`select[name="types[0].relations[0].target"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if marker, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.kgMarker || 0`)); marker != 1 {
		t.Fatal("the editor actions reloaded the page instead of swapping the form")
	}
	if n := count(`select[name="types[0].relations[0].target"] option[value="Company"]`); n != 1 {
		t.Fatalf("the target picker does not offer the typed-in type: %d", n)
	}
	// The new relation's name field has the focus, and leaving now would
	// lose the working copy, so the page asks first.
	if err := pollTrue(ctx, `document.activeElement && document.activeElement.name === "types[0].relations[0].name"`); err != nil {
		focused, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement ? document.activeElement.name || document.activeElement.tagName : ""`))
		t.Fatalf("after + Relation the focus is on %q: %v", focused, err)
	}
	if asks, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){ var e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; })()`)); err != nil || !asks {
		t.Fatalf("leaving with unsaved changes does not ask: %v %v", asks, err)
	}
	// Point the relation at a type that does not exist, then save.
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name="types[0].relations[0].name"]`), "worksFor"),
		chromedp.Evaluate[chromedp.Void](`(function(){ var s = document.querySelector('select[name="types[0].relations[0].target"]');
			var o = document.createElement('option'); o.value = 'Ghost'; o.textContent = 'Ghost'; s.appendChild(o); s.value = 'Ghost'; })()`),
		chromedp.Click(chromedp.CSS(`[data-testid="save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-field="types[0].relations[0].target"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){
		var s = document.querySelector('select[name="types[0].relations[0].target"]');
		var e = s.parentElement.querySelector('[data-testid="field-error"]');
		return e ? e.textContent : ""; })()`))
	if err != nil || !strings.Contains(msg, `missing type "Ghost"`) {
		t.Fatalf("message next to the target picker: %q %v", msg, err)
	}
	// Fix it and save: the browser follows HX-Redirect to the new version.
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`select[name="types[0].relations[0].target"]`), "Company"),
		chromedp.Click(chromedp.CSS(`[data-testid="save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="history"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.HasSuffix(loc, "/schemas/people?v=2") {
		t.Fatalf("after save: %s", loc)
	}
	if n := count(`[data-testid="type"]`); n != 3 {
		t.Fatalf("saved version shows %d types", n)
	}
	if dir := screenshotDir(); dir != "" {
		chromedp.Do(ctx, chromedp.Navigate(a.Server.URL+"/schemas/people/edit"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="editor"]`)))
		if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			os.WriteFile(filepath.Join(dir, "schema-editor.png"), shot, 0o644)
		}
	}
}

// Schema names may use any script and spaces; their pages, exports and
// API answer under the escaped name.
func TestSchemas_UnicodeName(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	const name = "Movies 电影"
	body := `{"name":"` + name + `","schema":{"types":[{"name":"Film","alias":"电影","kind":"entity"}]}}`
	resp, err := http.Post(a.Server.URL+"/api/schemas", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("save %q: %d", name, resp.StatusCode)
	}
	esc := url.PathEscape(name)
	_, page := a.Get(t, "/schemas/"+esc)
	if got := page.Find(`[data-testid="schema-title"]`).Text(); !strings.Contains(got, name) {
		t.Fatalf("schema page title %q", got)
	}
	href, _ := page.Find(`[data-testid="export-kag"]`).Attr("href")
	if code, kag := getBody(t, a, href); code != http.StatusOK || !strings.Contains(string(kag), "Film") {
		t.Fatalf("export via %s: %d", href, code)
	}
	_, list := a.Get(t, "/schemas")
	if list.Find(`a[href="/schemas/`+esc+`"]`).Length() != 1 {
		t.Fatal("the schema list does not link to the escaped name")
	}
	for _, bad := range []string{" lead", "trail ", "a/b", "x@1"} {
		resp, err := http.Post(a.Server.URL+"/api/schemas", "application/json", strings.NewReader(`{"name":"`+bad+`","schema":{"types":[{"name":"A","kind":"entity"}]}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("name %q accepted", bad)
		}
	}
}

// KAG's own conventions show as warnings, with field paths, on the schema
// page and in the editor; they do not stop a save.
func TestSchemas_Warnings(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	body := `{"name":"warned","schema":{"types":[{"name":"Topic","kind":"concept","properties":[{"name":"level","type":"Text"}]}]}}`
	resp, err := http.Post(a.Server.URL+"/api/schemas", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("a schema with warnings was not saved: %d", resp.StatusCode)
	}
	for _, path := range []string{"/schemas/warned", "/schemas/warned/edit"} {
		_, doc := a.Get(t, path)
		ws := doc.Find(`[data-testid="schema-warning"]`)
		if ws.Length() == 0 || !strings.Contains(ws.Text(), "types[0]") {
			t.Errorf("%s: warnings %q", path, ws.Text())
		}
	}
}

// A .rule file uploaded through the import form joins the schema its
// namespace names as a new version; the editor carries the concept rules,
// so saving it unchanged adds no version, and a broken rule section is
// shown on its field, not stored.
func TestSchemas_UploadConceptRules(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	if resp := uploadSchema(t, a, "RiskMining.schema", testkit.Read(t, "kag-schemas/RiskMining.schema"), ""); resp.Header.Get("Location") != "/schemas/RiskMining?v=1" {
		t.Fatalf("schema upload: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp := uploadSchema(t, a, "concept.rule", testkit.Read(t, "kag-rules/RiskMining.rule"), "")
	loc := "/schemas/RiskMining?v=2"
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != loc {
		t.Fatalf("rule upload: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	sc, _, err := a.App.Schemas.Get(context.Background(), "RiskMining", 2)
	if err != nil || len(sc.ConceptRules) != 3 || len(sc.Types) != 7 {
		t.Fatalf("version 2: %v, %d concept rules, %d types", err, len(sc.ConceptRules), len(sc.Types))
	}
	if _, page := a.Get(t, loc); page.Find(`[data-testid="concept-rule"]`).Length() != 3 || !hasText(page.Find(`[data-testid="concept-rule"]`), "赌博App老板") {
		t.Fatalf("schema page shows %d concept rules", page.Find(`[data-testid="concept-rule"]`).Length())
	}
	_, ed := a.Get(t, "/schemas/RiskMining/edit")
	form := formValues(ed.Find(`form[data-testid="editor"]`))
	if !strings.Contains(form.Get("concept_rules"), "`TaxOfRiskApp`/`赌博应用`:") {
		t.Fatalf("editor concept rules: %q", form.Get("concept_rules"))
	}
	if resp, _ := postEditor(t, a, form, "save", false); resp.Header.Get("Location") != loc {
		t.Fatalf("unchanged editor save: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	form.Set("concept_rules", "`A`/`b`:\n    desc: not a rule\n")
	if resp, doc := postEditor(t, a, form, "save", false); resp.StatusCode == http.StatusSeeOther ||
		doc.Find(`#err-concept_rules, [id^="err-concept"]`).Length() == 0 {
		t.Fatalf("broken concept rules: %d, %q", resp.StatusCode, doc.Text())
	}
	if _, n, _ := a.App.Schemas.Get(context.Background(), "RiskMining", 0); n != 2 {
		t.Fatalf("latest version %d", n)
	}
}
