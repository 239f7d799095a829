package nlp

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	prose "github.com/jdkato/prose/v2"
	"github.com/mingrammer/commonregex"
)

// tagger is prose's averaged-perceptron part-of-speech tagger (the same
// weights, features and rules) with its weights laid out for speed: prose
// scores a token through a map of maps and a map of scores, which made
// tagging the chunks the largest part of an nlp run. Here each feature
// holds a short list of (class, weight) pairs summed into an array, and
// the feature strings are built in one reused buffer.
//
// It answers as prose does but for one case: prose picks among classes of
// exactly equal score in map order (at random), this tagger the first
// class.
type tagger struct {
	classes []string
	tagMap  map[string]string
	weights map[string][]classWeight
}

type classWeight struct {
	class int32
	w     float64
}

// newTagger loads prose's tagger model.
func newTagger() (*tagger, error) {
	var (
		classes []string
		tags    map[string]string
		wts     map[string]map[string]float64
	)
	for _, f := range []struct {
		name string
		dst  any
	}{{"classes.gob", &classes}, {"tags.gob", &tags}, {"weights.gob", &wts}} {
		b, err := prose.Asset("model/AveragedPerceptron/" + f.name)
		if err != nil {
			return nil, fmt.Errorf("tagger model %s: %w", f.name, err)
		}
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(f.dst); err != nil {
			return nil, fmt.Errorf("tagger model %s: %w", f.name, err)
		}
	}
	t := &tagger{classes: classes, tagMap: tags, weights: make(map[string][]classWeight, len(wts))}
	ids := map[string]int32{}
	for i, c := range classes {
		ids[c] = int32(i)
	}
	for feat, ws := range wts {
		list := make([]classWeight, 0, len(ws))
		for c, w := range ws {
			id, ok := ids[c]
			if !ok {
				id = int32(len(t.classes))
				ids[c] = id
				t.classes = append(t.classes, c)
			}
			list = append(list, classWeight{id, w})
		}
		t.weights[feat] = list
	}
	return t, nil
}

// Token rules prose's tagger applies before its model.
var (
	tagNone = regexp.MustCompile(`^(?:0|\*[\w?]\*|\*\-\d{1,3}|\*[A-Z]+\*\-\d{1,3}|\*)$`)
	tagKeep = regexp.MustCompile(`^\-[A-Z]{3}\-$`)
)

// emoticons are the tokens prose's tokeniser keeps whole and its tagger
// tags SYM.
var emoticons = setOf("(-8", "(-;", "(-_-)", "(._.)", "(:", "(=", "(o:", "(¬_¬)", "(ಠ_ಠ)",
	"(╯°□°）╯︵┻━┻", "-__-", "8-)", "8-D", "8D", ":(", ":((", ":(((", ":()", ":)))", ":-)",
	":-))", ":-)))", ":-*", ":-/", ":-X", ":-]", ":-o", ":-p", ":-x", ":-|", ":-}", ":0", ":3",
	":P", ":]", ":`(", ":`)", ":`-(", ":o", ":o)", "=(", "=)", "=D", "=|", "@_@", "O.o", "O_o",
	"V_V", "XDD", "[-:", "^___^", "o_0", "o_O", "o_o", "v_v", "xD", "xDD", "¯\\(ツ)/¯")

// tag tags words in order, as prose's tagger does.
func (t *tagger) tag(words []string) []string {
	ctx := make([]string, len(words)+4)
	ctx[0], ctx[1] = "-START-", "-START2-"
	for i, w := range words {
		ctx[i+2] = normalizeWord(w)
	}
	ctx[len(ctx)-2], ctx[len(ctx)-1] = "-END-", "-END2-"
	out := make([]string, len(words))
	scores := make([]float64, len(t.classes))
	seen := make([]bool, len(t.classes))
	var buf []byte
	p1, p2 := "-START-", "-START2-"
	for i, w := range words {
		var tag string
		switch {
		case w == "-":
			tag = "-"
		case emoticons[w]:
			tag = "SYM"
		// Each pattern is tried only where it can match: a link has a
		// dot, an e-mail address an @, the others begin with 0, * or -.
		case strings.ContainsRune(w, '.') && commonregex.LinkRegex.MatchString(w) ||
			strings.ContainsRune(w, '@') && (commonregex.EmailRegex.MatchString(w) || strings.HasPrefix(w, "@")):
			tag = "NN"
		case w != "" && (w[0] == '0' || w[0] == '*') && tagNone.MatchString(w):
			tag = "-NONE-"
		case w != "" && w[0] == '-' && tagKeep.MatchString(w):
			tag = w
		default:
			var ok bool
			if tag, ok = t.tagMap[w]; !ok {
				clear(scores)
				clear(seen)
				hit := false
				feature := func(parts ...string) {
					buf = buf[:0]
					for k, p := range parts {
						if k > 0 {
							buf = append(buf, ' ')
						}
						buf = append(buf, p...)
					}
					for _, cw := range t.weights[string(buf)] {
						scores[cw.class] += cw.w
						seen[cw.class] = true
						hit = true
					}
				}
				t.features(i, ctx, w, p1, p2, feature)
				tag = ""
				if hit {
					best := 0.0
					for c := range scores {
						if seen[c] && (tag == "" || scores[c] > best) {
							tag, best = t.classes[c], scores[c]
						}
					}
				}
			}
		}
		out[i] = tag
		p2, p1 = p1, tag
	}
	return out
}

// features calls f with the parts of each feature of word w at i, as
// prose's featurize names them.
func (t *tagger) features(i int, ctx []string, w, p1, p2 string, f func(parts ...string)) {
	suf := min(len(w), 3)
	i = min(len(ctx)-2, i+2)
	iminus := min(len(ctx[i-1]), 3)
	iplus := min(len(ctx[i+1]), 3)
	f("bias")
	f("i suffix", w[len(w)-suf:])
	f("i pref1", string(rune(w[0]))) // prose's string(w[0]): the byte as a rune
	f("i-1 tag", p1)
	f("i-2 tag", p2)
	f("i tag+i-2 tag", p1, p2)
	f("i word", ctx[i])
	f("i-1 tag+i word", p1, ctx[i])
	f("i-1 word", ctx[i-1])
	f("i-1 suffix", ctx[i-1][len(ctx[i-1])-iminus:])
	f("i-2 word", ctx[i-2])
	f("i+1 word", ctx[i+1])
	f("i+1 suffix", ctx[i+1][len(ctx[i+1])-iplus:])
	f("i+2 word", ctx[i+2])
}

// normalizeWord is prose's normalisation of a context word.
func normalizeWord(word string) string {
	if word == "" {
		return word
	}
	first := string(rune(word[0]))
	if strings.Contains(word, "-") && first != "-" {
		return "!HYPHEN"
	} else if _, err := strconv.Atoi(word); err == nil && len(word) == 4 {
		return "!YEAR"
	} else if _, err := strconv.Atoi(first); err == nil {
		return "!DIGITS"
	}
	return strings.ToLower(word)
}

// shareSpanTags gives every occurrence of a word (a run of tokens with no
// space between them, such as "Scrooge's") the tags of its last
// occurrence, as prose's documents do: prose's tokeniser hands each
// occurrence of a word the same token values, so tagging one occurrence
// overwrites the tags of the others. Keeping that keeps the extractor's
// answers what they were. toks are aligned to text; words are the token
// texts as prose wrote them, and tags their tags in order.
func shareSpanTags(text string, toks []tok, words, tags []string) []string {
	var spans []tokRange
	for i := range toks {
		if i > 0 && toks[i].start >= toks[i-1].end && !strings.ContainsFunc(text[toks[i-1].end:toks[i].start], unicode.IsSpace) {
			spans[len(spans)-1].to = i + 1
			continue
		}
		spans = append(spans, tokRange{i, i + 1})
	}
	// A word that ends the text, with no space after it, gets tokens of
	// its own.
	shared := spans
	if n := len(toks); n > 0 && !strings.ContainsFunc(text[toks[n-1].end:], unicode.IsSpace) {
		shared = spans[:len(spans)-1]
	}
	return shareRanges(shared, words, tags)
}

// tokRange is the tokens [from, to) of one word.
type tokRange struct{ from, to int }

// shareRanges gives each word of spans (ranges of words) the values vals
// of the last word in spans made of the same tokens, as prose's shared
// token values do.
func shareRanges(spans []tokRange, words, vals []string) []string {
	last := make(map[string]int, len(spans)) // word -> first token of its last occurrence
	key := func(sp tokRange) string { return strings.Join(words[sp.from:sp.to], "\x00") }
	for _, sp := range spans {
		last[key(sp)] = sp.from
	}
	out := slices.Clone(vals)
	for _, sp := range spans {
		src := last[key(sp)]
		copy(out[sp.from:sp.to], vals[src:src+sp.to-sp.from])
	}
	return out
}
