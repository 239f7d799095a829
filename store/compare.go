package store

import (
	"context"
	"errors"
	"time"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/extractionversion"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// ImportReference stores a ready-made graph (an imported gold set) as a new
// version of the named extraction over docIDs: the version is created,
// its graph written, marked done and made the extraction's reference. A
// failure after the version was created marks it failed, so no half
// imported version is ever taken for a reference.
func (s *Store) ImportReference(ctx context.Context, name string, cfg extract.Config, docIDs []int, note string, g extract.Graph) (record.Version, error) {
	v, err := s.SaveGraphVersion(ctx, name, cfg, docIDs, note, 0, g)
	if err != nil {
		return record.Version{}, err
	}
	if err := s.SetReference(ctx, v.ID, true); err != nil {
		_ = s.FinishVersion(context.WithoutCancel(ctx), v.ID, record.StatusFailed, v.Elapsed, extract.MessageOf(err))
		return record.Version{}, err
	}
	return s.Version(ctx, v.ID)
}

// SaveGraphVersion stores a ready-made graph (a merge, an edit, an import)
// as a new, done version of the named extraction over docIDs, made from
// parentID (0 for none). A failure after the version was created marks it
// failed, so a half-written graph is never taken for a finished one.
func (s *Store) SaveGraphVersion(ctx context.Context, name string, cfg extract.Config, docIDs []int, note string, parentID int, g extract.Graph) (record.Version, error) {
	start := time.Now()
	v, err := s.NewChildVersion(ctx, name, cfg, docIDs, note, parentID)
	if err != nil {
		return record.Version{}, err
	}
	fail := func(err error) (record.Version, error) {
		if errors.Is(err, ErrNotActive) || extract.KindOf(err) == extract.KindNotFound {
			// Canceled (or canceled and deleted) while written: it stays
			// as the cancel left it.
			return record.Version{}, extract.Errorf(extract.KindConflict, "%s was canceled while it was written", v.Label())
		}
		_ = s.finishWritten(context.WithoutCancel(ctx), v.ID, record.StatusFailed, time.Since(start), extract.MessageOf(err))
		return record.Version{}, err
	}
	err = s.write(ctx, func(c *ent.Client) error {
		now := s.Now()
		return c.ExtractionVersion.UpdateOneID(v.ID).SetStatus(record.StatusRunning).SetWritten(true).SetWriter(thisWriter).
			SetStartedAt(now).SetHeartbeatAt(now).Exec(ctx)
	})
	if err != nil {
		return fail(translate(err, "version"))
	}
	// The heartbeat tells FailInterruptedWrites in other processes that
	// the writer is alive.
	bctx, stop := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(writeBeat)
		defer t.Stop()
		for {
			select {
			case <-bctx.Done():
				return
			case <-t.C:
				_ = s.Heartbeat(bctx, v.ID)
			}
		}
	}()
	err = s.writeGraph(ctx, v.ID, g, true)
	stop()
	if err != nil {
		return fail(err)
	}
	if err := s.finishWritten(ctx, v.ID, record.StatusDone, time.Since(start), ""); err != nil {
		return fail(err)
	}
	return s.Version(ctx, v.ID)
}

// WriteStale is how old a written version's heartbeat is when its
// writer is taken for dead.
const WriteStale = time.Minute

// A written version's writer beats every writeBeat; one whose beat is
// older than writeStale is taken for dead.
const (
	writeBeat  = 5 * time.Second
	writeStale = WriteStale
)

// finishWritten is FinishVersion for a written version that is still
// running: one canceled meanwhile is left canceled (ErrNotActive).
func (s *Store) finishWritten(ctx context.Context, id int, status record.Status, elapsed time.Duration, errText string) error {
	err := s.write(ctx, func(c *ent.Client) error {
		n, err := c.ExtractionVersion.Update().Where(extractionversion.ID(id), extractionversion.StatusEQ(record.StatusRunning)).
			SetStatus(status).SetFinishedAt(s.Now()).SetHeartbeatAt(s.Now()).SetError(errText).
			AddElapsedMs(elapsed.Milliseconds()).Save(ctx)
		if err == nil && n == 0 {
			return ErrNotActive
		}
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotActive) {
			return err
		}
		return translate(err, "version")
	}
	if status == record.StatusDone {
		return s.refreshCounts(ctx, id)
	}
	return nil
}
