package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// The version page's "Add or leave out documents": adding a stored
// document makes the next version over both, extracting only the new
// one's chunks; leaving it out again makes a version without it; a GET of
// the actions changes nothing.
func TestVersionDocuments_GrowAndLeaveOut(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	v := a.MustExtract(t, "letters", "a.txt", "Ada Lovelace wrote to Charles Babbage from London. Charles Babbage answered Ada Lovelace.", extract.DefaultConfig())
	d, err := extract.ReadDocument("b.txt", []byte("Isambard Brunel built a bridge in Bristol. Isambard Brunel met Charles Babbage."), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err = a.AddDocument(ctx, d); err != nil {
		t.Fatal(err)
	}
	_, page := a.Get(t, fmt.Sprintf("/versions/%d", v.ID))
	if page.Find(`[data-testid="documents-link"]`).Length() != 1 {
		t.Fatal("a finished version offers no link to add or leave out documents")
	}
	_, page = a.Get(t, fmt.Sprintf("/versions/%d/documents", v.ID))
	if got := page.Find(`[data-testid="grow-form"] input[name="document_id"]`).AttrOr("value", ""); got != fmt.Sprint(d.ID) {
		t.Fatalf("documents to add: %q, want b.txt's id %d", got, d.ID)
	}
	if resp, err := http.Get(fmt.Sprintf("%s/versions/%d/grow?document_id=%d", a.Server.URL, v.ID, d.ID)); err != nil || resp.StatusCode == http.StatusOK {
		t.Errorf("a GET of grow: %v %v", resp.Status, err)
	}
	resp, page := a.PostForm(t, fmt.Sprintf("/versions/%d/grow", v.ID), url.Values{"document_id": {fmt.Sprint(d.ID)}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page.Text(), "letters@2") {
		t.Fatalf("grow answered %s: %.300s", resp.Status, page.Text())
	}
	grown := waitVersion(t, a, v.ID+1)
	if grown.Extraction != "letters" || grown.ParentID != v.ID || !slices.Equal(grown.DocumentIDs, []int{v.DocumentIDs[0], d.ID}) || grown.Status != "done" {
		t.Fatalf("grown: %+v", grown)
	}
	resp, page = a.PostForm(t, fmt.Sprintf("/versions/%d/without", grown.ID), url.Values{"document": {fmt.Sprint(d.ID)}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(page.Text(), "letters@3") {
		t.Fatalf("without answered %s: %.300s", resp.Status, page.Text())
	}
	shrunk := waitVersion(t, a, grown.ID+1)
	if !slices.Equal(shrunk.DocumentIDs, v.DocumentIDs) || shrunk.Status != "done" || shrunk.Nodes != v.Nodes {
		t.Errorf("without b.txt: %+v; want the nodes of letters@1 (%d)", shrunk, v.Nodes)
	}
	// With nothing picked, the form comes back with the reason.
	resp, err = noRedirect.PostForm(a.Server.URL+fmt.Sprintf("/versions/%d/grow", v.ID), url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if msg, _ := flashOf(t, a, resp); resp.Header.Get("Location") != fmt.Sprintf("/versions/%d/documents", v.ID) || msg != "Pick the documents to add." {
		t.Errorf("grow with no document picked: %s to %s, flash %q", resp.Status, resp.Header.Get("Location"), msg)
	}
}

// A version holding a CSV says on its documents page that it does not
// grow, and why; a text version does not offer tables to add, counting
// them; a grow refused all the same comes back to the form with the
// reason, not an error page.
func TestVersionDocuments_TablesDoNotGrow(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	ctx := context.Background()
	text := a.MustExtract(t, "letters", "a.txt", "Ada Lovelace wrote to Charles Babbage from London.", extract.DefaultConfig())
	table := a.MustExtract(t, "people", "people.csv", "name,city\nAda Lovelace,London\nCharles Babbage,London\n", extract.DefaultConfig())
	d, err := extract.ReadDocument("b.txt", []byte("Isambard Brunel built a bridge in Bristol."), extract.DefaultMaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err = a.AddDocument(ctx, d); err != nil {
		t.Fatal(err)
	}
	_, page := a.Get(t, fmt.Sprintf("/versions/%d/documents", table.ID))
	if msg := page.Find(`[data-testid="grow-none"]`).Text(); !strings.Contains(msg, "people.csv") || !strings.Contains(msg, "does not grow") ||
		page.Find(`[data-testid="grow-form"]`).Length() != 0 {
		t.Fatalf("a CSV version's documents page: %q", msg)
	}
	_, page = a.Get(t, fmt.Sprintf("/versions/%d/documents", text.ID))
	if page.Find(`[data-testid="grow-form"] input[value="`+fmt.Sprint(table.DocumentIDs[0])+`"]`).Length() != 0 ||
		!strings.Contains(page.Find(`[data-testid="grow-others"]`).Text(), "1 stored table or conversation is") {
		t.Fatalf("a text version offers the table: %q", page.Find(`[data-testid="grow-others"]`).Text())
	}
	resp, err := noRedirect.PostForm(a.Server.URL+fmt.Sprintf("/versions/%d/grow", table.ID), url.Values{"document_id": {fmt.Sprint(d.ID)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if msg, _ := flashOf(t, a, resp); resp.Header.Get("Location") != fmt.Sprintf("/versions/%d/documents", table.ID) || !strings.Contains(msg, "people.csv") {
		t.Errorf("growing a CSV version: %s to %s, flash %q", resp.Status, resp.Header.Get("Location"), msg)
	}
}
