package extract

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"Fits", "abc", 3, "abc"},
		{"Cut", "abcdef", 3, "abc…"},
		{"CJKBoundary", "周星驰", 4, "周…"},
		{"Zero", "abc", 0, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Clip(tt.in, tt.n)
			if got != tt.want || !utf8.ValidString(got) {
				t.Fatalf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
