package embed

import (
	"context"
	"fmt"
	"testing"
)

// A limited store keeps the newest vectors and drops the oldest; one
// without a limit keeps every one.
func TestMemoryStoreLimit(t *testing.T) {
	ctx := context.Background()
	put := func(m *MemoryStore, from, to int) {
		vecs := map[string][]float32{}
		for i := from; i < to; i++ {
			vecs[fmt.Sprint(i)] = []float32{float32(i)}
		}
		if err := m.PutVectors(ctx, "m", vecs); err != nil {
			t.Fatal(err)
		}
	}
	hashes := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprint(i))
		}
		return out
	}
	lim := NewMemoryStoreLimit(5)
	put(lim, 0, 4)
	put(lim, 4, 8)
	put(lim, 6, 8) // stored again: not counted twice
	got, _ := lim.GetVectors(ctx, "m", hashes(8))
	if len(got) != 5 || got["2"] != nil || got["3"] == nil || got["7"] == nil {
		t.Errorf("limited store holds %d: %v; want 3 to 7", len(got), got)
	}
	all := NewMemoryStore()
	put(all, 0, 8)
	if got, _ := all.GetVectors(ctx, "m", hashes(8)); len(got) != 8 {
		t.Errorf("unlimited store holds %d of 8", len(got))
	}
}
