package diff

import (
	"reflect"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []Segment
	}{
		{name: "BothEmpty", want: []Segment{}},
		{name: "Equal", old: "a b", new: "a b", want: []Segment{{"=", "a b"}}},
		{name: "Added", old: "", new: "new text", want: []Segment{{"+", "new text"}}},
		{name: "Removed", old: "old text", new: "", want: []Segment{{"-", "old text"}}},
		{
			name: "WordInserted",
			old:  "An English writer.", new: "An English mathematician and writer.",
			want: []Segment{{"=", "An English "}, {"+", "mathematician and "}, {"=", "writer."}},
		},
		{
			name: "WordReplaced",
			old:  "the red house", new: "the blue house",
			want: []Segment{{"=", "the "}, {"-", "red "}, {"+", "blue "}, {"=", "house"}},
		},
		{
			name: "CJKPerCharacter",
			old:  "一种慢性病", new: "一种常见慢性病",
			want: []Segment{{"=", "一种"}, {"+", "常见"}, {"=", "慢性病"}},
		},
		{
			name: "LeadingSpace",
			old:  "  x", new: "x",
			want: []Segment{{"-", "  "}, {"=", "x"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Words(tt.old, tt.new)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Words(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
			}
			checkSegments(t, tt.old, tt.new, got)
		})
	}
}

func TestWords_Bounded(t *testing.T) {
	old := strings.Repeat("alpha ", 2000)
	new := strings.Repeat("beta ", 2000)
	got := Words("same "+old+"end", "same "+new+"end")
	want := []Segment{{"=", "same "}, {"-", old}, {"+", new}, {"=", "end"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bounded diff = %d segments, want the middle replaced whole", len(got))
	}
}

// checkSegments verifies that the segments rebuild both texts and that no
// two neighbours share an op.
func checkSegments(t *testing.T, old, new string, segs []Segment) {
	t.Helper()
	var a, b strings.Builder
	for i, s := range segs {
		if i > 0 && segs[i-1].Op == s.Op {
			t.Errorf("segments %d and %d share op %q", i-1, i, s.Op)
		}
		switch s.Op {
		case "=":
			a.WriteString(s.Text)
			b.WriteString(s.Text)
		case "-":
			a.WriteString(s.Text)
		case "+":
			b.WriteString(s.Text)
		default:
			t.Errorf("bad op %q", s.Op)
		}
	}
	if a.String() != old || b.String() != new {
		t.Errorf("segments rebuild %q / %q, want %q / %q", a.String(), b.String(), old, new)
	}
}

func FuzzWords(f *testing.F) {
	f.Add("the red house", "the blue house")
	f.Add("一种慢性病", "一种常见慢性病")
	f.Add("\ufeffa\x00b", "a\xffb  c")
	f.Fuzz(func(t *testing.T, old, new string) {
		// Invalid UTF-8 is kept byte for byte, so the rebuild holds for any input.
		checkSegments(t, old, new, Words(old, new))
	})
}
