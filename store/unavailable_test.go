package store_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// A database that goes away mid-use reads as unavailable, not as an
// internal failure or a bad request: SQLite closed under the store, and a
// PostgreSQL database dropped with its connections.
func TestStore_Unavailable(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			opts := b.db(t)
			s, err := store.Open(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			mustDoc(t, s, "a.txt", "Ada Lovelace met Charles Babbage.")
			if opts.URL == "" {
				s.Close()
			} else {
				admin, err := sql.Open("pgx", os.Getenv("KGSTUDIO_TEST_POSTGRES_URL"))
				if err != nil {
					t.Fatal(err)
				}
				u, _ := url.Parse(opts.URL)
				_, err = admin.Exec("DROP DATABASE " + strings.TrimPrefix(u.Path, "/") + " WITH (FORCE)")
				admin.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			_, err = s.ListDocuments(ctx, 10)
			if err == nil {
				_, err = s.Document(ctx, 1)
			}
			if !store.IsUnavailable(err) {
				t.Fatalf("error %v (%T) does not read as unavailable", err, err)
			}
			if _, err := s.Document(ctx, 1); extract.KindOf(err) != extract.KindUnavailable {
				t.Errorf("Document: kind %s (%v), want unavailable", extract.KindOf(err), err)
			}
		})
	}
}
