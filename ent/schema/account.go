package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Account is a person who signs in: a unique name, a role (viewer,
// editor or admin; see app.Role) and an argon2id hash of the password
// (never the password).
type Account struct{ ent.Schema }

// Mixin of the Account.
func (Account) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Account.
func (Account) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Unique().NotEmpty(),
		field.String("role"),
		field.String("password_hash").Sensitive(),
		// scoped: the person was ever made a member of a workspace;
		// from then on they work in their memberships' workspaces
		// alone (with none left, in none).
		field.Bool("scoped").Default(false),
	}
}

// Edges of the Account.
func (Account) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("tokens", AccessToken.Type),
		edge.To("sessions", Session.Type),
		edge.To("memberships", Membership.Type),
	}
}

// Workspace keeps one team's documents, schemas, extractions and
// everything derived from them apart from every other's: each workspace
// has a database of its own (an SQLite file, or a PostgreSQL schema), so
// no read or write of one can reach another's rows. The default
// workspace is the main database and has no row here.
type Workspace struct{ ent.Schema }

// Mixin of the Workspace.
func (Workspace) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Workspace.
func (Workspace) Fields() []ent.Field {
	return []ent.Field{field.String("name").Unique().NotEmpty()}
}

// Membership makes a person a member of a workspace with a role there.
type Membership struct{ ent.Schema }

// Mixin of the Membership.
func (Membership) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Membership.
func (Membership) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id"),
		field.String("workspace").NotEmpty(),
		field.String("role"),
	}
}

// Edges of the Membership.
func (Membership) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("account", Account.Type).Ref("memberships").Field("account_id").Unique().Required(),
	}
}

// Indexes of the Membership.
func (Membership) Indexes() []ent.Index {
	return []ent.Index{index.Fields("account_id", "workspace").Unique()}
}

// AccessToken is a person's named API token: its SHA-256 (the token is
// shown once, when made), a role no higher than its owner's, when it was
// last used and when it was revoked, and the one workspace every request
// made with it sees.
type AccessToken struct{ ent.Schema }

// Mixin of the AccessToken.
func (AccessToken) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the AccessToken.
func (AccessToken) Fields() []ent.Field {
	return []ent.Field{
		field.Int("account_id"),
		field.String("name").NotEmpty(),
		field.String("hash").Unique().Sensitive(),
		field.String("role"),
		field.String("workspace").Default("default"),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the AccessToken.
func (AccessToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("account", Account.Type).Ref("tokens").Field("account_id").Unique().Required(),
	}
}

// Session is a signed-in browser: the SHA-256 of its cookie's random id,
// whose account (none for the bootstrap token) and role, and when it
// ends. Kept in the database, so a restart or another replica keeps it.
type Session struct{ ent.Schema }

// Mixin of the Session.
func (Session) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Session.
func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.String("hash").Unique().Sensitive(),
		field.Int("account_id").Optional().Nillable(),
		field.String("role"),
		field.Time("expires_at"),
	}
}

// Edges of the Session.
func (Session) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("account", Account.Type).Ref("sessions").Field("account_id").Unique(),
	}
}

// AuditEntry records one write: who (an account's name, a token's, or
// the bootstrap token), with which role, in which workspace, what (method,
// path and the answer's status) and from which address.
type AuditEntry struct{ ent.Schema }

// Mixin of the AuditEntry.
func (AuditEntry) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the AuditEntry.
func (AuditEntry) Fields() []ent.Field {
	return []ent.Field{
		field.String("actor"),
		field.String("role"),
		field.String("workspace").Default("default"),
		field.String("method"),
		field.String("path"),
		field.Int("status"),
		field.String("addr"),
	}
}
