package handlers

import (
	"fmt"
	"io"
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
	fh, err := c.FormFile("file")
	if err != nil {
		return extract.Errorf(extract.KindInvalid, "choose a graph file to upload")
	}
	if limit := int64(h.maxUpload()); fh.Size > limit {
		return extract.Errorf(extract.KindInvalid, "%s is %d bytes: the upload limit is %d", fh.Filename, fh.Size, limit)
	}
	f, err := fh.Open()
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the upload")
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the upload")
	}
	name := strings.TrimSpace(c.FormValue("name"))
	v, err := h.app.ImportGraph(c.Request().Context(), name, fh.Filename, data, c.FormValue("format"))
	if err != nil {
		return err
	}
	if strings.HasPrefix(c.Path(), "/api/") {
		return c.JSON(http.StatusCreated, app.VersionJSONOf(v))
	}
	return redirectFlash(c, "/versions/"+itoa(v.ID),
		fmt.Sprintf("Imported %s as %s: %d nodes, %d edges.", fh.Filename, v.Label(), v.Nodes, v.Edges), false)
}
