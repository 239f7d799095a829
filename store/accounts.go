package store

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/accesstoken"
	"github.com/kgstudio/kgstudio/ent/account"
	"github.com/kgstudio/kgstudio/ent/auditentry"
	"github.com/kgstudio/kgstudio/ent/membership"
	"github.com/kgstudio/kgstudio/ent/session"
	"github.com/kgstudio/kgstudio/ent/workspace"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

func accountRecord(a *ent.Account) record.Account {
	out := record.Account{ID: a.ID, Name: a.Name, Role: record.Role(a.Role), CreatedAt: a.CreatedAt, Scoped: a.Scoped}
	if len(a.Edges.Memberships) > 0 {
		out.Workspaces = make(map[string]record.Role, len(a.Edges.Memberships))
		for _, m := range a.Edges.Memberships {
			out.Workspaces[m.Workspace] = record.Role(m.Role)
		}
	}
	return out
}

// AddAccount stores a person with a password hash (never the password);
// a name already taken is a conflict. Given workspaces, the person is a
// member of those alone, with the role.
func (s *Store) AddAccount(ctx context.Context, name string, role record.Role, passwordHash string, workspaces ...string) (record.Account, error) {
	var out record.Account
	err := s.write(ctx, func(c *ent.Client) error {
		a, err := c.Account.Create().SetName(name).SetRole(string(role)).SetPasswordHash(passwordHash).
			SetScoped(len(workspaces) > 0).Save(ctx)
		if err != nil {
			return translate(err, "account "+name)
		}
		for _, ws := range workspaces {
			if err := c.Membership.Create().SetAccountID(a.ID).SetWorkspace(ws).SetRole(string(role)).Exec(ctx); err != nil {
				return translate(err, "membership")
			}
		}
		a, err = c.Account.Query().Where(account.IDEQ(a.ID)).WithMemberships().Only(ctx)
		if err != nil {
			return translate(err, "account "+name)
		}
		out = accountRecord(a)
		return nil
	})
	return out, err
}

// Accounts lists the people, by name.
func (s *Store) Accounts(ctx context.Context) ([]record.Account, error) {
	rows, err := s.client.Account.Query().WithMemberships().Order(ent.Asc(account.FieldName)).All(ctx)
	if err != nil {
		return nil, translate(err, "accounts")
	}
	out := make([]record.Account, len(rows))
	for i, a := range rows {
		out[i] = accountRecord(a)
	}
	return out, nil
}

// CountAccounts is how many people there are.
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	n, err := s.client.Account.Query().Count(ctx)
	return n, translate(err, "accounts")
}

// AccountByName returns a person and their password hash; ok is false
// when no one has the name.
func (s *Store) AccountByName(ctx context.Context, name string) (record.Account, string, bool, error) {
	a, err := s.client.Account.Query().Where(account.NameEQ(name)).WithMemberships().Only(ctx)
	if ent.IsNotFound(err) {
		return record.Account{}, "", false, nil
	}
	if err != nil {
		return record.Account{}, "", false, translate(err, "account")
	}
	return accountRecord(a), a.PasswordHash, true, nil
}

// SetAccountRole changes a person's role; their sessions end (they sign
// in again with the new one).
func (s *Store) SetAccountRole(ctx context.Context, name string, role record.Role) error {
	return s.updateAccount(ctx, name, func(u *ent.AccountUpdate) *ent.AccountUpdate { return u.SetRole(string(role)) })
}

// SetAccountPassword replaces a person's password hash; their sessions
// end.
func (s *Store) SetAccountPassword(ctx context.Context, name, passwordHash string) error {
	return s.updateAccount(ctx, name, func(u *ent.AccountUpdate) *ent.AccountUpdate { return u.SetPasswordHash(passwordHash) })
}

// updateAccount changes a person as set says and ends their sessions.
func (s *Store) updateAccount(ctx context.Context, name string, set func(*ent.AccountUpdate) *ent.AccountUpdate) error {
	return s.write(ctx, func(c *ent.Client) error {
		n, err := set(c.Account.Update().Where(account.NameEQ(name))).Save(ctx)
		if err == nil && n == 0 {
			return translate(&ent.NotFoundError{}, "account "+name)
		}
		if err != nil {
			return translate(err, "account "+name)
		}
		_, err = c.Session.Delete().Where(session.HasAccountWith(account.NameEQ(name))).Exec(ctx)
		return translate(err, "sessions")
	})
}

// RemoveAccount deletes a person with their tokens and sessions.
func (s *Store) RemoveAccount(ctx context.Context, name string) error {
	return s.write(ctx, func(c *ent.Client) error {
		a, err := c.Account.Query().Where(account.NameEQ(name)).Only(ctx)
		if err != nil {
			return translate(err, "account "+name)
		}
		if _, err := c.Session.Delete().Where(session.AccountIDEQ(a.ID)).Exec(ctx); err != nil {
			return translate(err, "sessions")
		}
		if _, err := c.AccessToken.Delete().Where(accesstoken.AccountIDEQ(a.ID)).Exec(ctx); err != nil {
			return translate(err, "tokens")
		}
		if _, err := c.Membership.Delete().Where(membership.AccountIDEQ(a.ID)).Exec(ctx); err != nil {
			return translate(err, "memberships")
		}
		return translate(c.Account.DeleteOneID(a.ID).Exec(ctx), "account "+name)
	})
}

func tokenRecord(t *ent.AccessToken, owner string) record.AccessToken {
	return record.AccessToken{ID: t.ID, Owner: owner, Name: t.Name, Role: record.Role(t.Role), Workspace: t.Workspace, CreatedAt: t.CreatedAt,
		LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
}

// AddToken stores a person's token for a workspace by the hash of its
// secret.
func (s *Store) AddToken(ctx context.Context, accountID int, name, hash string, role record.Role, ws string) (record.AccessToken, error) {
	var out record.AccessToken
	err := s.write(ctx, func(c *ent.Client) error {
		a, err := c.Account.Get(ctx, accountID)
		if err != nil {
			return translate(err, "account")
		}
		t, err := c.AccessToken.Create().SetAccountID(accountID).SetName(name).SetHash(hash).SetRole(string(role)).SetWorkspace(ws).Save(ctx)
		if err != nil {
			return translate(err, "token "+name)
		}
		out = tokenRecord(t, a.Name)
		return nil
	})
	return out, err
}

// Tokens lists the tokens of the person named owner ("" for everyone's),
// newest first.
func (s *Store) Tokens(ctx context.Context, owner string) ([]record.AccessToken, error) {
	q := s.client.AccessToken.Query().WithAccount().Order(ent.Desc(accesstoken.FieldID))
	if owner != "" {
		q = q.Where(accesstoken.HasAccountWith(account.NameEQ(owner)))
	}
	rows, err := q.All(ctx)
	if err != nil {
		return nil, translate(err, "tokens")
	}
	out := make([]record.AccessToken, len(rows))
	for i, t := range rows {
		out[i] = tokenRecord(t, t.Edges.Account.Name)
	}
	return out, nil
}

// TokenByHash returns the token whose secret has this hash and its
// owner; ok is false for none.
func (s *Store) TokenByHash(ctx context.Context, hash string) (record.AccessToken, record.Account, bool, error) {
	t, err := s.client.AccessToken.Query().Where(accesstoken.HashEQ(hash)).
		WithAccount(func(q *ent.AccountQuery) { q.WithMemberships() }).Only(ctx)
	if ent.IsNotFound(err) {
		return record.AccessToken{}, record.Account{}, false, nil
	}
	if err != nil {
		return record.AccessToken{}, record.Account{}, false, translate(err, "token")
	}
	return tokenRecord(t, t.Edges.Account.Name), accountRecord(t.Edges.Account), true, nil
}

// TouchToken records that a token was used at t.
func (s *Store) TouchToken(ctx context.Context, id int, t time.Time) error {
	return s.write(ctx, func(c *ent.Client) error {
		return translate(c.AccessToken.UpdateOneID(id).SetLastUsedAt(t).Exec(ctx), "token")
	})
}

// RevokeToken ends a token at t (it stays listed, revoked).
func (s *Store) RevokeToken(ctx context.Context, id int, t time.Time) error {
	return s.write(ctx, func(c *ent.Client) error {
		return translate(c.AccessToken.UpdateOneID(id).SetRevokedAt(t).Exec(ctx), "token")
	})
}

// AddSession stores a session by the hash of its id.
func (s *Store) AddSession(ctx context.Context, hash string, accountID *int, role record.Role, expires time.Time) error {
	return s.write(ctx, func(c *ent.Client) error {
		// Ended sessions go as new ones come.
		if _, err := c.Session.Delete().Where(session.ExpiresAtLT(time.Now())).Exec(ctx); err != nil {
			return translate(err, "sessions")
		}
		return translate(c.Session.Create().SetHash(hash).SetNillableAccountID(accountID).SetRole(string(role)).SetExpiresAt(expires).Exec(ctx), "session")
	})
}

// SessionByHash returns the session whose id has this hash; ok is false
// for none.
func (s *Store) SessionByHash(ctx context.Context, hash string) (record.Session, bool, error) {
	se, err := s.client.Session.Query().Where(session.HashEQ(hash)).
		WithAccount(func(q *ent.AccountQuery) { q.WithMemberships() }).Only(ctx)
	if ent.IsNotFound(err) {
		return record.Session{}, false, nil
	}
	if err != nil {
		return record.Session{}, false, translate(err, "session")
	}
	out := record.Session{Role: record.Role(se.Role), ExpiresAt: se.ExpiresAt}
	if se.Edges.Account != nil {
		a := accountRecord(se.Edges.Account)
		out.Account = &a
	}
	return out, true, nil
}

// DeleteSession ends a session.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	return s.write(ctx, func(c *ent.Client) error {
		_, err := c.Session.Delete().Where(session.HashEQ(hash)).Exec(ctx)
		return translate(err, "session")
	})
}

// AddAudit records a write in the audit log.
func (s *Store) AddAudit(ctx context.Context, e record.AuditEntry) error {
	return s.write(ctx, func(c *ent.Client) error {
		return translate(c.AuditEntry.Create().SetCreatedAt(e.At).SetActor(e.Actor).SetRole(string(e.Role)).SetWorkspace(e.Workspace).SetMethod(e.Method).
			SetPath(e.Path).SetStatus(e.Status).SetAddr(e.Addr).Exec(ctx), "audit entry")
	})
}

// AuditLog returns the newest writes first, at most limit of them.
func (s *Store) AuditLog(ctx context.Context, limit int) ([]record.AuditEntry, error) {
	rows, err := s.client.AuditEntry.Query().Order(ent.Desc(auditentry.FieldID)).Limit(limit).All(ctx)
	if err != nil {
		return nil, translate(err, "audit log")
	}
	out := make([]record.AuditEntry, len(rows))
	for i, e := range rows {
		out[i] = record.AuditEntry{At: e.CreatedAt, Actor: e.Actor, Role: record.Role(e.Role), Workspace: e.Workspace, Method: e.Method, Path: e.Path, Status: e.Status, Addr: e.Addr}
	}
	return out, nil
}

// AddWorkspace records a workspace by name; a name already taken is a
// conflict.
func (s *Store) AddWorkspace(ctx context.Context, name string) error {
	return s.write(ctx, func(c *ent.Client) error {
		if ok, err := c.Workspace.Query().Where(workspace.NameEQ(name)).Exist(ctx); err != nil || ok {
			if ok {
				return extract.Errorf(extract.KindConflict, "workspace %s exists", name)
			}
			return translate(err, "workspace "+name)
		}
		return translate(c.Workspace.Create().SetName(name).Exec(ctx), "workspace "+name)
	})
}

// Workspaces lists the workspaces by name (without the default, which
// has no row).
func (s *Store) Workspaces(ctx context.Context) ([]string, error) {
	names, err := s.client.Workspace.Query().Order(ent.Asc(workspace.FieldName)).Select(workspace.FieldName).Strings(ctx)
	return names, translate(err, "workspaces")
}

// HasWorkspace reports whether a workspace of this name was added.
func (s *Store) HasWorkspace(ctx context.Context, name string) (bool, error) {
	ok, err := s.client.Workspace.Query().Where(workspace.NameEQ(name)).Exist(ctx)
	return ok, translate(err, "workspace")
}

// SetMembership makes a person a member of a workspace with a role
// there (replacing the role they had), or, with role "", ends their
// membership.
func (s *Store) SetMembership(ctx context.Context, name, ws string, role record.Role) error {
	return s.write(ctx, func(c *ent.Client) error {
		a, err := c.Account.Query().Where(account.NameEQ(name)).Only(ctx)
		if err != nil {
			return translate(err, "account "+name)
		}
		if _, err := c.Membership.Delete().Where(membership.AccountIDEQ(a.ID), membership.WorkspaceEQ(ws)).Exec(ctx); err != nil {
			return translate(err, "membership")
		}
		if !a.Scoped {
			// From now on their memberships alone say where they work:
			// the default workspace they worked in becomes one, unless
			// this change is about it.
			if err := c.Account.UpdateOneID(a.ID).SetScoped(true).Exec(ctx); err != nil {
				return translate(err, "account "+name)
			}
			if ws != record.DefaultWorkspace {
				if err := c.Membership.Create().SetAccountID(a.ID).SetWorkspace(record.DefaultWorkspace).SetRole(a.Role).Exec(ctx); err != nil {
					return translate(err, "membership")
				}
			}
		}
		if role == "" {
			return nil
		}
		return translate(c.Membership.Create().SetAccountID(a.ID).SetWorkspace(ws).SetRole(string(role)).Exec(ctx), "membership")
	})
}
