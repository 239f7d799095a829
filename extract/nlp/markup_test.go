package nlp

import "testing"

func TestPlainMarkup(t *testing.T) {
	for in, want := range map[string]string{
		"# Project Apollo\n**Project Apollo** is run by *Dana Scully*.": "Project Apollo\nProject Apollo is run by Dana Scully.",
		"- Fox Mulder joined in 1993.\n2. Walter Skinner approved it.":  "Fox Mulder joined in 1993.\nWalter Skinner approved it.",
		"See [the report](https://example.org/r) by __Skinner__.":       "See the report by Skinner.",
		"5 * 3 - 2 = 13, and x*y stays; 1999 was a year.":               "5 * 3 - 2 = 13, and x*y stays; 1999 was a year.",
	} {
		if got := plainMarkup(in); got != want {
			t.Errorf("plainMarkup(%q) = %q, want %q", in, got, want)
		}
	}
}
