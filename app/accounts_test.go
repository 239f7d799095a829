package app

import (
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Passwords are kept as argon2id hashes and checked against them; a
// token's role is no higher than its owner's; sessions end when their
// time is up; nothing stored holds a password or a token.
func TestAccounts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, st, _ := testApp(t, "x.txt", "Ada.")
	acc := a.Accounts
	if req, err := acc.Required(ctx); err != nil || req {
		t.Fatalf("required with no account: %t %v", req, err)
	}
	if _, err := acc.Add(ctx, "ann", "too short", record.RoleAdmin); extract.KindOf(err) != extract.KindInvalid {
		t.Fatalf("a short password: %v", err)
	}
	if _, err := acc.Add(ctx, "ann/../x", "long enough password", record.RoleAdmin); extract.KindOf(err) != extract.KindInvalid {
		t.Fatalf("a name with a slash: %v", err)
	}
	if _, err := acc.Add(ctx, "ed", "long enough password", record.RoleEditor); err != nil {
		t.Fatal(err)
	}
	if req, _ := acc.Required(ctx); !req {
		t.Fatal("not required once an account exists")
	}
	_, hash, _, _ := st.AccountByName(ctx, "ed")
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(hash, "long enough password") {
		t.Fatalf("stored hash %q", hash)
	}
	if p, err := acc.SignIn(ctx, "ed", "long enough password"); err != nil || p.Account == nil || p.Role != record.RoleEditor {
		t.Fatalf("sign in: %+v %v", p, err)
	}
	for _, c := range [][2]string{{"ed", "long enough passwore"}, {"nobody", "long enough password"}, {"ed", ""}} {
		if _, err := acc.SignIn(ctx, c[0], c[1]); extract.KindOf(err) != extract.KindUnauthorized {
			t.Fatalf("sign in as %q with %q: %v", c[0], c[1], err)
		}
	}
	if _, _, err := acc.NewToken(ctx, "ed", "up", record.RoleAdmin, ""); extract.KindOf(err) != extract.KindInvalid {
		t.Fatalf("an editor's admin token: %v", err)
	}
	secret, tok, err := acc.NewToken(ctx, "ed", "laptop", "", "")
	if err != nil || tok.Role != record.RoleEditor || !strings.HasPrefix(secret, "kgs_") {
		t.Fatalf("token: %+v %v", tok, err)
	}
	if _, _, ok, _ := st.TokenByHash(ctx, secret); ok {
		t.Fatal("the token is stored as itself")
	}
	p, ok, err := acc.TokenPrincipal(ctx, secret)
	if err != nil || !ok || p.Role != record.RoleEditor || p.Name() != "ed (token laptop)" {
		t.Fatalf("token principal: %+v %t %v", p, ok, err)
	}
	if _, ok, _ := acc.TokenPrincipal(ctx, secret+"x"); ok {
		t.Fatal("a wrong token was taken")
	}
	// Sessions end when their time is up.
	id, err := acc.NewSession(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := acc.SessionPrincipal(ctx, id); !ok {
		t.Fatal("a new session is not live")
	}
	acc.now = func() time.Time { return time.Now().Add(SessionTTL + time.Minute) }
	if _, ok, _ := acc.SessionPrincipal(ctx, id); ok {
		t.Fatal("a session outlived its time")
	}
	if !Local.IsLocal() || Local.Name() != "local" || (Principal{Role: record.RoleAdmin}).IsLocal() {
		t.Fatal("the local principal is not told apart from the bootstrap token's")
	}
}
