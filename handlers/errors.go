package handlers

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/web"
)

var kindStatus = map[extract.ErrorKind]int{
	extract.KindInvalid:      http.StatusBadRequest,
	extract.KindNotFound:     http.StatusNotFound,
	extract.KindConflict:     http.StatusConflict,
	extract.KindUnavailable:  http.StatusServiceUnavailable,
	extract.KindUnauthorized: http.StatusUnauthorized,
	extract.KindForbidden:    http.StatusForbidden,
	extract.KindInternal:     http.StatusInternalServerError,
}

// ErrorHandler is the one place errors become HTTP responses: JSON for /api
// and clients that accept JSON, an HTML page otherwise. Only internal errors
// are logged with detail; users see the safe message.
func (h *Handler) ErrorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	// A heavy request refused as busy says when to try again, whichever
	// handler it came from.
	busy(c, err)
	status, msg := http.StatusInternalServerError, "internal error"
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		status = he.Code
		msg = http.StatusText(status)
		if m, ok := he.Message.(string); ok && m != "" {
			msg = m
		}
		if status == http.StatusRequestEntityTooLarge {
			msg = "upload too large: the limit is " + web.HumanBytes(h.maxUpload())
			if isUpload(c) {
				msg += " a file, " + web.HumanBytes(h.maxUpload()*extract.TableScale) + " a CSV table"
			}
		}
	case errors.Is(err, context.Canceled):
		status, msg = 499, "request canceled"
	case app.IsDiskFull(err):
		status, msg = http.StatusInsufficientStorage, "the server's disk is full: nothing was saved; free some space (or delete versions) and try again"
		h.log.Error("disk full", slog_group(c), "error", err)
	case extract.KindOf(err) == extract.KindInternal && app.IsUnavailable(err):
		status, msg = http.StatusServiceUnavailable, "the database is unavailable; try again shortly"
		h.log.Warn("database unavailable", slog_group(c), "error", err)
	default:
		kind := extract.KindOf(err)
		status = kindStatus[kind]
		msg = extract.MessageOf(err)
		if kind == extract.KindInternal {
			h.log.Error("request failed", slog_group(c), "error", err)
		}
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if strings.HasPrefix(c.Request().URL.Path, "/v1/") {
		// OpenAI's clients read an error object.
		kind := "invalid_request_error"
		if status >= 500 {
			kind = "server_error"
		}
		_ = c.JSON(status, map[string]any{"error": map[string]any{"message": msg, "type": kind, "code": status}})
		return
	}
	if wantsJSON(c) {
		_ = c.JSON(status, map[string]any{"error": msg, "status": status})
		return
	}
	if status == http.StatusRequestEntityTooLarge && c.Request().Method == http.MethodPost {
		// A form upload that was too large: back to the form with the reason.
		_ = redirectFlash(c, backPath(c), msg, true)
		return
	}
	p := web.Page{Title: http.StatusText(status), Asset: h.assets.URL}
	_ = render(c, status, web.Layout(p, web.ErrorPage(status, msg)))
}

func wantsJSON(c echo.Context) bool {
	r := c.Request()
	return strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == "/mcp" ||
		strings.Contains(r.Header.Get("Accept"), "application/json")
}

// backPath is the local path of the referring page, or "/".
func backPath(c echo.Context) string {
	// Only the referer: the body of a refused upload is not read again.
	if p, ok := localURL(c, c.Request().Referer()); ok {
		return p
	}
	if strings.HasPrefix(c.Request().URL.Path, "/documents") {
		return "/documents"
	}
	return "/"
}
