// Package handlers holds kgstudio's Echo routes: HTML pages rendered with
// templ and a JSON API under /api. A handler binds its input, calls the
// application (package app), and renders; errors are
// returned and mapped to HTTP in errors.go.
package handlers

import (
	"log/slog"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/static"
)

// Config holds the server settings the handlers need.
type Config struct {
	// MaxUploadBytes bounds a document upload.
	MaxUploadBytes int
	// BindAddr is the listen address; its host is one the Host header may name.
	BindAddr string
	// PublicURL is the address users reach the server by (behind a proxy);
	// its host is accepted in the Host header.
	PublicURL string
	// Token, when set, is required of every request: as a bearer token on
	// the API, through the login form's cookie on pages.
	Token string
	// Version is what the MCP server reports.
	Version string
}

// Handler holds the dependencies of every route.
type Handler struct {
	app    *app.App
	log    *slog.Logger
	assets *static.Assets
	cfg    Config
	signIn *signIn
}

// New builds the handler set over the application.
func New(a *app.App, log *slog.Logger, cfg Config) *Handler {
	return &Handler{app: a, log: log, assets: static.New("/static"), cfg: cfg, signIn: newSignIn()}
}
