package csvmap

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// TestAddMention: a mention already made in the row being read (at its
// start or inside it) is not added again; one from a later row is, and so
// is one that only an earlier row's mention equals when the caller asks to
// compare from the start.
func TestAddMention(t *testing.T) {
	m := func(start, end int) extract.Mention { return extract.Mention{DocumentID: 1, Start: start, End: end} }
	var ms []extract.Mention
	ms = addMention(ms, m(0, 10), 0) // row 1
	ms = addMention(ms, m(11, 20), 11)
	ms = addMention(ms, m(14, 17), 11)
	for _, dup := range []extract.Mention{m(11, 20), m(14, 17)} {
		if got := addMention(ms, dup, 11); len(got) != 3 {
			t.Fatalf("repeat %+v within its row added: %+v", dup, got)
		}
	}
	if got := addMention(ms, m(21, 30), 21); len(got) != 4 {
		t.Fatalf("a later row's mention not added: %+v", got)
	}
	if got := addMention(ms, m(0, 10), 0); len(got) != 3 {
		t.Fatalf("a repeat compared from the start added: %+v", got)
	}
}
