package diff

import (
	"reflect"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	seg := func(op, text string) Segment { return Segment{Op: op, Text: text} }
	tests := []struct {
		name     string
		old, new string
		want     []Segment
	}{
		{name: "BothEmpty", old: "", new: "", want: nil},
		{name: "Same", old: "a\nb", new: "a\nb", want: []Segment{seg("=", "a"), seg("=", "b")}},
		{name: "FinalBreakIsNoLine", old: "a\nb\n", new: "a\nb", want: []Segment{seg("=", "a"), seg("=", "b")}},
		{name: "FromEmpty", old: "", new: "a\n\nb", want: []Segment{seg("+", "a"), seg("+", ""), seg("+", "b")}},
		{name: "ToEmpty", old: "a\nb", new: "", want: []Segment{seg("-", "a"), seg("-", "b")}},
		{
			name: "ChangedLine",
			old:  "first line\nsecond line\nthird line",
			new:  "first line\nsecond line changed\nthird line",
			want: []Segment{seg("=", "first line"), seg("-", "second line"), seg("+", "second line changed"), seg("=", "third line")},
		},
		{
			name: "AddedAndRemoved",
			old:  "a\nb\nc\nd",
			new:  "z\na\nc\nd\ne",
			want: []Segment{seg("+", "z"), seg("=", "a"), seg("-", "b"), seg("=", "c"), seg("=", "d"), seg("+", "e")},
		},
		{
			// Of two equally long alignments, the removal comes first.
			name: "RemovalFirst",
			old:  "x\na",
			new:  "y\na",
			want: []Segment{seg("-", "x"), seg("+", "y"), seg("=", "a")},
		},
		{
			// Lines are not merged, unlike the segments of a word diff.
			name: "OneSegmentPerLine",
			old:  "a\nb\nc",
			new:  "d\ne",
			want: []Segment{seg("-", "a"), seg("-", "b"), seg("-", "c"), seg("+", "d"), seg("+", "e")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Lines(tt.old, tt.new)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Lines(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
			}
			checkLines(t, tt.old, tt.new, got)
		})
	}
}

func TestLines_Bounded(t *testing.T) {
	// 2048 differing lines on each side are past the table bound.
	var a, b []string
	for i := range 2048 {
		a = append(a, "old "+strings.Repeat("x", i%7))
		b = append(b, "new "+strings.Repeat("x", i%7))
	}
	old := "head\n" + strings.Join(a, "\n") + "\ntail"
	new := "head\n" + strings.Join(b, "\n") + "\ntail"
	got := Lines(old, new)
	if len(got) != 2+2*2048 {
		t.Fatalf("%d segments", len(got))
	}
	if got[0] != (Segment{"=", "head"}) || got[len(got)-1] != (Segment{"=", "tail"}) {
		t.Errorf("common lines: %q ... %q", got[0], got[len(got)-1])
	}
	for i, s := range got[1 : len(got)-1] {
		if want := map[bool]string{true: "-", false: "+"}[i < 2048]; s.Op != want {
			t.Fatalf("segment %d is %q, want the middle as all removals, then all additions", i+1, s.Op)
		}
	}
	checkLines(t, old, new, got)
}

// checkLines verifies that the "=" and "-" lines rebuild old and the "="
// and "+" lines rebuild new.
func checkLines(t *testing.T, old, new string, segs []Segment) {
	t.Helper()
	var a, b []string
	for _, s := range segs {
		switch s.Op {
		case "=":
			a, b = append(a, s.Text), append(b, s.Text)
		case "-":
			a = append(a, s.Text)
		case "+":
			b = append(b, s.Text)
		default:
			t.Errorf("bad op %q", s.Op)
		}
	}
	if !reflect.DeepEqual(a, splitLines(old)) || !reflect.DeepEqual(b, splitLines(new)) {
		t.Errorf("lines rebuild %q / %q from %q / %q", a, b, old, new)
	}
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\nc", "a\nc\nd\n")
	f.Add("", "\n\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		checkLines(t, old, new, Lines(old, new))
	})
}
