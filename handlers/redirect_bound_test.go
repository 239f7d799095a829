package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// An edit refused for a 100 KB node key redirects to the graph without
// echoing the key: the Location stays short and the message's cookie
// under what browsers keep.
func TestRedirect_DoesNotEchoHugeValues(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "text", "t.txt", lincoln, extract.DefaultConfig())
	key := strings.Repeat("k", 100<<10)
	form := url.Values{"op": {"rename"}, "key": {key}, "name": {"x"}}
	resp, err := noRedirect.PostForm(fmt.Sprintf("%s/versions/%d/edits", a.Server.URL, v.ID), form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || loc == "" || len(loc) > 2048 || strings.Contains(loc, "kkkk") {
		t.Fatalf("status %d, Location of %d bytes: %.80q", resp.StatusCode, len(loc), loc)
	}
	for _, c := range resp.Cookies() {
		if len(c.Value) > 2048 {
			t.Fatalf("cookie %s of %d bytes", c.Name, len(c.Value))
		}
	}
	if len(resp.Cookies()) == 0 {
		t.Fatal("no message: the edit should be refused with one")
	}
}
