package handlers

import "github.com/labstack/echo/v4"

// Routes lists every route of the application.
func (h *Handler) Routes(e *echo.Echo) {
	e.GET("/healthz", h.healthz)
	e.Match([]string{"GET", "HEAD"}, "/static/*", h.serveStatic)
	e.GET("/", h.showDashboard)
}
