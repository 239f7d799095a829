package store

import (
	"cmp"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCompareSortedKeys: the prefix shortcut orders keys exactly as
// strings.Compare does (short keys, keys equal in their first eight bytes,
// NUL bytes, multi-byte UTF-8), ties broken by position.
func TestCompareSortedKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"", "\x00", "a", "b", "é", "中", "\xff"}
	key := func() string {
		var sb strings.Builder
		sb.WriteString(strings.Repeat("k", r.IntN(2)*8)) // often a shared 8-byte prefix
		for range r.IntN(12) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	sign := func(c int) int { return cmp.Compare(c, 0) }
	for range 20000 {
		a, b := key(), key()
		i, j := r.IntN(3), r.IntN(3)
		want := strings.Compare(a, b)
		if want == 0 {
			want = cmp.Compare(i, j)
		}
		if got := compareSortedKeys(newSortedKey(a, i), newSortedKey(b, j)); sign(got) != want {
			t.Fatalf("compare(%q#%d, %q#%d) = %d, want %d", a, i, b, j, got, want)
		}
	}
}
