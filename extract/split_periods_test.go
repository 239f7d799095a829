package extract

import (
	"strings"
	"testing"
)

// A period ends a sentence only where one ends: not inside a number, an
// address, an initial or a common abbreviation; a passage split at a
// small chunk size never cuts "$87.60" or "1.5%".
func TestSentences_Periods(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Crude oil climbed to $87.60 per barrel. Gold rose by 1.5%.", []string{"Crude oil climbed to $87.60 per barrel.", "Gold rose by 1.5%."}},
		{"Dr. Watson met J. R. R. Tolkien in the U.S. in 1950. See example.com for more.", []string{"Dr. Watson met J. R. R. Tolkien in the U.S. in 1950.", "See example.com for more."}},
		{"He said no. Then he left.", []string{"He said no.", "Then he left."}},
		{`"It was late." She went home.`, []string{`"It was late."`, "She went home."}},
		{"版本3.0发布了。很好！", []string{"版本3.0发布了。", "很好！"}},
		{"Marley was dead.", []string{"Marley was dead."}},
	} {
		var got []string
		for _, sp := range Sentences(c.text) {
			got = append(got, c.text[sp.Start:sp.End])
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
	passage := "Meanwhile, commodity markets reflected a mixed sentiment. Gold futures rose by 1.5%, reaching $2,080 per ounce, as investors sought safe-haven assets. Crude oil prices continued their rally, climbing to $87.60 per barrel, supported by supply constraints and strong demand."
	for _, size := range []int{30, 60, 100} {
		for _, ch := range Split(Document{ID: 1, Content: passage}, size, 0, false) {
			if strings.HasSuffix(ch.Text, "$87.") || strings.HasPrefix(ch.Text, "60 ") || strings.HasSuffix(ch.Text, "1.") {
				t.Errorf("size %d: a chunk cuts a number: %q", size, ch.Text)
			}
		}
	}
}
