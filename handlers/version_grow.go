package handlers

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/web"
)

// versionDocuments shows the page that adds documents to a finished
// version or leaves some out (GET /versions/:id/documents).
func (h *Handler) versionDocuments(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	docs, err := h.appOf(c).Documents.List(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	p := web.GrowPage{ID: v.ID, Label: v.Label()}
	for _, d := range docs {
		o := web.DocOption{ID: d.ID, Name: d.Name}
		track := app.TrackOf(v.Config, extract.Document{Kind: d.Kind})
		switch {
		case slices.Contains(v.DocumentIDs, d.ID):
			p.Have = append(p.Have, o)
			if track != app.TrackText && p.NoGrow == "" {
				p.NoGrow = fmt.Sprintf("%s holds %s, read as %s: a version with tables or conversations does not grow. Make a new version with the documents you want instead (New version on %s's page).", v.Label(), d.Name, track, v.Label())
			}
		case track == app.TrackText:
			p.Add = append(p.Add, o)
		default:
			p.Others++
		}
	}
	return h.page(c, "extractions", "Documents of "+v.Label(), web.GrowView(p))
}

// growVersion makes the next version with the picked documents added,
// extracting only their chunks, and starts it (POST /versions/:id/grow).
func (h *Handler) growVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the form")
	}
	var ids []int
	for _, s := range form["document_id"] {
		id, err := strconv.Atoi(s)
		if err != nil {
			return extract.Errorf(extract.KindInvalid, "document_id %q is not a number", s)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return redirectFlash(c, fmt.Sprintf("/versions/%d/documents", v.ID), "Pick the documents to add.", true)
	}
	nv, err := h.appOf(c).Runs.Grow(c.Request().Context(), v, ids)
	if extract.KindOf(err) == extract.KindInvalid && !wantsJSON(c) {
		// Back to the form, with the reason.
		return redirectFlash(c, fmt.Sprintf("/versions/%d/documents", v.ID), extract.MessageOf(err), true)
	}
	if err != nil {
		return err
	}
	h.appOf(c).Runs.Start(nv)
	return redirectFlash(c, fmt.Sprintf("/versions/%d", nv.ID), fmt.Sprintf("%s adds %s to %s.", nv.Label(), web.Count(len(nv.DocumentIDs)-len(v.DocumentIDs), "document", "documents"), v.Label()), false)
}

// withoutVersion makes the next version without the picked documents and
// starts it (POST /versions/:id/without).
func (h *Handler) withoutVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the form")
	}
	if len(form["document"]) == 0 {
		return redirectFlash(c, fmt.Sprintf("/versions/%d/documents", v.ID), "Pick the documents to leave out.", true)
	}
	nv, err := h.appOf(c).Runs.Without(c.Request().Context(), v, form["document"])
	if err != nil {
		return err
	}
	h.appOf(c).Runs.Start(nv)
	return redirectFlash(c, fmt.Sprintf("/versions/%d", nv.ID), fmt.Sprintf("%s leaves %s of %s out.", nv.Label(), web.Count(len(v.DocumentIDs)-len(nv.DocumentIDs), "document", "documents"), v.Label()), false)
}
