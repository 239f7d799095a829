package handlers

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
)

// importGraph stores an uploaded graph file (JSON, GraphML or a neo4j
// CSV export) as a new version: the page redirects to it, the API answers
// the version's JSON with 201.
func (h *Handler) importGraph(c echo.Context) error {
	fileName, data, err := formFile(c, "file", true)
	if err != nil {
		return err
	}
	if limit := h.maxUpload(); len(data) > limit {
		return extract.Errorf(extract.KindInvalid, "%s is %d bytes: the upload limit is %d", fileName, len(data), limit)
	}
	name := strings.TrimSpace(c.FormValue("name"))
	v, err := h.app.ImportGraph(c.Request().Context(), name, fileName, data, c.FormValue("format"))
	if err != nil {
		return err
	}
	if strings.HasPrefix(c.Path(), "/api/") {
		return c.JSON(http.StatusCreated, app.VersionJSONOf(v))
	}
	return redirectFlash(c, "/versions/"+itoa(v.ID),
		fmt.Sprintf("Imported %s as %s: %d nodes, %d edges.", fileName, v.Label(), v.Nodes, v.Edges), false)
}
