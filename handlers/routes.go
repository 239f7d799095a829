package handlers

import "github.com/labstack/echo/v4"

// Routes lists every route of the application.
func (h *Handler) Routes(e *echo.Echo) {
	e.GET("/healthz", h.healthz)
	e.Match([]string{"GET", "HEAD"}, "/static/*", h.serveStatic)
	e.GET("/", h.showDashboard)

	e.GET("/documents", h.listDocuments)
	e.POST("/documents", h.saveDocuments)
	e.GET("/documents/:id", h.showDocument)
	e.GET("/api/documents", h.apiDocuments)
	e.POST("/api/documents", h.saveDocuments)

	e.GET("/extractions", h.listExtractions)
	e.GET("/extractions/new", h.newExtraction)
	e.POST("/extractions", h.startExtraction)
	e.POST("/api/extractions", h.startExtraction)
	e.GET("/versions/:id", h.showVersion)
	e.GET("/versions/:id/progress", h.versionProgress)
	e.POST("/versions/:id/cancel", h.cancelVersion)
	e.GET("/versions/:id/chunks/:doc/:index", h.showChunk)
	e.GET("/api/versions/:id", h.apiVersion)
	e.GET("/versions/:id/graph", h.showGraph)
	e.GET("/api/versions/:id/graph", h.graphAPI)
	e.GET("/api/versions/:id/nodes/:key", h.nodeAPI)
	e.GET("/versions/:id/nodes/:key", h.showNodePanel)
	e.GET("/versions/:id/edge", h.showEdgePanel)
	e.GET("/versions/:id/export", h.exportVersion)
	e.GET("/compare", h.showCompare)
	e.GET("/api/compare", h.apiCompare)
	e.POST("/versions/:id/reference", h.toggleReference)
	e.POST("/extractions/gold", h.importGold)
}
