package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/kgstudio/kgstudio/extract"
)

// NewServer builds the Echo instance with middleware and every route.
func (h *Handler) NewServer() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = h.ErrorHandler
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			h.log.Error("panic", slog_group(c), "error", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(RequestLogger(h.log))
	e.Use(secureHeaders, checkHost(allowedHosts(h.cfg)), sameOrigin(h.cfg.PublicURL), h.authenticate, h.authorize)
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: bodyLimit(h.cfg.MaxUploadBytes, 1), Skipper: isUpload}))
	h.Routes(e)
	return e
}

// bodyLimit is the largest request body: scale times the upload limit and
// the multipart framing around a file.
func bodyLimit(max, scale int) string {
	if max <= 0 {
		max = extract.DefaultMaxBytes
	}
	return itoa((max*scale+(64<<10))/1024) + "K"
}

// isUpload reports the routes that take documents: a CSV table among them
// may be extract.TableScale times the upload limit (see uploadLimit).
func isUpload(c echo.Context) bool {
	return c.Request().Method == http.MethodPost && (c.Path() == "/documents" || c.Path() == "/api/documents")
}

// health is the answer of /healthz.
type health struct {
	Status   string `json:"status"`   // ok or unavailable
	Database string `json:"database"` // sqlite3, postgres, or unreachable
	// Workers is how many job workers this process runs: 0 under serve
	// --no-worker, whose runs wait for a worker elsewhere.
	Workers int `json:"workers"`
}

// healthz pings the database.
func (h *Handler) healthz(c echo.Context) error {
	database, err := h.app.Health(c.Request().Context())
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, health{Status: "unavailable", Database: "unreachable", Workers: h.app.Runs.Workers()})
	}
	return c.JSON(http.StatusOK, health{Status: "ok", Database: database, Workers: h.app.Runs.Workers()})
}

// serveStatic serves embedded assets; hashed URLs are cached for a year.
func (h *Handler) serveStatic(c echo.Context) error {
	p, immutable, ok := h.assets.Resolve(c.Param("*"))
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "no such asset")
	}
	if immutable {
		c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		c.Response().Header().Set("Cache-Control", "no-cache")
	}
	http.ServeFileFS(c.Response(), c.Request(), staticFS(), p)
	return nil
}

// favicon answers browsers that ask for /favicon.ico with the SVG icon.
func (h *Handler) favicon(c echo.Context) error {
	return c.Redirect(http.StatusMovedPermanently, h.assets.URL("img/favicon.svg"))
}

// uploadLimit bounds the body of a document upload: a CSV table may be
// extract.TableScale times the limit of other files.
func (h *Handler) uploadLimit() echo.MiddlewareFunc {
	return middleware.BodyLimit(bodyLimit(h.cfg.MaxUploadBytes, extract.TableScale))
}
