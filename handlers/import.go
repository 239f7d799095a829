package handlers

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// importGraph stores an uploaded graph file (JSON, GraphML or a neo4j
// CSV export) as a new version: the page redirects to it, the API answers
// the version's JSON with 201. A file the page's form refuses brings the
// user back to the form with the reason.
func (h *Handler) importGraph(c echo.Context) error {
	api := strings.HasPrefix(c.Path(), "/api/")
	v, fileName, err := h.importUpload(c)
	if err != nil {
		if kind := extract.KindOf(err); !api && !wantsJSON(c) && (kind == extract.KindInvalid || kind == extract.KindConflict) {
			return redirectFlash(c, "/extractions", "Not imported: "+extract.MessageOf(err), true)
		}
		return err
	}
	if api {
		return c.JSON(http.StatusCreated, app.VersionJSONOf(v))
	}
	return redirectFlash(c, "/versions/"+itoa(v.ID),
		fmt.Sprintf("Imported %s as %s: %d nodes, %d edges.", fileName, v.Label(), v.Nodes, v.Edges), false)
}

// importUpload reads the upload of an import and stores it.
func (h *Handler) importUpload(c echo.Context) (record.Version, string, error) {
	fileName, data, err := formFile(c, "file", true)
	if err != nil {
		return record.Version{}, "", err
	}
	if limit := h.maxUpload(); len(data) > limit {
		return record.Version{}, fileName, extract.Errorf(extract.KindInvalid, "%s is %d bytes: the upload limit is %d", fileName, len(data), limit)
	}
	name := strings.TrimSpace(c.FormValue("name"))
	v, err := h.appOf(c).Curation.ImportGraph(c.Request().Context(), name, fileName, data, c.FormValue("format"))
	return v, fileName, err
}
