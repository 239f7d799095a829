// Package handlers holds kgstudio's Echo routes: HTML pages rendered with
// templ and a JSON API under /api. Handlers bind input, call one store or
// extract method and render; errors are returned and mapped to HTTP in
// errors.go.
package handlers

import (
	"log/slog"

	"github.com/kgstudio/kgstudio/static"
	"github.com/kgstudio/kgstudio/store"
)

// Config holds the server settings the handlers need.
type Config struct {
	// MaxUploadBytes bounds a document upload.
	MaxUploadBytes int
	// Providers describes the model providers available to runs.
	Providers Providers
}

// Handler holds the dependencies of every route.
type Handler struct {
	store  *store.Store
	log    *slog.Logger
	assets *static.Assets
	cfg    Config
	runner *Runner
}

// New builds the handler set. The runner executes extractions in the
// background.
func New(st *store.Store, log *slog.Logger, cfg Config, runner *Runner) *Handler {
	return &Handler{store: st, log: log, assets: static.New("/static"), cfg: cfg, runner: runner}
}

// Providers returns the model-provider settings (keys included: never
// render them).
func (h *Handler) Providers() Providers { return h.cfg.Providers }

// Runner returns the background runner.
func (h *Handler) Runner() *Runner { return h.runner }
