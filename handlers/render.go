package handlers

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// render renders a component into a buffer, then writes status and body, so
// a rendering error never leaves a half-written page.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// page renders content inside the layout, or alone for htmx requests that
// target a part of the page.
func (h *Handler) page(c echo.Context, nav, title string, content templ.Component) error {
	if c.Request().Header.Get("HX-Request") == "true" && c.Request().Header.Get("HX-Boosted") != "true" {
		return render(c, http.StatusOK, content)
	}
	who := principal(c)
	p := web.Page{Title: title, Nav: nav, Asset: h.assets.URL, SignOut: !who.IsLocal(), Admin: !who.IsLocal() && who.Role.AtLeast(record.RoleAdmin), User: who.Name(), Own: who.Account != nil, Workspace: who.Workspace}
	if who.Workspace != "" && who.Token == nil {
		all, err := h.app.Accounts.Workspaces(c.Request().Context())
		if err != nil {
			return err
		}
		p.Workspaces = who.Workspaces(all)
	}
	if f, err := c.Cookie("flash"); err == nil && f.Value != "" {
		p.Flash = flashDecode(f.Value)
		p.FlashBad = len(f.Value) > 0 && f.Value[0] == '!'
		c.SetCookie(&http.Cookie{Name: "flash", Path: "/", MaxAge: -1})
	}
	return render(c, http.StatusOK, web.Layout(p, content))
}

// Bounds of what a redirect echoes: the target (a node key to focus can
// be as long as a request allows) and the one-time message (which may
// quote user values) in its cookie, which browsers drop past 4 KB.
const (
	maxRedirectURL = 2048
	maxFlashBytes  = 1024
)

// redirectFlash redirects with a one-time message shown on the next page.
// A target longer than maxRedirectURL goes without its query (the page
// without its focus); a message is clipped to maxFlashBytes.
func redirectFlash(c echo.Context, to, msg string, bad bool) error {
	if len(to) > maxRedirectURL {
		to, _, _ = strings.Cut(to, "?")
		if len(to) > maxRedirectURL {
			to = "/"
		}
	}
	v := flashEncode(extract.Clip(msg, maxFlashBytes))
	if bad {
		v = "!" + v
	}
	c.SetCookie(&http.Cookie{Name: "flash", Value: v, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	if c.Request().Header.Get("HX-Request") == "true" {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// renderStatus renders a full page with a status other than 200.
func (h *Handler) renderStatus(c echo.Context, status int, nav, title string, content templ.Component) error {
	p := web.Page{Title: title, Nav: nav, Asset: h.assets.URL}
	return render(c, status, web.Layout(p, content))
}

// flashEncode and flashDecode carry a flash message in a cookie.
func flashEncode(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func flashDecode(v string) string {
	if len(v) > 0 && v[0] == '!' {
		v = v[1:]
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return ""
	}
	return string(b)
}
