package record

import (
	"fmt"
	"slices"
	"time"
)

// Role is what a person (or a token) may do: a viewer reads, asks and
// exports; an editor also uploads, runs, curates and edits schemas; an
// admin also manages people, tokens and settings and reads the audit log.
type Role string

// The roles, lowest first.
const (
	RoleViewer Role = "viewer"
	RoleEditor Role = "editor"
	RoleAdmin  Role = "admin"
)

// Roles lists the roles, lowest first: pickers, help texts and
// validation read it.
var Roles = []Role{RoleViewer, RoleEditor, RoleAdmin}

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	if r := Role(s); slices.Contains(Roles, r) {
		return r, nil
	}
	return "", fmt.Errorf("unknown role %q: one of viewer, editor, admin", s)
}

// AtLeast reports whether r allows what want allows.
func (r Role) AtLeast(want Role) bool {
	return slices.Index(Roles, r) >= slices.Index(Roles, want) && slices.Contains(Roles, want)
}

// Lower returns the lower of two roles.
func (r Role) Lower(o Role) Role {
	if r.AtLeast(o) {
		return o
	}
	return r
}

// Account is a person who signs in. Role is their role on the server: an
// admin is an admin of every workspace; a viewer or editor has the role
// their memberships give them in each workspace (Workspaces), or, with
// none, Role in the default workspace alone.
type Account struct {
	ID         int             `json:"-"`
	Name       string          `json:"name"`
	Role       Role            `json:"role"`
	CreatedAt  time.Time       `json:"created_at"`
	Workspaces map[string]Role `json:"workspaces,omitempty"`
	// Scoped: the person was made a member of some workspace, so they
	// work in their memberships' workspaces alone (with none left, in
	// none); unscoped, in the default workspace with Role.
	Scoped bool `json:"scoped,omitempty"`
}

// DefaultWorkspace is the workspace of the main database: every
// server's first, the one a server nobody signs in to uses, and where
// everything stored before workspaces existed lives.
const DefaultWorkspace = "default"

// CheckWorkspaceName takes names of 1 to 40 lowercase letters a-z,
// digits, _ and -, opening with a letter or digit: a workspace's name
// names its database file's folder and its PostgreSQL schema as it is.
func CheckWorkspaceName(name string) error {
	ok := name != "" && len(name) <= 40 && name[0] != '_' && name[0] != '-'
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}
	if !ok {
		return fmt.Errorf("workspace name %q: 1 to 40 lowercase letters a-z, digits, _ and -, opening with a letter or digit", name)
	}
	return nil
}

// RoleIn is what the person may do in workspace ws: an admin is one
// everywhere; a member has their membership's role; a person with no
// membership at all has their role in the default workspace. ok is false
// when they are no member of ws.
func (a Account) RoleIn(ws string) (Role, bool) {
	if a.Role == RoleAdmin {
		return RoleAdmin, true
	}
	if !a.Scoped {
		return a.Role, ws == DefaultWorkspace
	}
	r, ok := a.Workspaces[ws]
	return r.Lower(a.Role), ok
}

// Member lists the workspaces the person may open, the default first
// and the rest by name, given every workspace there is (all, without
// the default).
func (a Account) Member(all []string) []string {
	var out []string
	for _, ws := range append([]string{DefaultWorkspace}, all...) {
		if _, ok := a.RoleIn(ws); ok {
			out = append(out, ws)
		}
	}
	return out
}

// AccessToken is a person's named API token as stored (its secret is
// not: only its hash).
type AccessToken struct {
	ID         int        `json:"id"`
	Owner      string     `json:"owner"`
	Name       string     `json:"name"`
	Role       Role       `json:"role"`
	Workspace  string     `json:"workspace"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

// Session is a signed-in browser: whose (no account for the bootstrap
// token) and with which role, until when.
type Session struct {
	Account   *Account
	Role      Role
	ExpiresAt time.Time
}

// AuditEntry is one write, as the audit log keeps it.
type AuditEntry struct {
	At        time.Time `json:"at"`
	Actor     string    `json:"actor"`
	Role      Role      `json:"role"`
	Workspace string    `json:"workspace"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Status    int       `json:"status"`
	Addr      string    `json:"addr"`
}
