package store

import (
	"context"
	"time"

	"github.com/kgstudio/kgstudio/extract"
)

// ImportReference stores a ready-made graph (an imported gold set) as a new
// version of the named extraction over docIDs: the version is created,
// its graph written, marked done and made the extraction's reference. A
// failure after the version was created marks it failed, so no half
// imported version is ever taken for a reference.
func (s *Store) ImportReference(ctx context.Context, name string, cfg extract.Config, docIDs []int, note string, g extract.Graph) (Version, error) {
	v, err := s.SaveGraphVersion(ctx, name, cfg, docIDs, note, 0, g)
	if err != nil {
		return Version{}, err
	}
	if err := s.SetReference(ctx, v.ID, true); err != nil {
		_ = s.FinishVersion(context.WithoutCancel(ctx), v.ID, StatusFailed, v.Elapsed, extract.MessageOf(err))
		return Version{}, err
	}
	return s.Version(ctx, v.ID)
}

// SaveGraphVersion stores a ready-made graph (a merge, an edit, an import)
// as a new, done version of the named extraction over docIDs, made from
// parentID (0 for none). A failure after the version was created marks it
// failed, so a half-written graph is never taken for a finished one.
func (s *Store) SaveGraphVersion(ctx context.Context, name string, cfg extract.Config, docIDs []int, note string, parentID int, g extract.Graph) (Version, error) {
	start := time.Now()
	v, err := s.NewChildVersion(ctx, name, cfg, docIDs, note, parentID)
	if err != nil {
		return Version{}, err
	}
	fail := func(err error) (Version, error) {
		_ = s.FinishVersion(context.WithoutCancel(ctx), v.ID, StatusFailed, time.Since(start), extract.MessageOf(err))
		return Version{}, err
	}
	if err := s.StartVersion(ctx, v.ID, 0); err != nil {
		return fail(err)
	}
	if err := s.WriteGraph(ctx, v.ID, g); err != nil {
		return fail(err)
	}
	if err := s.FinishVersion(ctx, v.ID, StatusDone, time.Since(start), ""); err != nil {
		return fail(err)
	}
	return s.Version(ctx, v.ID)
}
