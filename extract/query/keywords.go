// Package query answers questions over one extraction version in the manner
// of LightRAG: the question is cut into low-level keywords (entities and
// concrete details) and high-level keywords (themes and relations); nodes
// are ranked by the low-level ones, edges by the high-level ones and their
// endpoints, and the document chunks that mention the chosen nodes and
// edges complete a context the model answers from, citing reference ids.
package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are English function words and question words that carry no
// retrieval value.
var stopWords = setOf(`a an the and or but nor so yet of in on at to for from by with without about
into onto over under between among through during before after above below up down out off
is are was were be been being am do does did doing done have has had having will would shall
should can could may might must i me my mine we us our ours you your yours he him his she her
hers it its they them their theirs this that these those who whom whose which what when where
why how whether if then than there here not no yes all any both each few more most other some
such only own same too very just also as s t don't doesn't didn't isn't wasn't aren't weren't
tell me please give list describe explain show name find know much many one`)

// themeWords are relational and abstract nouns that name a kind of link or
// a theme rather than a thing: they become high-level keywords.
var themeWords = setOf(`partner partners partnership friend friends friendship enemy enemies rival
wife husband spouse father mother parent parents son daughter child children brother sister
sibling family relative relatives uncle aunt nephew niece cousin owner founder leader member
employer employee colleague boss servant master clerk role relation relations relationship
relationships connection link cause causes reason effect effects impact influence consequence
purpose history origin meaning difference similarity attitude feeling opinion view`)

// themeSuffixes mark abstract nouns (themes).
var themeSuffixes = []string{"tion", "sion", "ment", "ship", "ity", "ness", "ism", "ance", "ence", "hood", "ology"}

// cjkParticles split runs of Han characters: function characters and
// question words, longest first.
var cjkParticles = []string{
	"为什么", "怎么样", "什么", "怎么", "如何", "哪些", "哪个", "哪里", "是否", "有没有", "之间", "一下",
	"的", "了", "是", "在", "和", "与", "及", "或", "吗", "呢", "吧", "啊", "谁", "哪", "有", "对", "把",
	"被", "给", "从", "到", "也", "都", "就", "这", "那", "其", "之", "而", "并", "又", "很", "请", "问",
	"做", "过", "着", "个", "位", "些",
}

// cjkThemes are Han-character endings that mark a theme (high-level
// keyword) rather than an entity.
var cjkThemes = []string{"关系", "影响", "作用", "原因", "结果", "意义", "区别", "联系", "贡献", "发展", "历史", "态度", "角色", "合作", "伙伴", "朋友"}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Keywords extracts keywords from a question without a model. Low-level
// keywords are quoted phrases, runs of capitalised words (possessives
// dropped), runs of Han characters between particles and the remaining
// content nouns; high-level keywords are the remaining theme words
// (relational and abstract nouns, verbs, adjectives). Both lists keep the
// question's order and hold no duplicates (case-insensitively).
func Keywords(question string) (high, low []string) {
	var kw keywordSet
	rest := quoted(question, &kw.low)
	// Han runs go to their own pass; Latin text stays for the word pass.
	var latin strings.Builder
	var han strings.Builder
	flushHan := func() {
		if han.Len() > 0 {
			kw.addHan(han.String())
			han.Reset()
		}
	}
	for _, r := range rest {
		if unicode.Is(unicode.Han, r) {
			han.WriteRune(r)
			continue
		}
		flushHan()
		if unicode.IsPunct(r) && r != '\'' && r != '’' && r != '-' || isCJKPunct(r) {
			latin.WriteString(" . ")
			continue
		}
		latin.WriteRune(r)
	}
	flushHan()
	kw.addWords(latin.String())
	return kw.high.list, kw.low.list
}

type orderedSet struct {
	list []string
	seen map[string]bool
}

func (s *orderedSet) add(w string) {
	w = strings.TrimSpace(w)
	if w == "" {
		return
	}
	k := strings.ToLower(w)
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[k] {
		s.seen[k] = true
		s.list = append(s.list, w)
	}
}

type keywordSet struct{ high, low orderedSet }

// quoted moves quoted phrases to low and returns the text with them blanked.
func quoted(s string, low *orderedSet) string {
	pairs := map[rune]rune{'"': '"', '“': '”', '「': '」', '『': '』', '《': '》', '‘': '’'}
	var out strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		closeR, ok := pairs[rs[i]]
		if ok {
			j := i + 1
			for j < len(rs) && rs[j] != closeR {
				j++
			}
			if j < len(rs) && j > i+1 {
				low.add(string(rs[i+1 : j]))
				out.WriteString(" . ")
				i = j
				continue
			}
		}
		out.WriteRune(rs[i])
	}
	// Single quotes only when they enclose a phrase at word boundaries:
	// 'Bob Cratchit' but not Marley's.
	t := out.String()
	var b strings.Builder
	for {
		i := strings.Index(t, "'")
		if i < 0 {
			b.WriteString(t)
			break
		}
		before, _ := utf8.DecodeLastRuneInString(t[:i])
		j := strings.Index(t[i+1:], "'")
		if (i == 0 || !isWordRune(before)) && j > 0 {
			after, _ := utf8.DecodeRuneInString(t[i+1+j+1:])
			if i+1+j+1 >= len(t) || !isWordRune(after) {
				b.WriteString(t[:i])
				low.add(t[i+1 : i+1+j])
				b.WriteString(" . ")
				t = t[i+1+j+1:]
				continue
			}
		}
		b.WriteString(t[:i+1])
		t = t[i+1:]
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isCJKPunct(r rune) bool {
	return r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xff65
}

// addWords handles Latin-script text: capitalised runs become low-level
// phrases, other content words are sorted into themes and nouns.
func (k *keywordSet) addWords(text string) {
	words := strings.Fields(text)
	var run []string
	flush := func() {
		// A run may not end in a connector.
		for len(run) > 0 && isConnector(run[len(run)-1]) {
			run = run[:len(run)-1]
		}
		if len(run) > 0 {
			k.low.add(strings.Join(run, " "))
		}
		run = nil
	}
	sentenceStart := true
	for _, raw := range words {
		if raw == "." {
			flush()
			sentenceStart = true
			continue
		}
		w := stripPossessive(strings.Trim(raw, "-'’"))
		if w == "" {
			continue
		}
		lower := strings.ToLower(w)
		first, _ := utf8.DecodeRuneInString(w)
		capital := unicode.IsUpper(first)
		atStart := sentenceStart
		sentenceStart = false
		if capital && !(atStart && (stopWords[lower] || isTheme(lower))) && !(stopWords[lower] && len(run) == 0) {
			run = append(run, w)
			continue
		}
		if len(run) > 0 && isConnector(lower) {
			run = append(run, lower)
			continue
		}
		flush()
		if stopWords[lower] || utf8.RuneCountInString(lower) < 2 || isNumber(lower) {
			continue
		}
		if isTheme(lower) {
			k.high.add(lower)
		} else {
			k.low.add(lower)
		}
	}
	flush()
}

func isConnector(w string) bool {
	return w == "of" || w == "the" || w == "de" || w == "von" || w == "van"
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func stripPossessive(w string) string {
	for _, s := range []string{"'s", "’s"} {
		if strings.HasSuffix(strings.ToLower(w), s) {
			return w[:len(w)-len(s)]
		}
	}
	return strings.TrimRight(w, "'’")
}

// isTheme tells relational, abstract and verb-like words from nouns.
func isTheme(w string) bool {
	if themeWords[w] {
		return true
	}
	for _, s := range themeSuffixes {
		if strings.HasSuffix(w, s) && len(w) > len(s)+2 {
			return true
		}
	}
	// Verb and adjective endings.
	for _, s := range []string{"ed", "ing", "ize", "ise", "ful", "ous", "ive", "ical", "ly"} {
		if strings.HasSuffix(w, s) && len(w) > len(s)+3 {
			return true
		}
	}
	return false
}

// addHan splits a run of Han characters on particles; pieces of two or more
// characters are kept, themes going to high.
func (k *keywordSet) addHan(run string) {
	for _, piece := range splitParticles(run) {
		if utf8.RuneCountInString(piece) < 2 {
			continue
		}
		theme := ""
		for _, t := range cjkThemes {
			if strings.HasSuffix(piece, t) {
				theme = t
				break
			}
		}
		switch {
		case theme == "":
			k.low.add(piece)
		case piece == theme:
			k.high.add(piece)
		default:
			// "合作关系": the whole is a theme; a leading entity-like
			// remainder of two or more characters stays low.
			k.high.add(piece)
		}
	}
}

func splitParticles(run string) []string {
	var out []string
	start := 0
	for i := 0; i < len(run); {
		matched := 0
		for _, p := range cjkParticles {
			if strings.HasPrefix(run[i:], p) {
				matched = len(p)
				break
			}
		}
		if matched == 0 {
			_, n := utf8.DecodeRuneInString(run[i:])
			i += n
			continue
		}
		if i > start {
			out = append(out, run[start:i])
		}
		i += matched
		start = i
	}
	if start < len(run) {
		out = append(out, run[start:])
	}
	return out
}
