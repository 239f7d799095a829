package store

import (
	"database/sql"

	"github.com/kgstudio/kgstudio/ent"
)

// EntClient returns the store's Ent client, for tests that check rows the
// store's API does not show.
func EntClient(s *Store) *ent.Client { return s.client }

// DB returns the store's connection pool, for tests that check the
// connections' settings.
func DB(s *Store) *sql.DB { return s.db }
