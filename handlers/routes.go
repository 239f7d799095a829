package handlers

import "github.com/labstack/echo/v4"

// Routes lists every route of the application, by area. Pages render HTML;
// /api routes answer JSON. Nothing changes state on a GET.
func (h *Handler) Routes(e *echo.Echo) {
	// Health and assets.
	e.GET("/healthz", h.healthz)
	e.Match([]string{"GET", "HEAD"}, "/static/*", h.serveStatic)
	e.GET("/favicon.ico", h.favicon)
	e.GET("/", h.showDashboard)

	// Sign-in when a token is required.
	e.GET("/login", h.showLogin)
	e.POST("/login", h.login)
	e.POST("/logout", h.logout)
	e.POST("/workspace", h.switchWorkspace)

	h.accountRoutes(e)
	h.documentRoutes(e)
	h.runRoutes(e)
	h.graphRoutes(e)
	h.schemaRoutes(e)

	// Comparison of two versions.
	e.GET("/compare", h.showCompare)
	e.GET("/api/compare", h.apiCompare)
	e.GET("/compare/scores", h.compareScores)
	e.GET("/api/compare/scores", h.compareScores)

	// Agents (mcp.go): the MCP server over Streamable HTTP.
	e.Match([]string{"GET", "POST", "DELETE"}, "/mcp", h.mcpHandler())

	// Chat clients (chat.go): OpenAI's and Ollama's chat APIs.
	e.POST("/v1/chat/completions", h.openAIChat)
	e.GET("/v1/models", h.openAIModels)
	e.GET("/v1/models/:id", h.openAIModel)
	e.POST("/api/chat", h.ollamaChat)
	e.POST("/api/show", h.ollamaShow)
	e.GET("/api/tags", h.ollamaTags)
	e.GET("/api/ps", h.ollamaPS)
	e.GET("/api/version", h.ollamaVersion)
}

// accountRoutes are the admin's pages and API over people, tokens,
// workspaces and the audit log, and a person's own.
func (h *Handler) accountRoutes(e *echo.Echo) {
	// People, tokens and the audit log (admin.go; admins only).
	e.GET("/admin", h.showAdmin)
	e.POST("/admin/accounts", h.addAccount)
	e.POST("/admin/accounts/:name/role", h.setAccountRole)
	e.POST("/admin/accounts/:name/delete", h.removeAccount)
	e.POST("/admin/tokens", h.addToken)
	e.POST("/admin/tokens/:id/revoke", h.revokeToken)
	e.GET("/api/admin/accounts", h.apiAccounts)
	e.POST("/api/admin/accounts", h.apiAddAccount)
	e.DELETE("/api/admin/accounts/:name", h.apiRemoveAccount)
	e.GET("/api/admin/tokens", h.apiTokens)
	e.POST("/api/admin/tokens", h.apiAddToken)
	e.DELETE("/api/admin/tokens/:id", h.apiRevokeToken)
	e.GET("/api/admin/audit", h.apiAudit)
	e.GET("/api/admin/workspaces", h.apiWorkspaces)
	e.POST("/api/admin/workspaces", h.apiAddWorkspace)
	e.PUT("/api/admin/workspaces/:name/members/:account", h.apiSetMember)
	e.DELETE("/api/admin/workspaces/:name/members/:account", h.apiSetMember)
	e.POST("/admin/workspaces", h.addWorkspace)
	e.POST("/admin/workspaces/:name/members", h.setMember)
	// A person's own tokens and password (any role).
	e.GET("/account", h.showAccount)
	e.POST("/account/tokens", h.addOwnToken)
	e.POST("/account/tokens/:id/revoke", h.revokeOwnToken)
	e.POST("/account/password", h.changePassword)
}

// documentRoutes upload, list, read and delete documents.
func (h *Handler) documentRoutes(e *echo.Echo) {
	// Documents: upload, list, read, delete.
	e.GET("/documents", h.listDocuments)
	e.POST("/documents", h.saveDocuments, h.uploadLimit())
	e.GET("/documents/:id", h.showDocument)
	e.POST("/documents/:id/delete", h.deleteDocument)
	e.DELETE("/api/documents/:id", h.deleteDocument)
	e.GET("/api/documents", h.apiDocuments)
	e.POST("/api/documents", h.saveDocuments, h.uploadLimit())
}

// runRoutes are extractions, their runs and versions, curation and
// scores.
func (h *Handler) runRoutes(e *echo.Echo) {
	// Extractions and runs: the run form, start, progress, cancel, delete.
	e.GET("/extractions", h.listExtractions)
	e.GET("/extractions/new", h.newExtraction)
	e.POST("/extractions", h.startExtraction)
	e.GET("/api/extractions", h.apiExtractions)
	e.POST("/api/extractions", h.startExtraction)
	e.POST("/api/extractions/estimate", h.apiEstimate)
	e.POST("/extractions/gold", h.importGold)
	e.POST("/extractions/import", h.importGraph)
	e.POST("/api/extractions/import", h.importGraph)
	e.GET("/versions/:id", h.showVersion)
	e.GET("/versions/:id/progress", h.versionProgress)
	e.POST("/versions/:id/cancel", h.cancelVersion)
	e.POST("/api/versions/:id/cancel", h.apiCancelVersion)
	e.POST("/versions/:id/retry", h.retryVersion)
	e.POST("/versions/:id/resume", h.resumeVersion)
	e.GET("/versions/:id/documents", h.versionDocuments)
	e.POST("/versions/:id/grow", h.growVersion)
	e.POST("/versions/:id/without", h.withoutVersion)
	e.GET("/versions/:id/duplicates", h.showDuplicates)
	e.POST("/versions/:id/duplicates/merge", h.mergeDuplicates)
	e.POST("/versions/:id/duplicates/distinct", h.distinctDuplicates)
	e.POST("/versions/:id/duplicates/apply", h.applyDuplicates)
	e.POST("/api/versions/:id/duplicates/apply", h.apiApplyDuplicates)
	e.POST("/versions/:id/delete", h.deleteVersion)
	e.DELETE("/api/versions/:id", h.deleteVersion)
	e.POST("/extractions/:name/delete", h.deleteExtraction)
	e.GET("/extractions/:name/scores", h.showScores)
	e.POST("/extractions/:name/scores", h.rescore)
	e.POST("/api/extractions/:name/scores", h.rescore)
	e.GET("/api/extractions/:name/scores", h.apiScores)
	e.POST("/extractions/:name/questions", h.attachQuestions)
	e.POST("/extractions/:name/experiment", h.startExperiment)
	e.POST("/api/extractions/:name/questions", h.attachQuestions)
	e.DELETE("/api/extractions/:name", h.deleteExtraction)
	e.POST("/versions/:id/reference", h.toggleReference)
	e.GET("/versions/:id/chunks/:doc/:index", h.showChunk)
	e.GET("/versions/:id/export", h.exportVersion)
	e.GET("/api/versions/:id", h.apiVersion)
}

// graphRoutes are a version's graph, edits, timeline and questions.
func (h *Handler) graphRoutes(e *echo.Echo) {
	// The graph of a version: the view, its data, node and edge panels.
	e.GET("/versions/:id/graph", h.showGraph)
	e.GET("/api/versions/:id/graph", h.graphAPI)
	e.GET("/api/versions/:id/layout", h.layoutAPI)
	e.GET("/api/versions/:id/nodes/:key", h.nodeAPI)
	e.GET("/versions/:id/nodes/:key", h.showNodePanel)
	e.GET("/versions/:id/edge", h.showEdgePanel)

	// Edits: each saves a new version with its edit log.
	e.POST("/versions/:id/edits", h.saveEdit)
	e.POST("/api/versions/:id/edits", h.apiEdits)

	// Dialogue memory: the turn-by-turn timeline.
	e.GET("/versions/:id/timeline", h.showTimeline)
	e.GET("/api/versions/:id/timeline", h.timelineAPI)
	e.GET("/api/versions/:id/timeline/:turn", h.timelineTurnAPI)

	// Retrieval: questions over a version's graph.
	e.GET("/ask", h.showAsk)
	e.GET("/versions/:id/query", h.showQuery)
	e.POST("/versions/:id/query", h.showQuery)
	e.GET("/api/versions/:id/query", h.queryAPI)
	e.GET("/api/versions/:id/communities", h.communitiesAPI)
	e.GET("/versions/:id/communities", h.showCommunities)
	e.GET("/api/versions/:id/communities/members", h.communityMembersAPI)
	e.POST("/api/versions/:id/query", h.queryAPI)
}

// schemaRoutes list, import, edit, diff, export and delete schemas.
func (h *Handler) schemaRoutes(e *echo.Echo) {
	// Schemas: list, import, edit, diff, export, delete.
	e.GET("/schemas", h.listSchemas)
	e.POST("/schemas", h.importSchema)
	e.GET("/schemas/new", h.newSchema)
	e.POST("/schemas/editor", h.postEditor)
	e.GET("/schemas/:name", h.showSchema)
	e.GET("/schemas/:name/edit", h.editSchema)
	e.GET("/schemas/:name/diff", h.diffSchema)
	e.GET("/schemas/:name/versions/:n/export", h.exportSchema)
	e.POST("/schemas/:name/delete", h.deleteSchema)
	e.DELETE("/api/schemas/:name", h.deleteSchema)
	e.GET("/api/schemas", h.apiListSchemas)
	e.POST("/api/schemas", h.apiSaveSchema)
	e.GET("/api/schemas/:name/versions", h.apiSchemaVersions)
	e.GET("/api/schemas/:name/versions/:n", h.apiSchemaVersion)
}
