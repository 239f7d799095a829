package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
)

// The API deletes with DELETE and answers 409 for what is still in use.
func TestDelete_API(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "carol", "marley.txt", "Marley was dead. Scrooge signed it.", extract.DefaultConfig())
	del := func(path string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodDelete, a.Server.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	doc := v.DocumentIDs[0]
	if got := del(fmt.Sprintf("/api/documents/%d", doc)); got != http.StatusConflict {
		t.Fatalf("deleting a document in use: %d, want 409", got)
	}
	if got := del("/api/schemas/default"); got != http.StatusBadRequest && got != http.StatusUnprocessableEntity {
		t.Fatalf("deleting the default schema: %d", got)
	}
	if got := del(fmt.Sprintf("/api/versions/%d", v.ID)); got != http.StatusNoContent {
		t.Fatalf("deleting a version: %d, want 204", got)
	}
	if got := del(fmt.Sprintf("/api/versions/%d", v.ID)); got != http.StatusNotFound {
		t.Fatalf("deleting it again: %d, want 404", got)
	}
	if got := del(fmt.Sprintf("/api/documents/%d", doc)); got != http.StatusNoContent {
		t.Fatalf("deleting the free document: %d, want 204", got)
	}
	// GET never deletes.
	resp, err := http.Get(a.Server.URL + "/documents/1/delete")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Fatalf("GET on a delete route: %d", resp.StatusCode)
	}
}

// In a browser: Delete asks first; a document in use stays and the page
// names the version; deleting the version frees the document.
func TestDelete_Browser(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustExtract(t, "carol", "marley.txt", "Marley was dead. Scrooge signed it.", extract.DefaultConfig())
	doc := v.DocumentIDs[0]

	var dialogs atomic.Int32
	var accept atomic.Bool
	events := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range events {
			if err != nil {
				return
			}
			dialogs.Add(1)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept.Load()})
		}
	}()
	flash := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="flash"]`)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// Declining the confirmation keeps the version.
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d", a.Server.URL, v.ID)),
		chromedp.Click(chromedp.CSS(`[data-testid="delete-version"]`))); err != nil {
		t.Fatal(err)
	}
	if _, err := a.App.Versions.Get(context.Background(), v.ID); err != nil || dialogs.Load() != 1 {
		t.Fatalf("declined delete: %d dialogs, version %v", dialogs.Load(), err)
	}

	accept.Store(true)
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/documents/%d", a.Server.URL, doc)),
		chromedp.Click(chromedp.CSS(`[data-testid="delete-document"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`))); err != nil {
		t.Fatal(err)
	}
	if f := flash(); !strings.Contains(f, "carol@1") {
		t.Fatalf("refused document delete says %q", f)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d", a.Server.URL, v.ID)),
		chromedp.Click(chromedp.CSS(`[data-testid="delete-version"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`))); err != nil {
		t.Fatal(err)
	}
	if f := flash(); !strings.Contains(f, "Deleted carol@1") {
		t.Fatalf("version delete says %q", f)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/documents/%d", a.Server.URL, doc)),
		chromedp.Click(chromedp.CSS(`[data-testid="delete-document"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`))); err != nil {
		t.Fatal(err)
	}
	if _, err := a.App.Documents.Get(context.Background(), doc); extract.KindOf(err) != extract.KindNotFound {
		t.Fatalf("the document is still there: %v", err)
	}
	if c, err := a.App.Versions.Counts(context.Background()); err != nil || c.Versions != 0 || c.Extractions != 0 || c.Documents != 0 {
		t.Fatalf("left behind: %+v %v", c, err)
	}
	if dialogs.Load() != 4 {
		t.Fatalf("%d confirmations, want 4", dialogs.Load())
	}
}
