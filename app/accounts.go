package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// Accounts is who may use a shared server: people with a role, their
// named API tokens and their signed-in sessions (all in the database, so
// every process and replica sees the same), and the audit log of writes.
// A server with no account and no bootstrap token is one person's: no
// one signs in (Required).
type Accounts struct {
	st  *store.Store
	now func() time.Time

	// mu guards anyCache: whether an account exists, as read at
	// anyAt, and spaces: every workspace, as read at spacesAt (each
	// read again past anyTTL, and at once after a change here); every
	// page and many requests ask.
	mu       sync.Mutex
	anyCache bool
	anyAt    time.Time
	spaces   []string
	spacesAt time.Time
}

const (
	// anyTTL is how long whether accounts exist, and which workspaces
	// do, is taken as read: an account or workspace added by another
	// process is seen within it.
	anyTTL = 2 * time.Second
	// SessionTTL is how long a sign-in lasts.
	SessionTTL = 30 * 24 * time.Hour
	// touchEvery is how stale a token's last-used time may be before a
	// use writes it again (not one write per request).
	touchEvery = time.Minute
	// MinPassword is the shortest password taken, in characters.
	MinPassword = 10
	// tokenPrefix opens every token this server makes, so a leaked one
	// is recognised by secret scanners and people alike.
	tokenPrefix = "kgs_"
)

// argon2id's cost: OWASP's recommended minimum (19 MiB, two passes, one
// lane).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// Principal is who a request is from: a person (Account, and the token
// they used if any) or the bootstrap token (no account), with the role
// the request has.
type Principal struct {
	Account *record.Account
	Token   *record.AccessToken
	Role    record.Role
	// Workspace is the workspace the request works in (a token's own;
	// a browser's pick, see In). Role is the role there.
	Workspace string
	// local marks Local.
	local bool
}

// In returns p working in workspace ws, with its role there; ok is false
// when p may not enter ws: a person who is no member of it, or a token
// made for another workspace. The bootstrap token and Local enter every
// workspace as an admin.
func (p Principal) In(ws string) (Principal, bool) {
	switch {
	case ws == "":
		return Principal{}, false
	case p.Token != nil:
		if ws != p.Token.Workspace {
			return Principal{}, false
		}
	case p.Account != nil:
		r, ok := p.Account.RoleIn(ws)
		if !ok {
			return Principal{}, false
		}
		p.Role = r
	}
	p.Workspace = ws
	return p, true
}

// Workspaces lists the workspaces p may enter, given every workspace
// there is (Accounts.Workspaces).
func (p Principal) Workspaces(all []string) []string {
	var out []string
	for _, ws := range all {
		if _, ok := p.In(ws); ok {
			out = append(out, ws)
		}
	}
	return out
}

// IsLocal reports whether p is Local: no one signed in, on a server no
// one signs in to.
func (p Principal) IsLocal() bool { return p.local }

// Name says who, for the audit log: a person's name (with the token's
// when one was used), or "bootstrap token", or "local" on a server
// nobody signs in to.
func (p Principal) Name() string {
	switch {
	case p.local:
		return "local"
	case p.Account != nil && p.Token != nil:
		return p.Account.Name + " (token " + p.Token.Name + ")"
	case p.Account != nil:
		return p.Account.Name
	case p.Token != nil:
		return "token " + p.Token.Name
	}
	return "bootstrap token"
}

// Local is the principal of a server nobody signs in to: its one user,
// who may do everything.
var Local = Principal{Role: record.RoleAdmin, Workspace: record.DefaultWorkspace, local: true}

type principalKey struct{}

// WithPrincipal returns ctx carrying who a request is from.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalOf returns who ctx's request is from (Local when none was
// set: a command-line user, a worker).
func PrincipalOf(ctx context.Context) Principal {
	if p, ok := ctx.Value(principalKey{}).(Principal); ok {
		return p
	}
	return Local
}

// Required reports whether requests must say who they are from: some
// account exists (the bootstrap token is the caller's to check).
func (s *Accounts) Required(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.anyAt.IsZero() && s.now().Sub(s.anyAt) < anyTTL {
		return s.anyCache, nil
	}
	n, err := s.st.CountAccounts(ctx)
	if err != nil {
		return false, err
	}
	s.anyCache, s.anyAt = n > 0, s.now()
	return s.anyCache, nil
}

func (s *Accounts) changed() {
	s.mu.Lock()
	s.anyAt, s.spacesAt = time.Time{}, time.Time{}
	s.mu.Unlock()
}

// checkName takes names of 1 to 64 letters, digits and . _ - @ (they
// go into paths and command lines as they are).
func checkName(what, name string) error {
	if name == "" || utf8.RuneCountInString(name) > 64 || strings.ContainsFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("._-@", r)
	}) {
		return extract.Errorf(extract.KindInvalid, "%s name %q: 1 to 64 letters, digits and . _ - @", what, name)
	}
	return nil
}

// Add makes an account: a member of the workspaces given alone, with
// its role there, or, given none, a person of the default workspace.
func (s *Accounts) Add(ctx context.Context, name, password string, role record.Role, workspaces ...string) (record.Account, error) {
	if err := checkName("account", name); err != nil {
		return record.Account{}, err
	}
	if _, err := record.ParseRole(string(role)); err != nil {
		return record.Account{}, extract.Wrap(extract.KindInvalid, err, "account %s", name)
	}
	hash, err := hashPassword(password)
	if err != nil {
		return record.Account{}, err
	}
	for _, ws := range workspaces {
		if err := s.known(ctx, ws); err != nil {
			return record.Account{}, err
		}
	}
	a, err := s.st.AddAccount(ctx, name, role, hash, workspaces...)
	s.changed()
	return a, err
}

// List lists the accounts by name.
func (s *Accounts) List(ctx context.Context) ([]record.Account, error) { return s.st.Accounts(ctx) }

// Remove deletes an account with its tokens and sessions.
func (s *Accounts) Remove(ctx context.Context, name string) error {
	err := s.st.RemoveAccount(ctx, name)
	s.changed()
	return err
}

// SetRole changes an account's role; its sessions end, and its tokens
// act with no more than the new role.
func (s *Accounts) SetRole(ctx context.Context, name string, role record.Role) error {
	if _, err := record.ParseRole(string(role)); err != nil {
		return extract.Wrap(extract.KindInvalid, err, "account %s", name)
	}
	return s.st.SetAccountRole(ctx, name, role)
}

// SetPassword replaces an account's password; its sessions end.
func (s *Accounts) SetPassword(ctx context.Context, name, password string) error {
	hash, err := hashPassword(password)
	if err != nil {
		return err
	}
	return s.st.SetAccountPassword(ctx, name, hash)
}

// ErrWrongCredentials is a sign-in with a name, password or token that
// is not right (which of them is not said).
var ErrWrongCredentials = extract.Errorf(extract.KindUnauthorized, "wrong name, password or token")

// SignIn checks a person's password. An unknown name costs what a wrong
// password does, so timing does not tell which names exist.
func (s *Accounts) SignIn(ctx context.Context, name, password string) (Principal, error) {
	a, hash, ok, err := s.st.AccountByName(ctx, name)
	if err != nil {
		return Principal{}, err
	}
	if !ok {
		hash = dummyHash()
	}
	if !checkPassword(hash, password) || !ok {
		return Principal{}, ErrWrongCredentials
	}
	return Principal{Account: &a, Role: a.Role}, nil
}

// NewToken makes a named token for an account in workspace ws ("" for
// the first the account may enter), with a role no higher than the
// account's there, and returns its secret: shown once, stored only as a
// hash. Every request made with it works in ws alone.
func (s *Accounts) NewToken(ctx context.Context, owner, name string, role record.Role, ws string) (string, record.AccessToken, error) {
	if err := checkName("token", name); err != nil {
		return "", record.AccessToken{}, err
	}
	a, _, ok, err := s.st.AccountByName(ctx, owner)
	if err != nil {
		return "", record.AccessToken{}, err
	}
	if !ok {
		return "", record.AccessToken{}, extract.Errorf(extract.KindNotFound, "account %s not found", owner)
	}
	if ws == "" {
		all, err := s.Workspaces(ctx)
		if err != nil {
			return "", record.AccessToken{}, err
		}
		if mine := a.Member(all[1:]); len(mine) > 0 {
			ws = mine[0]
		}
	}
	if err := s.known(ctx, ws); err != nil {
		return "", record.AccessToken{}, err
	}
	most, ok := a.RoleIn(ws)
	if !ok {
		return "", record.AccessToken{}, extract.Errorf(extract.KindInvalid, "%s is no member of workspace %s", owner, ws)
	}
	if role == "" {
		role = most
	}
	if _, err := record.ParseRole(string(role)); err != nil {
		return "", record.AccessToken{}, extract.Wrap(extract.KindInvalid, err, "token %s", name)
	}
	if !most.AtLeast(role) {
		return "", record.AccessToken{}, extract.Errorf(extract.KindInvalid, "a token of %s may not be %s: %s is %s in %s", owner, role, owner, most, ws)
	}
	secret := tokenPrefix + randomID()
	t, err := s.st.AddToken(ctx, a.ID, name, digest(secret), role, ws)
	return secret, t, err
}

// OwnTokens lists one person's tokens, newest first.
func (s *Accounts) OwnTokens(ctx context.Context, owner string) ([]record.AccessToken, error) {
	return s.st.Tokens(ctx, owner)
}

// RevokeOwnToken ends one of a person's own tokens; another's is not
// found (its existence is not told).
func (s *Accounts) RevokeOwnToken(ctx context.Context, owner string, id int) error {
	own, err := s.OwnTokens(ctx, owner)
	if err != nil {
		return err
	}
	for _, t := range own {
		if t.ID == id {
			return s.RevokeToken(ctx, id)
		}
	}
	return extract.Errorf(extract.KindNotFound, "token %d not found", id)
}

// ChangePassword replaces a person's password when the current one is
// right; their sessions end (the caller signs in again).
func (s *Accounts) ChangePassword(ctx context.Context, name, current, password string) error {
	if _, err := s.SignIn(ctx, name, current); err != nil {
		return err
	}
	return s.SetPassword(ctx, name, password)
}

// Tokens lists every account's tokens, newest first.
func (s *Accounts) Tokens(ctx context.Context) ([]record.AccessToken, error) {
	return s.st.Tokens(ctx, "")
}

// RevokeToken ends a token everywhere at once.
func (s *Accounts) RevokeToken(ctx context.Context, id int) error {
	return s.st.RevokeToken(ctx, id, s.now())
}

// Revoke ends a token, named by its secret or its id, everywhere at
// once; one revoked already is a conflict.
func (s *Accounts) Revoke(ctx context.Context, token string) (record.AccessToken, error) {
	all, err := s.Tokens(ctx)
	if err != nil {
		return record.AccessToken{}, err
	}
	id, idErr := strconv.Atoi(token)
	i := slices.IndexFunc(all, func(t record.AccessToken) bool { return idErr == nil && t.ID == id })
	if idErr != nil {
		t, _, ok, err := s.st.TokenByHash(ctx, digest(token))
		if err != nil {
			return record.AccessToken{}, err
		}
		if ok {
			i = slices.IndexFunc(all, func(o record.AccessToken) bool { return o.ID == t.ID })
		}
	}
	if i < 0 {
		return record.AccessToken{}, extract.Errorf(extract.KindNotFound, "token not found (kgstudio token list names them by id)")
	}
	if all[i].RevokedAt != nil {
		return all[i], extract.Errorf(extract.KindConflict, "token %d was revoked already, on %s", all[i].ID, all[i].RevokedAt.UTC().Format("2006-01-02 15:04"))
	}
	return all[i], s.RevokeToken(ctx, all[i].ID)
}

// TokenPrincipal returns who a token is: a person's live token acts
// with its role, lowered to its owner's. ok is false for a token this
// server did not make or that was revoked.
func (s *Accounts) TokenPrincipal(ctx context.Context, secret string) (Principal, bool, error) {
	if !strings.HasPrefix(secret, tokenPrefix) {
		return Principal{}, false, nil
	}
	t, a, ok, err := s.st.TokenByHash(ctx, digest(secret))
	if err != nil || !ok || t.RevokedAt != nil {
		return Principal{}, false, err
	}
	now := s.now()
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) > touchEvery {
		if err := s.st.TouchToken(ctx, t.ID, now); err != nil {
			return Principal{}, false, err
		}
	}
	most, ok := a.RoleIn(t.Workspace)
	if !ok {
		// Its owner left the workspace: the token opens nothing.
		return Principal{}, false, nil
	}
	return Principal{Account: &a, Token: &t, Role: t.Role.Lower(most), Workspace: t.Workspace}, true, nil
}

// NewSession starts a signed-in session for p and returns its id (the
// cookie's value; only its hash is stored).
func (s *Accounts) NewSession(ctx context.Context, p Principal) (string, error) {
	id := randomID()
	var accountID *int
	if p.Account != nil {
		accountID = &p.Account.ID
	}
	return id, s.st.AddSession(ctx, digest(id), accountID, p.Role, s.now().Add(SessionTTL))
}

// SessionPrincipal returns who a session is; ok is false for an unknown
// or ended one. A person's session acts with their role now.
func (s *Accounts) SessionPrincipal(ctx context.Context, id string) (Principal, bool, error) {
	if id == "" {
		return Principal{}, false, nil
	}
	se, ok, err := s.st.SessionByHash(ctx, digest(id))
	if err != nil || !ok || !s.now().Before(se.ExpiresAt) {
		return Principal{}, false, err
	}
	p := Principal{Account: se.Account, Role: se.Role}
	if se.Account != nil {
		p.Role = se.Account.Role
	}
	return p, true, nil
}

// EndSession signs a session out everywhere.
func (s *Accounts) EndSession(ctx context.Context, id string) error {
	return s.st.DeleteSession(ctx, digest(id))
}

// Audit records a write.
func (s *Accounts) Audit(ctx context.Context, e record.AuditEntry) error {
	if e.At.IsZero() {
		e.At = s.now()
	}
	return s.st.AddAudit(ctx, e)
}

// AuditLog returns the newest writes first, at most limit (1 to 10,000).
func (s *Accounts) AuditLog(ctx context.Context, limit int) ([]record.AuditEntry, error) {
	return s.st.AuditLog(ctx, min(max(limit, 1), 10000))
}

// randomID is 32 random bytes, URL-safe.
func randomID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// digest is what is stored of a secret with 256 random bits: its
// SHA-256 (a password, which has far fewer, gets argon2id).
func digest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// hashPassword hashes a password with argon2id in the PHC string form.
func hashPassword(password string) (string, error) {
	if utf8.RuneCountInString(password) < MinPassword {
		return "", extract.Errorf(extract.KindInvalid, "a password needs at least %d characters", MinPassword)
	}
	if len(password) > 1024 {
		return "", extract.Errorf(extract.KindInvalid, "a password may have at most 1024 bytes")
	}
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// checkPassword reports whether password matches a PHC argon2id hash
// (with the cost the hash names).
func checkPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || len(password) > 1024 {
		return false
	}
	var version int
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || m > 1<<21 || t == 0 || t > 16 || p == 0 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) == 0 || len(key) > 128 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}

// dummyHash is a hash no password matches, checked for unknown names.
var dummyHash = sync.OnceValue(func() string {
	h, _ := hashPassword(randomID())
	return h
})
