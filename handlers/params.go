package handlers

import (
	"io/fs"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/static"
)

func itoa(n int) string { return strconv.Itoa(n) }

func staticFS() fs.FS { return static.FS }

// intParam reads a positive integer path parameter.
func intParam(c echo.Context, name string) (int, error) {
	n, err := strconv.Atoi(c.Param(name))
	if err != nil || n <= 0 {
		return 0, extract.Errorf(extract.KindInvalid, "%s must be a positive number", name)
	}
	return n, nil
}

// intQuery reads an integer query parameter with a default.
func intQuery(c echo.Context, name string, def int) int {
	n, err := strconv.Atoi(c.QueryParam(name))
	if err != nil {
		return def
	}
	return n
}

// versionParam loads the version named by the :id path parameter.
func (h *Handler) versionParam(c echo.Context) (record.Version, error) {
	id, err := intParam(c, "id")
	if err != nil {
		return record.Version{}, err
	}
	return h.appOf(c).Versions.Get(c.Request().Context(), id)
}

// pathParam reads a text path parameter (a node key, an extraction or
// schema name). Echo matches the raw path when the request escaped
// characters (a "/" in a key arrives as %2F), so the value is unescaped
// then. what names the parameter in errors.
func pathParam(c echo.Context, name, what string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath != "" {
		u, err := url.PathUnescape(v)
		if err != nil {
			return "", extract.Errorf(extract.KindInvalid, "malformed %s", what)
		}
		v = u
	}
	if v == "" {
		return "", extract.Errorf(extract.KindInvalid, "a %s is required", what)
	}
	return v, nil
}
