package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
)

// communitiesAPI answers GET /api/versions/:id/communities?level=N: the
// version's communities at a level (0, the coarsest, by default) with
// their reports.
func (h *Handler) communitiesAPI(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	level := 0
	if s := c.QueryParam("level"); s != "" {
		if level, err = strconv.Atoi(s); err != nil || level < 0 {
			return extract.Errorf(extract.KindInvalid, "level must be a number from 0")
		}
	}
	out, err := h.app.Queries.Communities(c.Request().Context(), v, level)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
