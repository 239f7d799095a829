package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// People, their tokens and sessions and the audit log, on both
// databases: a name is taken once; a token and a session are found by
// their hash alone; a role change ends a person's sessions; removing a
// person removes their tokens and sessions.
func TestStore_Accounts(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ann, err := s.AddAccount(ctx, "ann", record.RoleAdmin, "$argon2id$hash")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddAccount(ctx, "ann", record.RoleViewer, "x"); extract.KindOf(err) != extract.KindConflict {
			t.Fatalf("a second ann: %v, want a conflict", err)
		}
		if _, hash, ok, err := s.AccountByName(ctx, "ann"); err != nil || !ok || hash != "$argon2id$hash" {
			t.Fatalf("ann: %q %t %v", hash, ok, err)
		}
		if _, _, ok, err := s.AccountByName(ctx, "bob"); err != nil || ok {
			t.Fatalf("bob, who is not: %t %v", ok, err)
		}
		tok, err := s.AddToken(ctx, ann.ID, "laptop", "h1", record.RoleEditor, record.DefaultWorkspace)
		if err != nil || tok.Owner != "ann" {
			t.Fatalf("token: %+v %v", tok, err)
		}
		if mine, err := s.Tokens(ctx, "ann"); err != nil || len(mine) != 1 || mine[0].Name != "laptop" {
			t.Fatalf("ann's tokens: %+v %v", mine, err)
		}
		if theirs, err := s.Tokens(ctx, "bob"); err != nil || len(theirs) != 0 {
			t.Fatalf("the tokens of someone with none: %+v %v", theirs, err)
		}
		got, owner, ok, err := s.TokenByHash(ctx, "h1")
		if err != nil || !ok || got.ID != tok.ID || owner.Name != "ann" || got.Role != record.RoleEditor {
			t.Fatalf("token by hash: %+v %+v %t %v", got, owner, ok, err)
		}
		now := time.Now().UTC().Truncate(time.Second)
		if err := s.RevokeToken(ctx, tok.ID, now); err != nil {
			t.Fatal(err)
		}
		if got, _, _, _ := s.TokenByHash(ctx, "h1"); got.RevokedAt == nil || !got.RevokedAt.Equal(now) {
			t.Fatalf("revoked at %v, want %v", got.RevokedAt, now)
		}
		if err := s.AddSession(ctx, "s1", &ann.ID, record.RoleAdmin, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.AddSession(ctx, "s2", nil, record.RoleAdmin, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if se, ok, err := s.SessionByHash(ctx, "s1"); err != nil || !ok || se.Account == nil || se.Account.Name != "ann" {
			t.Fatalf("session: %+v %t %v", se, ok, err)
		}
		if err := s.SetAccountRole(ctx, "ann", record.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.SessionByHash(ctx, "s1"); ok {
			t.Fatal("a role change kept the person's session")
		}
		if se, ok, _ := s.SessionByHash(ctx, "s2"); !ok || se.Account != nil {
			t.Fatal("a role change ended the bootstrap token's session")
		}
		if err := s.AddAudit(ctx, record.AuditEntry{At: now, Actor: "ann", Role: record.RoleViewer, Method: "POST", Path: "/api/documents", Status: 201, Addr: "127.0.0.1"}); err != nil {
			t.Fatal(err)
		}
		if log, err := s.AuditLog(ctx, 10); err != nil || len(log) != 1 || log[0].Status != 201 || !log[0].At.Equal(now) {
			t.Fatalf("audit log: %+v %v", log, err)
		}
		if err := s.AddSession(ctx, "s3", &ann.ID, record.RoleViewer, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveAccount(ctx, "ann"); err != nil {
			t.Fatal(err)
		}
		if _, _, ok, _ := s.TokenByHash(ctx, "h1"); ok {
			t.Fatal("a removed person's token is still there")
		}
		if _, ok, _ := s.SessionByHash(ctx, "s3"); ok {
			t.Fatal("a removed person's session is still there")
		}
		if n, err := s.CountAccounts(ctx); err != nil || n != 0 {
			t.Fatalf("%d accounts left (%v)", n, err)
		}
	})
}
