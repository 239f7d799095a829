package handlers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/web"
)

// duplicatesShown bounds the pairs listed after the one under review.
const duplicatesShown = 50

// showDuplicates renders a version's duplicate review queue; ?skip=N
// starts after the first N pairs.
func (h *Handler) showDuplicates(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	cs, err := h.app.Curation.Duplicates(c.Request().Context(), v)
	if err != nil {
		return err
	}
	skip := min(max(intQuery(c, "skip", 0), 0), len(cs))
	p := web.DuplicatesPage{Version: versionRow(v), Active: v.Active(), Skip: skip, Total: len(cs)}
	if skip < len(cs) {
		cur := duplicatePair(cs[skip])
		p.Current = &cur
		for _, cand := range cs[skip+1 : min(len(cs), skip+1+duplicatesShown)] {
			p.Next = append(p.Next, duplicatePair(cand))
		}
	}
	return h.page(c, "extractions", "Duplicates · "+v.Label(), web.DuplicatesView(p))
}

func duplicatePair(c curate.Candidate) web.DuplicatePair {
	p := web.DuplicatePair{KeepKey: c.Keep.Key, KeepName: c.Keep.Name, KeepType: c.Keep.Type,
		DropKey: c.Drop.Key, DropName: c.Drop.Name, DropType: c.Drop.Type, Score: strconv.FormatFloat(c.Score, 'f', 2, 64)}
	for _, r := range c.Reasons {
		p.Reasons = append(p.Reasons, r.Detail)
	}
	return p
}

// mergeDuplicates folds the node "drop" into "keep" as a new version and
// shows that version's queue.
func (h *Handler) mergeDuplicates(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	keep, drop := strings.TrimSpace(c.FormValue("keep")), strings.TrimSpace(c.FormValue("drop"))
	nv, err := h.app.Curation.Merge(c.Request().Context(), v, keep, []string{drop})
	if err != nil {
		return err
	}
	return redirectFlash(c, fmt.Sprintf("/versions/%d/duplicates", nv.ID), fmt.Sprintf("%s: %s", nv.Label(), nv.Note), false)
}

// distinctDuplicates remembers that two nodes are not the same and shows
// the queue again.
func (h *Handler) distinctDuplicates(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	if err := h.app.Curation.Decide(c.Request().Context(), v, c.FormValue("a"), c.FormValue("b")); err != nil {
		return err
	}
	return redirectFlash(c, fmt.Sprintf("/versions/%d/duplicates?skip=%d", v.ID, max(intQuery(c, "skip", 0), 0)),
		"Kept apart; the extraction's next runs remember it.", false)
}
