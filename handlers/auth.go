package handlers

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// Who a request is from, and what its role lets it do.
//
// A server with no account and no bootstrap token (KGSTUDIO_TOKEN) is one
// person's: every request is theirs (app.Local). Otherwise a request says
// who it is from with a bearer token (the bootstrap token, an admin's, or
// a person's token) or the cookie of a session a sign-in started (kept in
// the database: a restart or another replica keeps it, and signing out
// ends it everywhere). Its role then decides what it may do
// (requiredRole), and every write it makes is audited.

// principalKey is where a request's principal is kept in its echo
// context (the request's context holds it too, app.WithPrincipal).
const principalKey = "kgstudio.principal"

// principal returns who the request is from (app.Local when no one
// signs in, or before authenticate ran).
func principal(c echo.Context) app.Principal {
	if p, ok := c.Get(principalKey).(app.Principal); ok {
		return p
	}
	return app.Local
}

func setPrincipal(c echo.Context, p app.Principal) {
	c.Set(principalKey, p)
	c.SetRequest(c.Request().WithContext(app.WithPrincipal(c.Request().Context(), p)))
}

// signInRequired reports whether requests must say who they are from.
func (h *Handler) signInRequired(c echo.Context) (bool, error) {
	if h.cfg.Token != "" {
		return true, nil
	}
	return h.app.Accounts.Required(c.Request().Context())
}

// bearerPrincipal returns who an Authorization header's bearer token is:
// the bootstrap token (an admin with no account) or a person's live
// token.
func (h *Handler) bearerPrincipal(c echo.Context, auth string) (app.Principal, bool, error) {
	if h.cfg.Token != "" && h.rightBearer(auth) {
		return app.Principal{Role: record.RoleAdmin}, true, nil
	}
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return app.Principal{}, false, nil
	}
	return h.app.Accounts.TokenPrincipal(c.Request().Context(), strings.TrimSpace(tok))
}

// authenticate finds who a request is from. Static assets, the health
// check and the sign-in form need no one. The right credential is
// checked first, always: a sender of wrong ones is slowed down (a wrong
// one counts against its address and itself), never the right
// credential from the same address (behind a proxy every client shares
// one). Others get 401: JSON for the API, the sign-in form for pages.
func (h *Handler) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		required, err := h.signInRequired(c)
		if err != nil {
			return err
		}
		p := c.Request().URL.Path
		open := strings.HasPrefix(p, "/static/") || p == "/healthz" || p == "/login" || p == "/favicon.ico"
		if !required {
			if !open {
				if err := h.enter(c, app.Local); err != nil {
					return err
				}
			}
			return next(c)
		}
		if open {
			return next(c)
		}
		r := c.Request()
		if auth := r.Header.Get("Authorization"); auth != "" {
			who, ok, err := h.bearerPrincipal(c, auth)
			if err != nil {
				return err
			}
			if ok {
				h.signIn.succeeded(clientAddr(r))
				if err := h.enter(c, who); err != nil {
					return err
				}
				return next(c)
			}
			if slow, err := h.tooMany(c, bearerToken(auth)); slow {
				return err
			}
			h.signIn.failed(clientAddr(r), bearerToken(auth))
		} else if ck, err := r.Cookie(sessionCookie); err == nil {
			who, ok, err := h.app.Accounts.SessionPrincipal(r.Context(), ck.Value)
			if err != nil {
				return err
			}
			if ok {
				if err := h.enter(c, who); err != nil {
					return err
				}
				return next(c)
			}
		}
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="kgstudio"`)
		if wantsJSON(c) || r.Method != http.MethodGet {
			return echo.NewHTTPError(http.StatusUnauthorized, "sign in first: send Authorization: Bearer <token>, or sign in at /login")
		}
		back := p
		if q := r.URL.RawQuery; q != "" {
			back += "?" + q
		}
		return h.renderStatus(c, http.StatusUnauthorized, "", "Sign in", web.LoginForm(safeReturn(back, "/"), ""))
	}
}

// asks are the routes that answer a question by POST and change
// nothing (with a version's query pages, /versions/:id/query): a viewer
// may make them, and they are not writes to audit.
var asks = []string{"/v1/chat/completions", "/api/chat", "/api/show", "/api/extractions/estimate"}

func isAsk(path string) bool { return slices.Contains(asks, path) || strings.HasSuffix(path, "/query") }

// requiredRole is the least role a request needs: admin for people,
// tokens and the audit log; viewer to read, ask, sign in and out, manage
// one's own tokens and password, and use MCP (whose writing tools check
// the role themselves, mcpMayWrite); editor for every other change.
func requiredRole(method, path string) record.Role {
	switch {
	case path == "/admin" || strings.HasPrefix(path, "/admin/") || strings.HasPrefix(path, "/api/admin/"):
		return record.RoleAdmin
	case safeMethod(method), isAsk(path), path == "/login", path == "/logout", path == "/mcp", path == "/workspace", strings.HasPrefix(path, "/account/"):
		return record.RoleViewer
	}
	return record.RoleEditor
}

// authorize refuses a request its role may not make (403), and records
// every write it makes in the audit log, as made or refused (questions,
// asks, are not writes).
func (h *Handler) authorize(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		who := principal(c)
		want := requiredRole(r.Method, r.URL.Path)
		var err error
		if !who.Role.AtLeast(want) {
			err = extract.Errorf(extract.KindForbidden, "%s may not do this: it needs the %s role (has %s)", who.Name(), want, who.Role)
		} else {
			err = next(c)
		}
		if safeMethod(r.Method) || isAsk(r.URL.Path) || r.URL.Path == "/login" || who == (app.Principal{}) {
			return err
		}
		if err != nil {
			// Answered here, by the one error handler, so the entry
			// records the status the client gets.
			c.Error(err)
		}
		// Best effort: a write is not undone because its record failed.
		if aerr := h.app.Accounts.Audit(r.Context(), record.AuditEntry{Actor: who.Name(), Role: who.Role, Workspace: who.Workspace, Method: r.Method,
			Path: r.URL.Path, Status: c.Response().Status, Addr: clientAddr(r)}); aerr != nil {
			h.log.Warn("audit entry not written", "err", aerr)
		}
		return nil
	}
}

// showLogin is the sign-in form.
func (h *Handler) showLogin(c echo.Context) error {
	return h.renderStatus(c, http.StatusOK, "", "Sign in", web.LoginForm(safeReturn(c.QueryParam("back"), "/"), ""))
}

// login signs in with a name and password or a token and starts a
// session (its cookie holds a random id; the database, its hash).
func (h *Handler) login(c echo.Context) error {
	back := safeReturn(c.FormValue("back"), "/")
	required, err := h.signInRequired(c)
	if err != nil {
		return err
	}
	if !required {
		return c.Redirect(http.StatusSeeOther, back)
	}
	ctx := c.Request().Context()
	name, password, token := strings.TrimSpace(c.FormValue("name")), c.FormValue("password"), strings.TrimSpace(c.FormValue("token"))
	var who app.Principal
	ok := false
	cred := "account:" + name
	switch {
	case token != "":
		cred = token
		who, ok, err = h.bearerPrincipal(c, "Bearer "+token)
	case name != "" && password != "":
		who, err = h.app.Accounts.SignIn(ctx, name, password)
		ok = err == nil
		if extract.KindOf(err) == extract.KindUnauthorized {
			err = nil
		}
	}
	if err != nil {
		return err
	}
	if !ok {
		// The right credential signs in at once; wrong ones wait.
		if slow, err := h.tooMany(c, cred); slow {
			return err
		}
		h.signIn.failed(clientAddr(c.Request()), cred)
		return h.renderStatus(c, http.StatusUnauthorized, "", "Sign in", web.LoginForm(back, "That name and password, or that token, is not right."))
	}
	h.signIn.succeeded(clientAddr(c.Request()))
	id, err := h.app.Accounts.NewSession(ctx, who)
	if err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: id, Path: "/", MaxAge: int(app.SessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.Request().TLS != nil || strings.HasPrefix(h.cfg.PublicURL, "https:")})
	return c.Redirect(http.StatusSeeOther, back)
}

// logout ends the session everywhere and clears its cookie.
func (h *Handler) logout(c echo.Context) error {
	if ck, err := c.Request().Cookie(sessionCookie); err == nil {
		if err := h.app.Accounts.EndSession(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return c.Redirect(http.StatusSeeOther, "/")
}

// A request works in one workspace (see app/workspaces.go): a person's
// token in the one it was made for; a browser (or the bootstrap token)
// in the one its workspace cookie (or the X-Kgstudio-Workspace header)
// names, else the first the principal may enter. The workspace's App is
// then the only one the request's handlers reach (appOf), so what they
// read and write is that workspace's alone.
const (
	workspaceCookie = "kgstudio_workspace"
	workspaceHeader = "X-Kgstudio-Workspace"
)

// enter puts the request in its workspace with who's role there. A
// workspace named by the header that who may not enter is not found
// (whether it exists is not told); a stale cookie falls back to the
// first workspace who may enter.
func (h *Handler) enter(c echo.Context, who app.Principal) error {
	r := c.Request()
	ctx := r.Context()
	ws, explicit := who.Workspace, who.Token != nil
	if who.Token == nil {
		if ws = strings.TrimSpace(r.Header.Get(workspaceHeader)); ws != "" {
			explicit = true
		} else if ck, err := r.Cookie(workspaceCookie); err == nil {
			ws = ck.Value
		}
	}
	p, ok := who.In(ws)
	if !ok && !explicit {
		p, ok = who.In(record.DefaultWorkspace)
	}
	if !ok && !explicit {
		all, err := h.app.Accounts.Workspaces(ctx)
		if err != nil {
			return err
		}
		mine := who.Workspaces(all)
		if len(mine) == 0 {
			return extract.Errorf(extract.KindForbidden, "%s is a member of no workspace: an admin adds them to one", who.Name())
		}
		p, ok = who.In(mine[0])
	}
	if !ok {
		return notYours(ws)
	}
	a, err := h.app.Workspace(ctx, p.Workspace)
	if err != nil {
		return err
	}
	setPrincipal(c, p)
	c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), appCtxKey{}, a)))
	return nil
}

// notYours refuses a workspace the principal may not enter, in words
// that do not tell whether it exists.
func notYours(ws string) error {
	return extract.Errorf(extract.KindNotFound, "no workspace %q of yours", ws)
}

// switchWorkspace is POST /workspace: a browser works in another
// workspace of its principal's from its next request.
func (h *Handler) switchWorkspace(c echo.Context) error {
	ws := c.FormValue("workspace")
	who := principal(c)
	if who.Token != nil {
		return extract.Errorf(extract.KindInvalid, "a token works in its own workspace alone")
	}
	if _, ok := who.In(ws); !ok {
		return notYours(ws)
	}
	if _, err := h.app.Workspace(c.Request().Context(), ws); err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: workspaceCookie, Value: ws, Path: "/", MaxAge: int(app.SessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.Request().TLS != nil || strings.HasPrefix(h.cfg.PublicURL, "https:")})
	return redirectFlash(c, "/", "Working in "+ws+".", false)
}

// appCtxKey is where a request's context holds the App of the
// workspace it works in.
type appCtxKey struct{}

// appOf returns the App of the workspace the request works in (the main
// App before authenticate chose one: static files, the sign-in form).
func (h *Handler) appOf(c echo.Context) *app.App { return h.appIn(c.Request().Context()) }

// appIn is appOf for code that holds the request's context.
func (h *Handler) appIn(ctx context.Context) *app.App {
	if a, ok := ctx.Value(appCtxKey{}).(*app.App); ok {
		return a
	}
	return h.app
}
