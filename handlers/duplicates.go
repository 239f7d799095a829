package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
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
	cs, err := h.appOf(c).Curation.Duplicates(c.Request().Context(), v)
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
	nv, err := h.appOf(c).Curation.Merge(c.Request().Context(), v, keep, []string{drop})
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
	if err := h.appOf(c).Curation.Decide(c.Request().Context(), v, c.FormValue("a"), c.FormValue("b")); err != nil {
		return err
	}
	return redirectFlash(c, fmt.Sprintf("/versions/%d/duplicates?skip=%d", v.ID, max(intQuery(c, "skip", 0), 0)),
		"Kept apart; the extraction's next runs remember it.", false)
}

// applyDuplicates applies the decisions chosen in the queue's table at
// once: every merge in one new version, every "not the same" remembered.
// Row i posts a_i and b_i (the pair's keys) and choice_i: "merge" folds b
// into a, "reverse" a into b, "distinct" keeps them apart, anything else
// leaves the pair.
func (h *Handler) applyDuplicates(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the form")
	}
	var d app.Decisions
	for i := 0; i <= duplicatesShown; i++ {
		a, b := strings.TrimSpace(form.Get(fmt.Sprintf("a_%d", i))), strings.TrimSpace(form.Get(fmt.Sprintf("b_%d", i)))
		if a == "" || b == "" {
			continue
		}
		switch form.Get(fmt.Sprintf("choice_%d", i)) {
		case "merge":
			d.Merges = append(d.Merges, app.MergeRequest{Keep: a, Drop: []string{b}})
		case "reverse":
			d.Merges = append(d.Merges, app.MergeRequest{Keep: b, Drop: []string{a}})
		case "distinct":
			d.Distinct = append(d.Distinct, [2]string{a, b})
		}
	}
	if len(d.Merges) == 0 && len(d.Distinct) == 0 {
		return redirectFlash(c, fmt.Sprintf("/versions/%d/duplicates", v.ID), "Choose a decision for at least one pair.", true)
	}
	nv, made, err := h.appOf(c).Curation.Apply(c.Request().Context(), v, d)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("%s kept apart; the extraction's next runs remember them.", web.Count(len(d.Distinct), "pair", "pairs"))
	if made {
		msg = fmt.Sprintf("%s: %s", nv.Label(), nv.Note)
		if len(d.Distinct) > 0 {
			msg += fmt.Sprintf(" (and %s kept apart)", web.Count(len(d.Distinct), "pair", "pairs"))
		}
	}
	return redirectFlash(c, fmt.Sprintf("/versions/%d/duplicates", nv.ID), msg, false)
}

// maxDecisionsBody bounds the JSON body of a batch of review decisions.
const maxDecisionsBody = 1 << 20

// apiApplyDuplicates applies a JSON batch of review decisions
// ({"merges":[{"keep":K,"drop":[D...]}], "distinct":[[A,B]]}) and answers
// the new version (201) or, with no merges, the version itself (200).
func (h *Handler) apiApplyDuplicates(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	var d app.Decisions
	dec := json.NewDecoder(io.LimitReader(c.Request().Body, maxDecisionsBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the decisions")
	}
	ctx := c.Request().Context()
	nv, made, err := h.appOf(c).Curation.Apply(ctx, v, d)
	if err != nil {
		return err
	}
	j, err := h.appOf(c).Versions.JSON(ctx, nv)
	if err != nil {
		return err
	}
	if made {
		return c.JSON(http.StatusCreated, j)
	}
	return c.JSON(http.StatusOK, j)
}
