package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
)

// The version JSON and the version page show what the vectorizer step
// made and used: vectors, embedding calls, tokens and cost ($0 offline).
func TestVersion_EmbeddingStats(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	v := a.MustExtract(t, "carol", "marley.txt", "Marley was dead. Scrooge signed it. Scrooge and Marley were partners.", extract.DefaultConfig())

	resp, err := http.Get(fmt.Sprintf("%s/api/versions/%d", a.Server.URL, v.ID))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j app.VersionJSON
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil {
		t.Fatal(err)
	}
	e := j.Embedding
	if e == nil || e.Embedder != "offline" || e.Vectors == 0 || e.Calls != 0 || e.Tokens != 0 || e.Cost != "$0" || e.Dimensions == 0 {
		t.Fatalf("version JSON embedding %+v", e)
	}
	if j.ID != v.ID || j.Nodes != v.Nodes {
		t.Fatalf("version JSON %+v", j)
	}

	text := func(id string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="`+id+`"]`)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/versions/%d", a.Server.URL, v.ID))); err != nil {
		t.Fatal(err)
	}
	if got := text("embed-vectors"); !strings.Contains(got, fmt.Sprint(e.Vectors)) || !strings.Contains(got, "offline") {
		t.Errorf("vectors card %q", got)
	}
	if got := text("embed-calls"); !strings.HasPrefix(strings.TrimSpace(got), "0") || !strings.Contains(got, "embedding calls") {
		t.Errorf("calls card %q", got)
	}
	if got := text("embed-tokens"); !strings.Contains(got, "embedding tokens") {
		t.Errorf("tokens card %q", got)
	}
	if got := text("embed-cost"); !strings.Contains(got, "$0") || !strings.Contains(got, "embedding cost") {
		t.Errorf("cost card %q", got)
	}
}
