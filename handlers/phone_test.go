package handlers_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kgstudio/kgstudio/extract"
)

// On a phone's width the navigation wraps inside the screen, and the
// graph page's canvas takes the width with its panel below it.
func TestPhone_NavigationAndGraph(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustExtract(t, "people", "a.txt", "Abraham Lincoln was born in Kentucky. Lincoln later moved to Illinois with Mary Todd.", extract.DefaultConfig())
	ctx := MustChrome(t)
	type box struct {
		Width     float64 `json:"width"`
		Scroll    float64 `json:"scroll"`
		NavRight  float64 `json:"navRight"`
		CanvasW   float64 `json:"canvasW"`
		CanvasH   float64 `json:"canvasH"`
		SideTop   float64 `json:"sideTop"`
		CanvasBtm float64 `json:"canvasBottom"`
		HasSide   bool    `json:"hasSide"`
		NavLinks  int     `json:"navLinks"`
	}
	const js = `(() => {
		const c = document.querySelector('[data-testid="graph-canvas"]').getBoundingClientRect();
		const side = document.querySelector('.side');
		let right = 0;
		const links = document.querySelectorAll('[data-testid="nav"] a');
		links.forEach(a => { right = Math.max(right, a.getBoundingClientRect().right); });
		return {width: window.innerWidth, scroll: document.documentElement.scrollWidth, navRight: right,
			canvasW: c.width, canvasH: c.height, hasSide: !!side, sideTop: side ? side.getBoundingClientRect().top : 0,
			canvasBottom: c.bottom, navLinks: links.length};
	})()`
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 740),
		chromedp.Navigate(fmt.Sprintf("%s/versions/%d/graph", a.Server.URL, v.ID)),
		chromedp.WaitVisible(`[data-testid="graph-canvas"]`)); err != nil {
		t.Fatal(err)
	}
	layout, err := chromedp.Run(ctx, chromedp.Evaluate[box](js))
	if err != nil {
		t.Fatal(err)
	}
	if layout.NavLinks != 6 || layout.NavRight > layout.Width+1 || layout.Scroll > layout.Width+1 {
		t.Errorf("on a %v px screen the navigation reaches %v px and the page %v px", layout.Width, layout.NavRight, layout.Scroll)
	}
	if layout.CanvasW < 0.8*layout.Width || layout.CanvasH < 300 {
		t.Errorf("the canvas is %v x %v px on a %v px screen", layout.CanvasW, layout.CanvasH, layout.Width)
	}
	if layout.HasSide && layout.SideTop < layout.CanvasBtm-1 {
		t.Errorf("the side panel (top %v) is beside the canvas (bottom %v), not below it", layout.SideTop, layout.CanvasBtm)
	}
}
