package query

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// ExtractiveNote opens an answer built without a model.
const ExtractiveNote = "*Extractive answer: no model was asked; these are the sentences of the documents that best match the question.*"

// MaxExtractive is how many sentences an extractive answer quotes;
// sentences of fewer than minExtractiveWords words are not quoted.
const (
	MaxExtractive      = 4
	minExtractiveWords = 4
)

// Extractive answers a question without a model: the sentences of the
// context's passages that best match it (BM25 over the sentences, ties to
// the better ranked passage), at most max of them, best first, each cited
// as [n] with n its document's reference number, then the "### References"
// list of the documents cited (see Context.References), as a model's
// answer ends. It starts with ExtractiveNote. When no sentence shares a
// word with the question it says so.
func Extractive(question string, c Context, max int) string {
	if max <= 0 {
		max = MaxExtractive
	}
	type sentence struct {
		text  string
		chunk int // rank of its passage
		doc   int // reference number of its document
	}
	refs := c.References()
	docOf := map[string]int{}
	for _, r := range refs {
		for _, ref := range r.Chunks {
			docOf[ref] = r.N
		}
	}
	var sents []sentence
	seen := map[string]bool{}
	for i, ch := range c.Chunks {
		for _, t := range proseSentences(ch.Text) {
			// A passage that repeats a sentence (overlapping chunks) quotes
			// it once; a fragment of a few words ("Marley?") says nothing
			// on its own.
			if words(t) < minExtractiveWords || seen[t] {
				continue
			}
			seen[t] = true
			sents = append(sents, sentence{text: t, chunk: i, doc: docOf[ch.Ref]})
		}
	}
	texts := make([]string, len(sents))
	for i, s := range sents {
		texts[i] = s.text
	}
	scores := NewBM25(texts).Scores(withPastForms(question))
	order := make([]int, 0, len(sents))
	for i := range sents {
		if scores[i] > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(scores[b], scores[a]), cmp.Compare(sents[a].chunk, sents[b].chunk))
	})
	var b strings.Builder
	b.WriteString(ExtractiveNote + "\n\n")
	if len(order) == 0 {
		b.WriteString(FailResponse(question) + "\n")
		return b.String()
	}
	// Only sentences that answer about as well as the best: one that
	// shares a common word with the question pads the answer. A heading
	// or a title line (no closing mark) is quoted only when nothing else
	// matches.
	var proseOrder []int
	for _, i := range order {
		if prose(sents[i].text) {
			proseOrder = append(proseOrder, i)
		}
	}
	if len(proseOrder) > 0 {
		order = proseOrder
	}
	best := scores[order[0]]
	kept := order[:1]
	for _, i := range order[1:] {
		if scores[i] >= extractiveShare*best {
			kept = append(kept, i)
		}
	}
	order = kept[:min(max, len(kept))]
	var cited []int
	for _, i := range order {
		s := sents[i]
		fmt.Fprintf(&b, "- %s [%d]\n", s.text, s.doc)
		if !slices.Contains(cited, s.doc) {
			cited = append(cited, s.doc)
		}
	}
	b.WriteString("\n### References\n\n")
	for _, n := range cited {
		fmt.Fprintf(&b, "- [%d] %s\n", n, refs[n-1].Title)
	}
	return b.String()
}

// withPastForms adds to a question the past forms of its words, so that
// "Who did Ada marry?" meets "She married ..." and "When did she die?"
// "She died ...": the retrieval terms' light stemming leaves "married"
// and "marry", "died" and "die" apart. A word that is no verb adds terms
// no sentence holds, which score nothing.
func withPastForms(question string) string {
	var extra []string
	for _, w := range strings.FieldsFunc(strings.ToLower(question), func(r rune) bool { return !unicode.IsLetter(r) }) {
		n := len(w)
		switch {
		case n < 3:
		case strings.HasSuffix(w, "y") && !strings.ContainsRune("aeiou", rune(w[n-2])):
			extra = append(extra, w[:n-1]+"ied")
		case strings.HasSuffix(w, "e"):
			extra = append(extra, w+"d")
		case !strings.HasSuffix(w, "ed"):
			extra = append(extra, w+"ed")
		}
	}
	if len(extra) == 0 {
		return question
	}
	return question + " " + strings.Join(extra, " ")
}

// FailResponse is the answer to a question nothing retrieved answers, in
// the question's language (Chinese for a question in Han script, English
// otherwise), ending in LightRAG's "[no-context]" mark.
func FailResponse(question string) string {
	if extract.IsCJK(question) {
		return "抱歉，检索到的内容中没有与问题相关的信息，无法回答这个问题。[no-context]"
	}
	return "Sorry, there is not enough information to answer that question: nothing retrieved shares a word with it. [no-context]"
}

// extractiveShare is the least share of the best sentence's score a
// sentence quoted after it has.
const extractiveShare = 0.5

// prose reports a sentence that closes as prose does (a full stop, a
// question or exclamation mark, a closing quote or bracket after one), not
// a heading, a title line or a table row.
func prose(s string) bool {
	s = strings.TrimRight(s, "\"'”’)]» ")
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") ||
		strings.HasSuffix(s, "。") || strings.HasSuffix(s, "！") || strings.HasSuffix(s, "？")
}

// words counts a sentence's words: space-separated ones, and in Han text
// one for every two characters (a Chinese word is about two).
func words(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		han := 0
		for _, r := range f {
			if unicode.Is(unicode.Han, r) {
				han++
			}
		}
		n += max(1, han/2)
	}
	return n
}

// proseSentences cuts a passage into sentences as a reader sees them:
// lines wrapped within a paragraph are joined; a sentence ends at '.',
// '!' or '?' (and the closing quotes or brackets after it) followed by
// white space and a capital (or a letter of a script without case), a
// digit or an opening quote, but not after
// an abbreviation ("Mr.", "St.") or an initial ("J."); Chinese and
// Japanese end marks end a sentence as they are; a paragraph ends one.
func proseSentences(text string) []string {
	var out []string
	for _, para := range regexpParagraphs.Split(text, -1) {
		p := strings.Join(strings.Fields(para), " ")
		rs := []rune(p)
		start := 0
		emit := func(end int) {
			if t := strings.TrimSpace(string(rs[start:end])); t != "" {
				out = append(out, t)
			}
			start = end
		}
		for i := 0; i < len(rs); i++ {
			r := rs[i]
			if r == '。' || r == '！' || r == '？' {
				emit(i + 1)
				continue
			}
			if r != '.' && r != '!' && r != '?' {
				continue
			}
			j := i + 1
			for j < len(rs) && strings.ContainsRune("\"'”’)]»", rs[j]) {
				j++
			}
			if j >= len(rs) || rs[j] != ' ' || j+1 >= len(rs) {
				continue
			}
			next := rs[j+1]
			caseless := unicode.IsLetter(next) && !unicode.IsLower(next) // a capital, or a letter of a script without case
			if !caseless && !unicode.IsDigit(next) && !strings.ContainsRune("\"'“‘([«", next) {
				continue
			}
			if r == '.' {
				k := i
				for k > start && unicode.IsLetter(rs[k-1]) || k > start && rs[k-1] == '.' {
					k--
				}
				word := strings.ToLower(string(rs[k:i]))
				if extract.Abbreviation(word) || len([]rune(word)) == 1 && unicode.IsUpper(rs[k]) {
					continue
				}
			}
			emit(j)
		}
		emit(len(rs))
	}
	return out
}

// regexpParagraphs splits text at blank lines.
var regexpParagraphs = regexp.MustCompile(`\n[ \t]*\n`)
