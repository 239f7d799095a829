package app

import (
	"context"
	"errors"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

func TestGate_Enter(t *testing.T) {
	t.Parallel()
	t.Run("FullLineRefusesAtOnce", func(t *testing.T) {
		g := NewGate(1, 0, time.Hour)
		ctx, release, err := g.Enter(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = g.Enter(context.Background())
		if !IsBusy(err) || extract.KindOf(err) != extract.KindUnavailable {
			t.Fatalf("second request with no line = %v, want busy (unavailable)", err)
		}
		// The request that holds the slot enters again without another.
		if _, again, err := g.Enter(ctx); err != nil {
			t.Fatalf("nested enter: %v", err)
		} else {
			again()
		}
		release()
		release() // a second call gives back nothing more
		_, r2, err := g.Enter(context.Background())
		if err != nil {
			t.Fatalf("after release: %v", err)
		}
		if _, _, err := g.Enter(context.Background()); !IsBusy(err) {
			t.Fatalf("a double release freed two slots: %v", err)
		}
		r2()
	})
	t.Run("WaitsInLine", func(t *testing.T) {
		g := NewGate(1, 1, time.Hour)
		_, release, err := g.Enter(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		entered := make(chan error, 1)
		go func() {
			_, r, err := g.Enter(context.Background())
			if err == nil {
				r()
			}
			entered <- err
		}()
		testkit.Eventually(t, 10*time.Second, func() error {
			if g.Waiting() == 0 {
				return errors.New("the second request is not in line")
			}
			return nil
		})
		if _, _, err := g.Enter(context.Background()); !IsBusy(err) {
			t.Fatalf("with the line full: %v, want busy", err)
		}
		release()
		if err := <-entered; err != nil {
			t.Fatalf("the request in line: %v", err)
		}
	})
	t.Run("TimesOut", func(t *testing.T) {
		g := NewGate(1, 1, 0)
		_, release, _ := g.Enter(context.Background())
		defer release()
		if _, _, err := g.Enter(context.Background()); !IsBusy(err) {
			t.Fatalf("err = %v, want busy", err)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		g := NewGate(1, 1, time.Hour)
		_, release, _ := g.Enter(context.Background())
		defer release()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := g.Enter(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want canceled", err)
		}
		if g.Waiting() != 0 {
			t.Fatal("a canceled request stayed in line")
		}
	})
	t.Run("OtherGate", func(t *testing.T) {
		g, h := NewGate(1, 0, time.Hour), NewGate(1, 0, time.Hour)
		ctx, release, _ := g.Enter(context.Background())
		defer release()
		_, rh, err := h.Enter(ctx)
		if err != nil {
			t.Fatalf("a slot of another gate: %v", err)
		}
		defer rh()
		if _, _, err := h.Enter(context.Background()); !IsBusy(err) {
			t.Fatalf("the other gate took no slot: %v", err)
		}
	})
}

func TestHeavySlots(t *testing.T) {
	if n := HeavySlots(); n < 2 || n > 8 {
		t.Fatalf("HeavySlots() = %d with no memory limit, want 2..8", n)
	}
	old := debug.SetMemoryLimit(300 << 20)
	defer debug.SetMemoryLimit(old)
	if n := HeavySlots(); n != 1 {
		t.Fatalf("HeavySlots() = %d under a 300 MiB memory limit, want 1", n)
	}
}
