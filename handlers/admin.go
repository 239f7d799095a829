package handlers

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/export"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// The admin page and API: people, their tokens and the audit log
// (requiredRole keeps them to admins).

// noStore keeps a page or answer that shows a new token out of every
// cache: it is shown once.
func noStore(c echo.Context, newToken string) {
	if newToken != "" {
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	}
}

func (h *Handler) adminView(c echo.Context, newToken string) error {
	noStore(c, newToken)
	ctx := c.Request().Context()
	v := web.AdminView{NewToken: newToken, Roles: record.Roles}
	var err error
	if v.Accounts, err = h.app.Accounts.List(ctx); err != nil {
		return err
	}
	if v.Tokens, err = h.app.Accounts.Tokens(ctx); err != nil {
		return err
	}
	if v.Audit, err = h.app.Accounts.AuditLog(ctx, 50); err != nil {
		return err
	}
	if v.Workspaces, err = h.app.Accounts.Workspaces(ctx); err != nil {
		return err
	}
	return h.page(c, "", "Admin", web.AdminPage(v))
}

// showAdmin is GET /admin.
func (h *Handler) showAdmin(c echo.Context) error { return h.adminView(c, "") }

func formRole(c echo.Context) (record.Role, error) {
	r, err := record.ParseRole(c.FormValue("role"))
	if err != nil {
		return "", extract.Wrap(extract.KindInvalid, err, "role")
	}
	return r, nil
}

// addAccount is POST /admin/accounts.
func (h *Handler) addAccount(c echo.Context) error {
	role, err := formRole(c)
	if err != nil {
		return err
	}
	a, err := h.app.Accounts.Add(c.Request().Context(), c.FormValue("name"), c.FormValue("password"), role)
	if err != nil {
		return err
	}
	return redirectFlash(c, "/admin", a.Name+" added as "+string(a.Role)+".", false)
}

// setAccountRole is POST /admin/accounts/:name/role.
func (h *Handler) setAccountRole(c echo.Context) error {
	role, err := formRole(c)
	if err != nil {
		return err
	}
	if err := h.app.Accounts.SetRole(c.Request().Context(), c.Param("name"), role); err != nil {
		return err
	}
	return redirectFlash(c, "/admin", c.Param("name")+" is now "+string(role)+".", false)
}

// removeAccount is POST /admin/accounts/:name/delete.
func (h *Handler) removeAccount(c echo.Context) error {
	if err := h.app.Accounts.Remove(c.Request().Context(), c.Param("name")); err != nil {
		return err
	}
	return redirectFlash(c, "/admin", c.Param("name")+" removed, with their tokens and sessions.", false)
}

// addToken is POST /admin/tokens: the page shows the new token once.
func (h *Handler) addToken(c echo.Context) error {
	role, err := formRole(c)
	if err != nil {
		return err
	}
	secret, _, err := h.app.Accounts.NewToken(c.Request().Context(), c.FormValue("owner"), c.FormValue("name"), role, c.FormValue("workspace"))
	if err != nil {
		return err
	}
	return h.adminView(c, secret)
}

// addWorkspace is POST /admin/workspaces.
func (h *Handler) addWorkspace(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	if err := h.app.Accounts.AddWorkspace(c.Request().Context(), name); err != nil {
		return err
	}
	return redirectFlash(c, "/admin", "Workspace "+name+" added.", false)
}

// setMember is POST /admin/workspaces/:name/members: a person's role in
// a workspace, or role "none" to end their membership.
func (h *Handler) setMember(c echo.Context) error {
	var role record.Role
	if c.FormValue("role") != "none" {
		r, err := formRole(c)
		if err != nil {
			return err
		}
		role = r
	}
	ws, who := c.Param("name"), c.FormValue("account")
	if err := h.app.Accounts.SetMember(c.Request().Context(), who, ws, role); err != nil {
		return err
	}
	msg := who + " is now " + string(role) + " in " + ws + "."
	if role == "" {
		msg = who + " is no longer a member of " + ws + "."
	}
	return redirectFlash(c, "/admin", msg, false)
}

// apiWorkspaces is GET /api/admin/workspaces: every workspace with its
// members and their roles there.
func (h *Handler) apiWorkspaces(c echo.Context) error {
	ctx := c.Request().Context()
	all, err := h.app.Accounts.Workspaces(ctx)
	if err != nil {
		return err
	}
	people, err := h.app.Accounts.List(ctx)
	if err != nil {
		return err
	}
	type member struct {
		Name string      `json:"name"`
		Role record.Role `json:"role"`
	}
	type workspace struct {
		Name    string   `json:"name"`
		Members []member `json:"members"`
	}
	out := make([]workspace, len(all))
	for i, ws := range all {
		out[i] = workspace{Name: ws, Members: []member{}}
		for _, a := range people {
			if r, ok := a.RoleIn(ws); ok {
				out[i].Members = append(out[i].Members, member{a.Name, r})
			}
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"workspaces": out})
}

// apiAddWorkspace is POST /api/admin/workspaces {"name": ...}.
func (h *Handler) apiAddWorkspace(c echo.Context) error {
	var in struct {
		Name string `json:"name"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	if err := h.app.Accounts.AddWorkspace(c.Request().Context(), in.Name); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]string{"name": in.Name})
}

// apiSetMember is PUT /api/admin/workspaces/:name/members/:account
// {"role": ...} (a person's role there) and DELETE of the same (their
// membership ends).
func (h *Handler) apiSetMember(c echo.Context) error {
	var role record.Role
	if c.Request().Method != http.MethodDelete {
		var in struct {
			Role string `json:"role"`
		}
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		r, err := record.ParseRole(in.Role)
		if err != nil {
			return extract.Wrap(extract.KindInvalid, err, "role")
		}
		role = r
	}
	if err := h.app.Accounts.SetMember(c.Request().Context(), c.Param("account"), c.Param("name"), role); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// revokeToken is POST /admin/tokens/:id/revoke.
func (h *Handler) revokeToken(c echo.Context) error {
	id, err := strconv.Atoi(c.Param("id"))
	if err != nil {
		return extract.Errorf(extract.KindInvalid, "token id %q", c.Param("id"))
	}
	if err := h.app.Accounts.RevokeToken(c.Request().Context(), id); err != nil {
		return err
	}
	return redirectFlash(c, "/admin", "Token revoked.", false)
}

// maxAdminBody bounds an admin API request's JSON.
const maxAdminBody = 64 << 10

// bindJSON decodes a request's JSON body into v, refusing unknown fields.
func bindJSON(c echo.Context, v any) error {
	dec := json.NewDecoder(io.LimitReader(c.Request().Body, maxAdminBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the request")
	}
	return nil
}

// accountIn is a new account, as POST /api/admin/accounts takes it.
type accountIn struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	Role     string `json:"role"`
	// Workspaces, when given, are the only ones the person works in.
	Workspaces []string `json:"workspaces"`
}

// apiAccounts is GET /api/admin/accounts.
func (h *Handler) apiAccounts(c echo.Context) error {
	as, err := h.app.Accounts.List(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"accounts": as})
}

// apiAddAccount is POST /api/admin/accounts.
func (h *Handler) apiAddAccount(c echo.Context) error {
	var in accountIn
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	role, err := record.ParseRole(in.Role)
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "role")
	}
	a, err := h.app.Accounts.Add(c.Request().Context(), in.Name, in.Password, role, in.Workspaces...)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, a)
}

// apiRemoveAccount is DELETE /api/admin/accounts/:name.
func (h *Handler) apiRemoveAccount(c echo.Context) error {
	if err := h.app.Accounts.Remove(c.Request().Context(), c.Param("name")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// tokenIn is a new token, as POST /api/admin/tokens takes it.
type tokenIn struct {
	Owner     string `json:"owner"`
	Name      string `json:"name"`
	Role      string `json:"role"`
	Workspace string `json:"workspace"`
}

// apiTokens is GET /api/admin/tokens.
func (h *Handler) apiTokens(c echo.Context) error {
	ts, err := h.app.Accounts.Tokens(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"tokens": ts})
}

// apiAddToken is POST /api/admin/tokens: the answer holds the token,
// this once.
func (h *Handler) apiAddToken(c echo.Context) error {
	var in tokenIn
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	var role record.Role
	if in.Role != "" {
		r, err := record.ParseRole(in.Role)
		if err != nil {
			return extract.Wrap(extract.KindInvalid, err, "role")
		}
		role = r
	}
	secret, t, err := h.app.Accounts.NewToken(c.Request().Context(), in.Owner, in.Name, role, in.Workspace)
	if err != nil {
		return err
	}
	noStore(c, secret)
	return c.JSON(http.StatusCreated, struct {
		Token string `json:"token"`
		record.AccessToken
	}{secret, t})
}

// apiRevokeToken is DELETE /api/admin/tokens/:id.
func (h *Handler) apiRevokeToken(c echo.Context) error {
	id, err := strconv.Atoi(c.Param("id"))
	if err != nil {
		return extract.Errorf(extract.KindInvalid, "token id %q", c.Param("id"))
	}
	if err := h.app.Accounts.RevokeToken(c.Request().Context(), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiAudit is GET /api/admin/audit: the newest writes first (limit, 1000
// by default), as JSON or, with format=csv, a CSV file.
func (h *Handler) apiAudit(c echo.Context) error {
	limit := 1000
	if s := c.QueryParam("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return extract.Errorf(extract.KindInvalid, "limit %q is not a number", s)
		}
		limit = n
	}
	log, err := h.app.Accounts.AuditLog(c.Request().Context(), limit)
	if err != nil {
		return err
	}
	if c.QueryParam("format") != "csv" {
		return c.JSON(http.StatusOK, map[string]any{"entries": log})
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"at", "actor", "role", "workspace", "method", "path", "status", "addr"})
	for _, e := range log {
		_ = w.Write([]string{e.At.UTC().Format(time.RFC3339), export.SpreadsheetCell(e.Actor), string(e.Role), e.Workspace, e.Method, export.SpreadsheetCell(e.Path), strconv.Itoa(e.Status), e.Addr})
	}
	w.Flush()
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="kgstudio-audit.csv"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// ownAccount is the signed-in person's name: the account pages are a
// person's own (the bootstrap token and a server no one signs in to
// have none).
func ownAccount(c echo.Context) (record.Account, error) {
	who := principal(c)
	if who.Account == nil {
		return record.Account{}, extract.Errorf(extract.KindNotFound, "no account is signed in: these pages are a person's own (kgstudio user add makes one)")
	}
	return *who.Account, nil
}

func (h *Handler) accountView(c echo.Context, newToken string) error {
	noStore(c, newToken)
	a, err := ownAccount(c)
	if err != nil {
		return err
	}
	tokens, err := h.app.Accounts.OwnTokens(c.Request().Context(), a.Name)
	if err != nil {
		return err
	}
	return h.page(c, "", a.Name, web.AccountPage(web.AccountView{Name: a.Name, Role: principal(c).Role, Tokens: tokens, NewToken: newToken, Roles: record.Roles, Workspace: principal(c).Workspace}))
}

// showAccount is GET /account: a person's own tokens and password.
func (h *Handler) showAccount(c echo.Context) error { return h.accountView(c, "") }

// addOwnToken is POST /account/tokens: the page shows the new token once.
func (h *Handler) addOwnToken(c echo.Context) error {
	a, err := ownAccount(c)
	if err != nil {
		return err
	}
	role, err := formRole(c)
	if err != nil {
		return err
	}
	secret, _, err := h.app.Accounts.NewToken(c.Request().Context(), a.Name, c.FormValue("name"), role, principal(c).Workspace)
	if err != nil {
		return err
	}
	return h.accountView(c, secret)
}

// revokeOwnToken is POST /account/tokens/:id/revoke.
func (h *Handler) revokeOwnToken(c echo.Context) error {
	a, err := ownAccount(c)
	if err != nil {
		return err
	}
	id, err := strconv.Atoi(c.Param("id"))
	if err != nil {
		return extract.Errorf(extract.KindInvalid, "token id %q", c.Param("id"))
	}
	if err := h.app.Accounts.RevokeOwnToken(c.Request().Context(), a.Name, id); err != nil {
		return err
	}
	return redirectFlash(c, "/account", "Token revoked.", false)
}

// changePassword is POST /account/password: the person signs in again.
func (h *Handler) changePassword(c echo.Context) error {
	a, err := ownAccount(c)
	if err != nil {
		return err
	}
	err = h.app.Accounts.ChangePassword(c.Request().Context(), a.Name, c.FormValue("current"), c.FormValue("password"))
	if extract.KindOf(err) == extract.KindUnauthorized {
		return extract.Errorf(extract.KindInvalid, "the current password is not right")
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/login?back=/account")
}
