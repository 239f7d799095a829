package handlers

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
)

// Deleting: each page has a Delete button (a POST form with a
// confirmation) and the API a DELETE route. A page that cannot delete (a
// document or schema still in use, a running version) goes back with the
// reason; the API answers the error.

// deleted answers a successful delete: 204 for the API, a redirect with a
// message for pages.
func deleted(c echo.Context, to, msg string) error {
	if wantsJSON(c) {
		return c.NoContent(http.StatusNoContent)
	}
	return redirectFlash(c, to, msg, false)
}

// notDeleted answers a refused delete: the error for the API, the page
// the request came from with the reason otherwise.
func notDeleted(c echo.Context, back string, err error) error {
	kind := extract.KindOf(err)
	if wantsJSON(c) || (kind != extract.KindConflict && kind != extract.KindInvalid) {
		return err
	}
	return redirectFlash(c, back, extract.MessageOf(err), true)
}

// deleteVersion deletes one version (POST /versions/:id/delete, DELETE
// /api/versions/:id).
func (h *Handler) deleteVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	if err := h.appOf(c).Versions.Delete(c.Request().Context(), v.ID); err != nil {
		return notDeleted(c, fmt.Sprintf("/versions/%d", v.ID), err)
	}
	h.log.Info("deleted version", "version_id", v.ID, "extraction", v.Extraction)
	return deleted(c, "/extractions", "Deleted "+v.Label()+".")
}

// deleteExtraction deletes an extraction with its versions (POST
// /extractions/:name/delete, DELETE /api/extractions/:name).
func (h *Handler) deleteExtraction(c echo.Context) error {
	name, err := pathParam(c, "name", "extraction name")
	if err != nil {
		return err
	}
	n, err := h.appOf(c).Versions.DeleteExtraction(c.Request().Context(), name)
	if err != nil {
		return notDeleted(c, "/extractions", err)
	}
	h.log.Info("deleted extraction", "extraction", name, "versions", n)
	return deleted(c, "/extractions", fmt.Sprintf("Deleted %s and its %d versions.", name, n))
}

// deleteDocument deletes a document no version uses (POST
// /documents/:id/delete, DELETE /api/documents/:id).
func (h *Handler) deleteDocument(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	if err := h.appOf(c).Documents.Delete(c.Request().Context(), id); err != nil {
		return notDeleted(c, fmt.Sprintf("/documents/%d", id), err)
	}
	h.log.Info("deleted document", "doc_id", id)
	return deleted(c, "/documents", fmt.Sprintf("Deleted document %d.", id))
}

// deleteSchema deletes a schema no version was run with (POST
// /schemas/:name/delete, DELETE /api/schemas/:name).
func (h *Handler) deleteSchema(c echo.Context) error {
	name, err := pathParam(c, "name", "schema name")
	if err != nil {
		return err
	}
	if err := h.appOf(c).Schemas.Delete(c.Request().Context(), name); err != nil {
		return notDeleted(c, "/schemas/"+url.PathEscape(name), err)
	}
	h.log.Info("deleted schema", "schema", name)
	return deleted(c, "/schemas", "Deleted schema "+name+".")
}
