package web

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 edges"}, {1, "1 edge"}, {2, "2 edges"}, {-1, "-1 edges"}} {
		if got := count(c.n, "edge", "edges"); got != c.want {
			t.Errorf("count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
