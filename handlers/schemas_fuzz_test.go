package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzSchemaEditor posts any form to the schema editor (its field names
// and operations such as "remove-prop:2:0" come from the page, so a
// tampered form reaches them): the editor answers with the form and its
// problems, or a redirect after a save, never a server error.
func FuzzSchemaEditor(f *testing.F) {
	for _, s := range []string{
		"schema=med&op=add-type",
		"schema=med&types[0].name=Disease&types[0].kind=entity&op=add-prop:0",
		"schema=med&types[0].name=Disease&types[0].properties[0].name=symptom&types[0].properties[0].type=Text&op=remove-prop:0:0",
		"schema=med&types[1].name=A&types[0].relations[3].target=B&op=remove-rel:0:9",
		"schema=med&op=remove-type:99999999999999999999",
		"schema=med&types[0].name=Disease&types[0].kind=entity&types[0].properties[0].sub=%7Bbroken&op=validate",
		"schema=med&types[0].name=Disease&types[0].kind=entity&op=save",
	} {
		f.Add(s)
	}
	a := MustApp(f)
	srv := a.Handler.NewServer()
	f.Fuzz(func(t *testing.T, form string) {
		if _, err := url.ParseQuery(form); err != nil {
			return
		}
		req := httptest.NewRequest(http.MethodPost, "/schemas/editor", strings.NewReader(form))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("form %q: status %d\n%s", form, rec.Code, rec.Body.String())
		}
	})
}
