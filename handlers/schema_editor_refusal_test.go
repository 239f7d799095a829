package handlers_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract/schema"
)

// bigSchema has n entity types, each with a few properties and a relation
// to the first: an editor many screens tall.
func bigSchema(n int) *schema.Schema {
	sc := &schema.Schema{Namespace: "Big"}
	for i := range n {
		t := schema.EntityType{Name: fmt.Sprintf("Type%02d", i), Kind: schema.KindEntity}
		for j := range 4 {
			t.Properties = append(t.Properties, schema.Property{Name: fmt.Sprintf("p%d", j), Type: "Text"})
		}
		t.Relations = append(t.Relations, schema.Relation{Name: "rel", Target: "Type00"})
		sc.Types = append(sc.Types, t)
	}
	return sc
}

// inView is a script returning whether an element lies in the window.
const inView = `(function (el) { if (!el) return false; var r = el.getBoundingClientRect();
	return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; })`

// TestSchemaEditor_RefusalsWhereTheUserIs: on a 21-type schema, the types
// are listed at the top, each link bringing its type into view; a refused
// Save focuses the field in error and scrolls it into view; a save another
// editor's save came before shows why and the way out at the top, in view.
func TestSchemaEditor_RefusalsWhereTheUserIs(t *testing.T) {
	t.Parallel()
	ctx := MustChrome(t)
	a := MustApp(t)
	if _, _, err := a.App.Schemas.Save(context.Background(), "big", 0, bigSchema(21), ""); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(a.Server.URL+"/schemas/big/edit"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="editor"]`)))
	if err != nil {
		t.Fatal(err)
	}
	height, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight / window.innerHeight`))
	if err != nil || height < 4 {
		t.Fatalf("the editor is %.1f windows tall, the test needs a tall one (%v)", height, err)
	}

	t.Run("TOC", func(t *testing.T) {
		links, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=type-toc] [data-testid=toc-link]').length`))
		if err != nil || links != 21 {
			t.Fatalf("%d type links, want 21 (%v)", links, err)
		}
		for _, i := range []int{17, 3} {
			sel := fmt.Sprintf(`[data-testid=type-toc] a[href="#ed-type-%d"]`, i)
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
				t.Fatal(err)
			}
			if err := pollTrue(ctx, inView+fmt.Sprintf(`(document.querySelector('#ed-type-%d [name="types[%d].name"]'))`, i, i)); err != nil {
				t.Fatalf("after the link to type %d its name field is not in view: %v", i, err)
			}
		}
	})

	t.Run("RefusedSaveFocusesTheField", func(t *testing.T) {
		// A relation of type 19 points at a type that does not exist; the
		// user is at the Save button at the bottom, type 19 out of view.
		const field = "types[19].relations[0].target"
		err := chromedp.Do(ctx,
			chromedp.Evaluate[chromedp.Void](`(function(){ var s = document.querySelector('select[name="`+field+`"]');
				var o = document.createElement('option'); o.value = 'Ghost'; o.textContent = 'Ghost'; s.appendChild(o); s.value = 'Ghost';
				window.scrollTo(0, 0); })()`),
			chromedp.Click(chromedp.CSS(`[data-testid="save"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-field="`+field+`"]`)))
		if err != nil {
			t.Fatal(err)
		}
		if err := pollTrue(ctx, `document.activeElement && document.activeElement.name === "`+field+`" && `+inView+`(document.activeElement)`); err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.activeElement.name || document.activeElement.tagName) + " at " + document.activeElement.getBoundingClientRect().top`))
			t.Fatalf("after the refused save the focus is on %s, want %s in view: %v", got, field, err)
		}
	})

	t.Run("ConflictAtTheTop", func(t *testing.T) {
		// Fix the field; meanwhile another editor saves @2; this save is
		// refused with the way out, at the top and in view.
		if _, _, err := a.App.Schemas.Save(context.Background(), "big", 1, bigSchema(22), "the other editor"); err != nil {
			t.Fatal(err)
		}
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.CSS(`select[name="types[19].relations[0].target"]`), "Type01"),
			chromedp.Click(chromedp.CSS(`[data-testid="save"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="editor-conflict"]`)))
		if err != nil {
			t.Fatal(err)
		}
		if err := pollTrue(ctx, `document.activeElement.id === "editor-conflict" && `+inView+`(document.activeElement)`); err != nil {
			t.Fatalf("the conflict is not focused in view: %v", err)
		}
		href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=conflict-reload]').getAttribute('href')`))
		if err != nil || href != "/schemas/big/edit?v=2" {
			t.Fatalf("the way out is %q (%v)", href, err)
		}
	})
}
