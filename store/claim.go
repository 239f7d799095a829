package store

import (
	"context"
	"fmt"
	"time"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/extractionversion"
)

// ClaimVersion makes owner the process that runs a version. It succeeds when nobody owns the version, when owner already
// does, when the current owner's heartbeat is older than staleAfter, or
// when dead reports the current owner gone. The claim is a conditional
// update on the owner read, so of two processes claiming at once only one
// wins, on SQLite and PostgreSQL alike.
func (s *Store) ClaimVersion(ctx context.Context, id int, owner string, staleAfter time.Duration, dead func(owner string) bool) (bool, error) {
	v, err := s.client.ExtractionVersion.Get(ctx, id)
	if err != nil {
		return false, translate(err, fmt.Sprintf("version %d", id))
	}
	now := s.Now()
	free := v.Owner == "" || v.Owner == owner || now.Sub(v.HeartbeatAt) > staleAfter || (dead != nil && dead(v.Owner))
	if !free {
		return false, nil
	}
	var n int
	err = s.write(ctx, func(c *ent.Client) error {
		n, err = c.ExtractionVersion.Update().
			Where(extractionversion.ID(id), extractionversion.Owner(v.Owner)).
			SetOwner(owner).SetHeartbeatAt(now).Save(ctx)
		return err
	})
	if err != nil {
		return false, translate(err, "version")
	}
	return n == 1, nil
}
