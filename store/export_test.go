package store

import "github.com/kgstudio/kgstudio/ent"

// EntClient returns the store's Ent client, for tests that check rows the
// store's API does not show.
func EntClient(s *Store) *ent.Client { return s.client }
