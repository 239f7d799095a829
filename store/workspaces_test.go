package store_test

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/store"
)

// A workspace's store is a database of its own beside the main one (a
// file, or a PostgreSQL schema): what one holds the others never list,
// the same ids name different rows, and version run locks of the same
// id in two workspaces do not block each other.
func TestStore_WorkspacesApart(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := t.Context()
			opts := b.db(t)
			main := MustOpen(t, opts)
			if err := main.AddWorkspace(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			if err := main.AddWorkspace(ctx, "a"); err == nil {
				t.Fatal("a workspace name taken twice")
			}
			open := func(ws string) *store.Store {
				o := opts
				o.Workspace = ws
				return MustOpen(t, o)
			}
			a, bb := open("a"), open("b")
			da := mustDoc(t, a, "a.txt", "Only workspace a holds this.")
			db := mustDoc(t, bb, "b.txt", "Only workspace b holds that.")
			if da.ID != db.ID {
				t.Fatalf("fresh workspaces number their rows alike: %d and %d", da.ID, db.ID)
			}
			for name, s := range map[string]*store.Store{"main": main, "a": a, "b": bb} {
				docs, err := s.ListDocuments(ctx, 0)
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]string{"main": "", "a": "a.txt", "b": "b.txt"}[name]
				if (want == "" && len(docs) != 0) || (want != "" && (len(docs) != 1 || docs[0].Name != want)) {
					t.Errorf("workspace %s lists %+v, want %q alone", name, docs, want)
				}
			}
			// A second store on workspace a sees a's rows.
			again := open("a")
			if docs, err := again.ListDocuments(ctx, 0); err != nil || len(docs) != 1 || docs[0].Name != "a.txt" {
				t.Fatalf("workspace a opened again: %+v %v", docs, err)
			}
			unlockA, ok, err := a.LockVersion(ctx, 1)
			if err != nil || !ok {
				t.Fatalf("lock version 1 of a: %v %v", ok, err)
			}
			defer unlockA()
			unlockB, ok, err := bb.LockVersion(ctx, 1)
			if err != nil || !ok {
				t.Fatalf("version 1 of b is locked by version 1 of a: %v %v", ok, err)
			}
			unlockB()
			if b.name == "postgres" {
				// The lock is the database's: a's second store sees it held.
				if _, ok, err := again.LockVersion(ctx, 1); err != nil || ok {
					t.Fatalf("version 1 of a locked twice: %v %v", ok, err)
				}
			}
			if _, err := store.Open(ctx, store.Options{DataDir: t.TempDir(), Workspace: "Bad Name"}); err == nil {
				t.Fatal("a workspace name with spaces and capitals opened")
			}
			if err := record.CheckWorkspaceName("../etc"); err == nil {
				t.Fatal("a workspace name leaving its folder")
			}
		})
	}
}

// A person added with workspaces works in those alone; one added without
// works in default, and keeps it when first made a member of another
// workspace (an admin takes it away by ending that membership).
func TestStore_MembershipsKeepDefault(t *testing.T) {
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		if err := s.AddWorkspace(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		only, err := s.AddAccount(ctx, "only", record.RoleEditor, "h1", "a")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := only.RoleIn(record.DefaultWorkspace); ok {
			t.Fatal("a person added to workspace a alone works in default")
		}
		if r, ok := only.RoleIn("a"); !ok || r != record.RoleEditor {
			t.Fatalf("in a: %v %v", r, ok)
		}
		if _, err := s.AddAccount(ctx, "kim", record.RoleEditor, "h2"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetMembership(ctx, "kim", "a", record.RoleViewer); err != nil {
			t.Fatal(err)
		}
		kim, _, _, err := s.AccountByName(ctx, "kim")
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := kim.RoleIn(record.DefaultWorkspace); !ok || r != record.RoleEditor {
			t.Fatalf("kim lost default: %v %v", r, ok)
		}
		if r, ok := kim.RoleIn("a"); !ok || r != record.RoleViewer {
			t.Fatalf("kim in a: %v %v", r, ok)
		}
		if err := s.SetMembership(ctx, "kim", record.DefaultWorkspace, ""); err != nil {
			t.Fatal(err)
		}
		if kim, _, _, err = s.AccountByName(ctx, "kim"); err != nil {
			t.Fatal(err)
		}
		if _, ok := kim.RoleIn(record.DefaultWorkspace); ok {
			t.Fatal("kim still in default after leaving it")
		}
	})
}
