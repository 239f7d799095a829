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

// Account is a person who signs in.
type Account struct {
	ID        int       `json:"-"`
	Name      string    `json:"name"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

// AccessToken is a person's named API token as stored (its secret is
// not: only its hash).
type AccessToken struct {
	ID         int        `json:"id"`
	Owner      string     `json:"owner"`
	Name       string     `json:"name"`
	Role       Role       `json:"role"`
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
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Role   Role      `json:"role"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Status int       `json:"status"`
	Addr   string    `json:"addr"`
}
