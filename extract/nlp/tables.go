package nlp

import (
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// capSeqRE finds capitalised word sequences of a document (words may hold
// apostrophes and inner hyphens; a sequence may cross one line break).
var capSeqRE = regexp.MustCompile(`\p{Lu}[\p{L}'’]*(?:-\p{L}+)*(?:[ \t]*\n?[ \t]*\p{Lu}[\p{L}'’]*(?:-\p{L}+)*)*`)

// wordRE finds words for the case statistics.
var wordRE = regexp.MustCompile(`\b[A-Za-z][a-z]+\b`)

// docTables holds what the passes learn from a whole document.
type docTables struct {
	// aliases maps a short form (a surname, or a given name) to the full
	// person name it stands for; see buildTables.
	aliases map[string]string
	// lower and upper count a word's lower-case and capitalised uses; mid
	// counts the capitalised uses that do not open a sentence.
	lower, upper, mid map[string]int
	// persons are names and surnames the document marks as persons: after
	// a title, before "said", before "(born", or opened by a given name.
	persons map[string]bool
	// votes counts, per name, the class nouns that describe it ("is a
	// Turkish weapons manufacturer", "the band ...").
	votes map[string]*[8]int
	// bare counts the uses of a one-word person name without a woman's
	// title ("Cratchit", "Mr. Cratchit").
	bare map[string]int
	// skip are byte ranges of licence and front-matter boilerplate
	// (Project Gutenberg headers and footers), which are no content.
	skip []span
	// main is the document's main entity (the subject of its first
	// sentence, in article-sized documents), "" when it has none.
	main    string
	mainCat category
	// lead is the title-case subject that opens an article-sized
	// document ("Song of Freedom is a 1936 British film", "Between Five
	// and Seven is ..."), in document bytes; empty when there is none.
	lead span
}

// commonWord reports whether a one-word name is used more often in lower
// case than capitalised in the document ("Author", "May").
func (t *docTables) commonWord(name string) bool {
	if strings.ContainsAny(name, " ") {
		return false
	}
	l := t.lower[strings.ToLower(name)]
	return l > 0 && l >= t.upper[name]
}

// onlyInitial reports whether a one-word name is capitalised only where a
// sentence, line of dialogue or exclamation opens ("Hard and sharp as
// flint", "Foggier yet"), which is no evidence that it is a name; a
// short form of a person's full name is one wherever it stands.
func (t *docTables) onlyInitial(name string) bool {
	return !strings.ContainsAny(name, " ") && t.mid[name] == 0 && t.aliases[name] == ""
}

// kind returns the category the document gives a name: the class nouns
// that describe it, or person evidence.
func (t *docTables) kind(name string) (category, bool) {
	if v := t.votes[name]; v != nil {
		best, n := catMisc, 0
		for c, k := range v {
			if k > n {
				best, n = category(c), k
			}
		}
		if n > 0 {
			return best, true
		}
	}
	if t.persons[name] {
		return catPerson, true
	}
	return catMisc, false
}

// opensLine reports whether only spaces lie between byte i and the start
// of its line.
func opensLine(text string, i int) bool {
	for i > 0 {
		switch text[i-1] {
		case ' ', '\t':
			i--
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// describedAs reads the class noun that describes the name ending at byte
// end ("Roketsan is a major Turkish weapons manufacturer", "Schneider
// (born 1963) is a German skeleton racer", "X, a village in") or that
// introduces the name starting at byte start ("the band Naked Eyes", "the
// village of Zabiele").
func describedAs(content string, start, end int) (category, bool) {
	if c, ok := classBefore(content, start); ok {
		return c, true
	}
	return classAfter(content, end)
}

// classBefore reads the class the words before the name starting at byte
// start give it: "band X", "village of X", "published by X".
func classBefore(content string, start int) (category, bool) {
	w, e := prevWord(content, start)
	w2, e2 := prevWord(content, e-len(w))
	if orgVerbCues[w2+" "+w] {
		return catOrg, true
	}
	if w == "the" {
		// "playing for the Adler Mannheim", "joining the Christian
		// Democrats".
		if w3, _ := prevWord(content, e2-len(w2)); orgVerbCues[w3+" "+w2] || joinVerbs[w2] {
			return catOrg, true
		}
	}
	if c, ok := cueBefore(w2, w); ok {
		return c, true
	}
	if strings.EqualFold(w, "against") && scoreRE.MatchString(content[max(0, start-40):start]) {
		return catOrg, true // "lost 5–1 against Rosenborg": a team
	}
	if w == "as" && strings.ToLower(w2) == "such" {
		// "neighborhoods such as La Castellana", "bands such as X".
		if w3, _ := prevWord(content, e2-len(w2)); w3 != "" {
			if c, ok := nounClass(singular(strings.ToLower(w3))); ok && c != catMisc {
				return c, true
			}
		}
	}
	if w == "of" {
		if placeNouns[strings.ToLower(w2)] {
			return catLocation, true
		}
		if kinOf[strings.ToLower(w2)] {
			return catPerson, true // "the son of X", "the reigns of X"
		}
	} else if c, ok := nounClass(w); ok && strings.TrimSpace(content[e:start]) == "" {
		// Only after a determiner or a capitalised word: "the band X",
		// "American singer X", not "competition X"; a band, a party or a
		// singer or a capital may be qualified by lower-case words too
		// ("electronic music band X", "the political party X", "pop
		// singer X", "the regional capital X").
		if determiners[strings.ToLower(w2)] || isCap(w2) && !stopCaps[w2] || c != catMisc && modifierWord(w2) {
			return c, true
		}
	}
	return catMisc, false
}

// classAfter reads the class the words after the name ending at byte end
// give it, past a parenthesis: a word that says it ("X was founded", "the
// Lazio region"), or the class noun of "is a ...", "was an ...", ", a
// ...".
func classAfter(content string, end int) (category, bool) {
	i := end
	for i < len(content) && (content[i] == ' ' || content[i] == '\t') {
		i++
	}
	if i < len(content) && content[i] == '(' {
		k := strings.IndexByte(content[i:min(len(content), i+200)], ')')
		if k < 0 {
			return catMisc, false
		}
		i += k + 1
	}
	rest := content[i:min(len(content), i+120)]
	fields := strings.Fields(rest)
	if c, ok := cueAfter(fields); ok {
		return c, true
	}
	k, ok := appositiveStart(fields, rest)
	if !ok {
		return catMisc, false
	}
	return phraseHead(fields, k)
}

// cueAfter types a name by the words right after it (fields): "who" after
// a comma or a ruler's title before "of" make it a person, words such as
// "was founded" or "label" an organisation, a place noun a place.
func cueAfter(fields []string) (category, bool) {
	if len(fields) >= 2 && (fields[0] == "," && whoWords[fields[1]] || rulerTitles[fields[0]] && fields[1] == "of") {
		// "Red Bird, who officials believed to be the ringleader";
		// "Thranduil king of northern Mirkwood".
		return catPerson, true
	}
	if len(fields) >= 2 && orgAfterCues[strings.ToLower(fields[0]+" "+strings.TrimRight(fields[1], ",."))] {
		return catOrg, true
	}
	if len(fields) >= 1 {
		switch f := strings.TrimRight(fields[0], ",.;:"); {
		case orgAfterWords[f] && f == strings.ToLower(f):
			return catOrg, true // "on the Atlantic label", "the Sava brands", "a former X member"
		case placeNouns[f] && f == fields[0] || placeNouns[f] && strings.HasPrefix(fields[0], f):
			return catLocation, true // "the Lazio region", "the Apennine range"
		}
	}
	return catMisc, false
}

// appositiveStart returns the index in fields (the words after a name,
// rest their text) of the first word of the noun phrase that says what
// the name is: after "is a", "was an", ", the" or "is one of the".
func appositiveStart(fields []string, rest string) (int, bool) {
	if len(fields) < 3 {
		return 0, false
	}
	k := 0
	switch strings.ToLower(strings.Trim(fields[0], ",")) {
	case "is", "was", "are", "were":
		k = 1
	case "":
		k = 1 // a lone comma
	default:
		if strings.HasPrefix(fields[0], ",") {
			k = 1
		} else if !strings.HasPrefix(rest, ",") {
			return 0, false
		}
	}
	switch {
	case k < len(fields) && (fields[k] == "a" || fields[k] == "an" || fields[k] == "the"):
		return k + 1, true
	case k < len(fields)-2 && fields[k] == "one" && fields[k+1] == "of":
		return k + 3, true
	}
	return 0, false
}

// phraseHead returns the class of the noun phrase starting at fields[k]:
// that of the compound's last class noun, its head. "a Japanese video
// game developer" is a developer, "an American film director" a
// director, "a 1936 British film directed by" a film.
func phraseHead(fields []string, k int) (category, bool) {
	head, found := catMisc, false
	for n := 0; n < 8 && k < len(fields); n, k = n+1, k+1 {
		f := strings.ToLower(strings.TrimRight(fields[k], ",.;:)"))
		if (f == "and" || f == "or") && f == fields[k] && k+1 < len(fields) && !determiners[fields[k+1]] &&
			fields[k+1] == strings.ToLower(fields[k+1]) {
			continue // "a video game development and publishing company"
		}
		if phraseEnds[f] {
			break
		}
		if c, ok := nounClass(f); ok {
			head, found = c, true
		}
		if f != fields[k] && f != strings.ToLower(fields[k]) {
			break // punctuation ends the phrase
		}
	}
	return head, found
}

// cueBefore types the name after the words w2 w: "on the north by X"
// and "bordered by X" name places; "played as X", "portrayed by X" and
// "married X" people.
func cueBefore(w2, w string) (category, bool) {
	lw2, lw := strings.ToLower(w2), strings.ToLower(w)
	switch {
	case lw == "by" && (compass[lw2] || lw2 == "bordered"), placeCues[lw2+" "+lw]:
		return catLocation, true
	case personCues[lw2+" "+lw] || personCues[lw]:
		return catPerson, true
	}
	return catMisc, false
}

// scoreRE ends with a game's score and "against" ("lost 5–1 against ").
var scoreRE = regexp.MustCompile(`\d{1,3} ?[–-] ?\d{1,3}\s+against\s+(?:the\s+)?$`)

// placeCues before a name make it a place.
var placeCues = setOf("born at", "born in", "died at", "died in", "raised in", "buried in", "buried at")

// compass are the directions of "bordered on the north by X".
var compass = wordsOf(`north south east west northeast northwest southeast southwest north-east north-west south-east south-west`)

// personCues before a name make it a person.
var personCues = setOf("played as", "plays as", "starred as", "portrayed by", "voiced by", "married", "marrying", "starring")

// whoWords after a name and a comma make it a person.
var whoWords = wordsOf(`who whom`)

// rulerTitles after a name and before "of" make it a person ("Thranduil
// king of northern Mirkwood").
var rulerTitles = wordsOf(`king queen prince princess emperor empress lord lady duke duchess earl count countess chief sultan`)

// kinOf before "of" and a name make it a person ("the son of X", "during
// the reigns of Trajan").
var kinOf = wordsOf(`son daughter wife husband brother sister father mother widow widower grandson granddaughter
	nephew niece cousin uncle aunt reign reigns lover mistress disciple pupil`)

// singular returns a plural noun's singular ("cities" -> "city",
// "neighborhoods" -> "neighborhood"); other words as they are.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// phraseEnds end the noun phrase that says what a name is.
var phraseEnds = wordsOf(`in of and or who which that by from for with based on at`)

// joinVerbs before "the" and a name make it an organisation one joins
// ("joined the Navy", "joining the Christian Democrats").
var joinVerbs = wordsOf(`joined joining joins`)

// modifierWord reports a lower-case word that may qualify a class noun
// ("rock band", "political party"): letters only, no function word and
// no verb form that would make the noun its object.
func modifierWord(w string) bool {
	if len(w) < 3 || nonModifiers[w] {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// nonModifiers are lower-case words that do not qualify a class noun
// after them.
var nonModifiers = wordsOf(`the and but for nor not was were are is has had have been being this that these those
	than then when where while who whom whose which what from into onto upon with without about after before under
	over between through during against among called named became become becomes joined left formed founded
	signed led said says told asked met saw`)

// orgVerbCues before a name make it an organisation ("published by
// Square Enix", "signed to Nettwerk").
var orgVerbCues = setOf("published by", "developed by", "distributed by", "acquired by", "owned by", "released by",
	"signed to", "signed with", "subsidiary of", "merged with", "played for", "manufactured by", "operated by",
	"sponsored by", "broadcast by", "aired on", "broadcast on", "employed by", "listed on", "traded on", "plays for",
	"signed for", "transferred to", "loaned to", "playing for", "spells with", "spell with", "loan with", "sold to", "worked for", "works for", "working for")

// orgAfterWords right after a name, in lower case, make it an
// organisation.
var orgAfterWords = wordsOf(`label labels brand brands member members`)

// orgAfterCues after a name make it an organisation ("X was founded").
var orgAfterCues = setOf("was founded", "were founded", "is headquartered", "was headquartered", "was established",
	"were formed", "was incorporated", "is a subsidiary", "was acquired", "went bankrupt", "was listed")

// determiners may open a class noun before a name ("the band X").
var determiners = wordsOf(`the a an his her its their our my your by with and former late fellow`)

// nicknameRE finds a person's name with a nickname in quotes: Wilfried
// "Willi" Schneider.
var nicknameRE = regexp.MustCompile(`\p{Lu}[\p{L}'’-]+[ \t]+["“]\p{Lu}[\p{L}.'’-]*["”][ \t]+(\p{Lu}[\p{L}'’-]+)`)

// isPerson reports whether the document marks a name as a person.
func (t *docTables) isPerson(name string) bool { return t != nil && t.persons[name] }

// docKey identifies a document in the caches.
func docKey(doc extract.Document) string {
	if doc.SHA256 != "" {
		return doc.SHA256
	}
	return doc.Name + "\x00" + itoa(len(doc.Content)) + "\x00" + itoa(doc.ID)
}

// docTables returns (building once per document) the document's tables.
func (e *Extractor) docTables(doc extract.Document) *docTables {
	key := docKey(doc)
	e.mu.Lock()
	ent, ok := e.tables[key]
	if !ok {
		if len(e.tables) >= 128 {
			e.tables = map[string]*docEntry{}
		}
		ent = &docEntry{}
		e.tables[key] = ent
	}
	e.mu.Unlock()
	ent.once.Do(func() {
		t := buildTables(doc.Content)
		e.findMain(doc, t)
		ent.t = t
	})
	return ent.t
}

// gutenbergStartRE and gutenbergEndRE find the lines that open and close
// the text of a Project Gutenberg book; before and after them is licence
// and header text.
var (
	gutenbergStartRE = regexp.MustCompile(`(?im)^[ \t]*\*{3}[ \t]*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK[^\n]*$`)
	gutenbergEndRE   = regexp.MustCompile(`(?im)^[ \t]*(?:\*{3}[ \t]*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK|End of (?:the )?Project Gutenberg'?s? )`)
	producedByRE     = regexp.MustCompile(`(?m)^[ \t]*(?:Produced by|E-?text prepared by|Transcribed from|Transcriber'?s? [Nn]otes?)[^\n]*(?:\n[ \t]*\S[^\n]*)*`)
)

// boilerplate returns the byte ranges of a document that are licence or
// front matter: a Project Gutenberg header up to its START line, the
// footer from its END line, and "Produced by ..." credit paragraphs.
func boilerplate(content string) []span {
	if !strings.Contains(content, "Gutenberg") && !strings.Contains(content, "Produced by") {
		return nil
	}
	var out []span
	if m := gutenbergStartRE.FindStringIndex(content); m != nil {
		out = append(out, span{0, m[1]})
	}
	if m := gutenbergEndRE.FindStringIndex(content); m != nil {
		out = append(out, span{m[0], len(content)})
	}
	if len(out) > 0 {
		for _, m := range producedByRE.FindAllStringIndex(content, 4) {
			out = append(out, span{m[0], m[1]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// blank replaces the parts of text (which starts at byte offset at of the
// document) that fall in the skip ranges by spaces, keeping offsets. It
// reports whether anything is left.
func (t *docTables) blank(text string, at int) (string, bool) {
	if len(t.skip) == 0 {
		return text, true
	}
	var b []byte
	for _, s := range t.skip {
		lo, hi := max(s.start-at, 0), min(s.end-at, len(text))
		if lo >= hi {
			continue
		}
		if b == nil {
			b = []byte(text)
		}
		for i := lo; i < hi; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	if b == nil {
		return text, true
	}
	out := string(b)
	return out, strings.TrimSpace(out) != ""
}

// personCue reports what precedes a capitalised sequence: a title (the
// sequence is a person; female reports a woman's title) or a speech verb.
func personCue(content string, at int) (person, female bool) {
	w, end := prevWord(content, at)
	if w == "" {
		return false, false
	}
	if end < at && content[end] == '.' {
		w += "."
	}
	if personTitles[w] {
		return true, femaleTitles[w]
	}
	return false, false
}

// prevWord returns the word ending before byte at (skipping spaces) and
// the byte where it ends.
func prevWord(content string, at int) (string, int) {
	i := at
	for i > 0 && (content[i-1] == ' ' || content[i-1] == '\t' || content[i-1] == '\n') {
		i--
	}
	end := i
	if i > 0 && content[i-1] == '.' {
		i--
		end = i
	}
	j := i
	for j > 0 && isWordByte(content[j-1]) {
		j--
	}
	return content[j:i], end
}

// nextWord returns the word after byte at (skipping spaces, a comma and
// a quote).
func nextWord(content string, at int) string {
	i := at
	for i < len(content) && strings.IndexByte(" \t\n,'\"", content[i]) >= 0 {
		i++
	}
	j := i
	for j < len(content) && isWordByte(content[j]) {
		j++
	}
	return content[i:j]
}

// buildTables scans a document once: word case counts feed commonWord and
// onlyInitial; person evidence feeds isPerson and the aliases.
//
// The alias rule: a person's full name is a run of two to four capitalised
// words (leading titles, stop words and adjectives such as "Poor" removed)
// that the document marks as a person (a given name opens it, a title
// precedes it or its surname, "said" follows it) and that no place or
// organisation word ends; a run opened by a place word ("West Vancouver",
// "New Mexico") is none. Its last word (the surname) and, when it is a
// given name, its first word are short forms of it. When only one full name
// has a short form, the short form stands for it ("Lincoln" for "Abraham
// Lincoln"). When several do, the most frequent one wins if it occurs at
// least twice as often as any other ("Abraham Lincoln" four times, "Mary
// Todd Lincoln" once); otherwise the short form is ambiguous and stays a
// node of its own. A surname that a woman's title precedes ("Mrs.
// Cratchit") is not folded when titled so (see Extractor.english).
func buildTables(content string) *docTables {
	skip := boilerplate(content)
	content = maskMarkup(content)
	t := &docTables{aliases: map[string]string{}, lower: map[string]int{}, upper: map[string]int{}, mid: map[string]int{},
		persons: map[string]bool{}, bare: map[string]int{}, votes: map[string]*[8]int{}, skip: skip}
	t.countCase(content)
	seqs := t.capSequences(content)
	// Full names: multi-word person sequences.
	full := shortForms{}
	t.nicknames(content, full)
	t.givenNames(t.surnames(seqs, full), full)
	t.pickAliases(full)
	return t
}

// countCase counts the lower-case and capitalised uses of each word, and
// the capitalised ones that open no sentence or line.
func (t *docTables) countCase(content string) {
	for _, m := range wordRE.FindAllStringIndex(content, -1) {
		w := content[m[0]:m[1]]
		if !isCap(w) {
			t.lower[w]++
			continue
		}
		t.upper[w]++
		if !opensSentence(content, m[0]) && !opensLine(content, m[0]) {
			t.mid[w]++
			if base := cliticBase(w); base != "" {
				t.mid[base]++ // "Fleming's" is Fleming mid-sentence
			}
		}
	}
}

// capSeq is a capitalised word sequence of a document, trimmed to a
// name, and whether the document marks it as a person.
type capSeq struct {
	words  []string
	person bool
}

// capSequences returns the names of the document's capitalised word
// sequences, recording the class nouns that describe them and the
// persons and bare one-word names among them.
func (t *docTables) capSequences(content string) []capSeq {
	var seqs []capSeq
	for _, m := range capSeqRE.FindAllStringIndex(content, -1) {
		words, titled, female := nameWords(content, m[0], m[1])
		if len(words) == 0 {
			continue
		}
		name := strings.Join(words, " ")
		last := words[len(words)-1]
		person := t.markedPerson(content, m[0], m[1], words, titled)
		if person {
			t.persons[name] = true
			t.persons[last] = true
		}
		if len(words) == 1 && !female {
			t.bare[name]++
		}
		seqs = append(seqs, capSeq{words, person})
	}
	return seqs
}

// nameWords returns the words of the capitalised sequence content[from:to]
// that may name someone, none when nothing of it does: leading stop
// words, titles and adjectives are dropped (titled and female report a
// person's title, before the sequence or dropped from it), and a
// possessive or an all-capital heading ends it.
func nameWords(content string, from, to int) (words []string, titled, female bool) {
	words = strings.Fields(content[from:to])
	titled, female = personCue(content, from)
	// Leading stop words, titles and adjectives.
	k := 0
	for k < len(words) && (stopCaps[words[k]] || titles[words[k]] || rankWords[words[k]] || nameAdjectives[words[k]] ||
		stopCaps[cliticBase(words[k])]) {
		if titles[words[k]] && k+1 < len(words) && offices[words[k+1]] {
			break
		}
		if personTitles[words[k]] {
			titled = true
			female = femaleTitles[words[k]]
		}
		k++
	}
	words = words[k:]
	if len(words) == 0 || len(words) > 4 || repeats(words) || greetings[strings.Join(words, " ")] {
		return nil, titled, female
	}
	// A possessive or an all-capital heading ends the usable part.
	for x, w := range words {
		if strings.ContainsAny(w, "'’") || isAllCaps(w) {
			return words[:x], titled, female
		}
	}
	return words, titled, female
}

// markedPerson reports whether the document marks the name words of the
// sequence content[from:to] as a person: a title (titled), a speech verb
// or "(born" after it, or a given name opening it; a place or
// organisation word, or a class noun describing it as no person, says
// it is none. It records the class noun's vote.
func (t *docTables) markedPerson(content string, from, to int, words []string, titled bool) bool {
	name := strings.Join(words, " ")
	last := words[len(words)-1]
	person := titled
	if !person {
		nw := nextWord(content, to)
		person = speechVerbs[nw] && len(words) <= 3
		if strings.HasPrefix(strings.TrimLeft(content[to:min(len(content), to+12)], " "), "(born") ||
			strings.HasPrefix(strings.TrimLeft(content[to:min(len(content), to+12)], " "), "( born") {
			person = true
		}
	}
	if len(words) >= 2 && isGivenName(words[0]) {
		person = true
	}
	if _, ok := headCat[last]; ok || gazetteerHas(name) || placeLeads[words[0]] && !titled {
		person = false
	}
	if c, ok := describedAs(content, from, to); ok {
		v := t.votes[name]
		if v == nil {
			v = &[8]int{}
			t.votes[name] = v
		}
		v[c]++
		person = c == catPerson
	}
	return person
}

// shortForms counts, per short form of a person's name, the uses of the
// full names it may stand for.
type shortForms map[string]map[string]int

// add counts one use of name with the short form short.
func (f shortForms) add(short, name string) {
	if f[short] == nil {
		f[short] = map[string]int{}
	}
	f[short][name]++
}

// nicknames adds the names written with a nickname in quotes (Wilfried
// "Willi" Schneider): persons, their surnames strong short forms.
func (t *docTables) nicknames(content string, full shortForms) {
	for _, m := range nicknameRE.FindAllStringSubmatchIndex(content, -1) {
		name := strings.Join(strings.Fields(content[m[0]:m[1]]), " ")
		last := content[m[2]:m[3]]
		t.persons[name], t.persons[last] = true, true
		full.add(last, name)
		full.add(last, name) // a nickname marks the full name strongly
	}
}

// surnames adds the surname of each multi-word person sequence as a
// short form of it, and returns the full names each given name opens.
func (t *docTables) surnames(seqs []capSeq, full shortForms) map[string][]string {
	given := map[string][]string{}
	for _, s := range seqs {
		if len(s.words) < 2 {
			continue
		}
		name := strings.Join(s.words, " ")
		last := s.words[len(s.words)-1]
		if !s.person && !t.persons[name] && !t.persons[last] {
			continue
		}
		if _, ok := headCat[last]; ok || placeLeads[s.words[0]] || gazetteerHas(name) || stopCaps[last] || nameSuffixes[last] {
			continue
		}
		if runsOn(s.words) {
			continue
		}
		full.add(last, name)
		if isGivenName(s.words[0]) {
			given[s.words[0]] = append(given[s.words[0]], name)
		}
	}
	return given
}

// givenNames adds the given names as short forms. A given name stands
// for a full name used at least twice or whose surname is used alone
// ("Jacob" for "Jacob Marley"), not for one mentioned once in passing
// ("Joe" is not "Joe Miller"); one that is a surname stands for none.
func (t *docTables) givenNames(given map[string][]string, full shortForms) {
	for g, names := range given {
		if _, isSurname := full[g]; isSurname {
			continue
		}
		distinct := map[string]bool{}
		for _, n := range names {
			distinct[n] = true
		}
		for _, n := range names {
			if full[lastOf(n)][n] >= 2 || t.bare[lastOf(n)] >= 2 || len(distinct) == 1 {
				full.add(g, n)
			}
		}
	}
}

// pickAliases makes each short form an alias of its most used full name
// when that is used at least twice as often as any other. A given name
// that is also someone's surname is no short form of a full name opening
// with it.
func (t *docTables) pickAliases(full shortForms) {
	for short, names := range full {
		best, bestN := "", 0
		for n, c := range names {
			if c > bestN || c == bestN && n < best {
				best, bestN = n, c
			}
		}
		second := 0
		for n, c := range names {
			if n != best && c > second {
				second = c
			}
		}
		if bestN >= 2*second {
			t.aliases[short] = best
		}
	}
	// Decide on the whole table first, then delete: deleting while
	// deciding would make the outcome depend on map order.
	var drop []string
	for short, full := range t.aliases {
		if strings.HasPrefix(full, short+" ") {
			if _, isSurname := fullEndsWith(t.aliases, short); isSurname {
				drop = append(drop, short)
			}
		}
	}
	for _, short := range drop {
		delete(t.aliases, short)
	}
}

// runsOn reports a run of capitalised words that is a name run into
// another, not one person's name: a word before the last is the head of
// a place, organisation or event ("During the First World War Fleming
// served": the war, then Fleming).
func runsOn(words []string) bool {
	for _, w := range words[:len(words)-1] {
		if _, ok := headCat[w]; ok {
			return true
		}
	}
	return false
}

// lastOf returns the last word of a name.
func lastOf(name string) string { return name[strings.LastIndexByte(name, ' ')+1:] }

// fullEndsWith reports whether some alias target ends with the word w.
func fullEndsWith(aliases map[string]string, w string) (string, bool) {
	for _, f := range aliases {
		if strings.HasSuffix(f, " "+w) {
			return f, true
		}
	}
	return "", false
}

// cliticBase returns the part of a word before an apostrophe ("What's" ->
// "What"), or "" when it has none.
func cliticBase(w string) string {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		return w[:i]
	}
	return ""
}

// mainDocMax bounds the size of a document that has a main entity: an
// article or abstract, not a book.
const mainDocMax = 12000

// surnameOfMain lets the surname alone stand for the document's main
// entity, a person whose full name opens it as an article's subject does
// ("Ross Patterson Alger (…) was a politician"), when no other full name
// has taken it by being used more: in a biography "Alger" is its subject
// Ross Patterson Alger, not his brother Harry Alger named once.
func (t *docTables) surnameOfMain(content string) {
	words := strings.Fields(t.main)
	if t.mainCat != catPerson || len(words) < 2 || !allCapitalised(t.main) {
		return // "Scrooge and Marley" is a firm of two
	}
	// The first and last names alone stand for it too: "Henrik Angell"
	// for Henrik August Angell (not "Paul Desmarais" for Paul Desmarais
	// Jr., which names his father).
	if len(words) >= 3 && !nameSuffixes[words[len(words)-1]] {
		t.aliases[words[0]+" "+words[len(words)-1]] = t.main
	}
	last := words[len(words)-1]
	if _, ok := headCat[last]; ok || nameSuffixes[last] || stopCaps[last] || !isWordCap(last) {
		return
	}
	if _, taken := t.aliases[last]; !taken && !kinNamed(content, last) {
		t.aliases[last] = t.main
	}
	// So does the given name, when no one else's it is ("Ada" for Ada
	// Lovelace).
	if first := words[0]; isWordCap(first) && !titles[first] && !stopCaps[first] && !strings.HasSuffix(first, ".") {
		if _, taken := t.aliases[first]; !taken && !kinNamed(content, first) {
			t.aliases[first] = t.main
		}
	}
}

// kinNamed reports whether a surname stands alone for a relative of
// the text's subject somewhere: "son of the actor and screenwriter
// Sreenivasan" names the father, who goes by it.
func kinNamed(content, name string) bool {
	for i := 0; ; {
		k := strings.Index(content[i:], name)
		if k < 0 {
			return false
		}
		at := i + k
		i = at + len(name)
		if prevWordCap(content, at) || nextWordCap(content, i) || i < len(content) && isWordByte(content[i]) {
			continue // part of a longer name or word
		}
		before := content[max(0, at-50):at]
		if dot := strings.LastIndexAny(before, ".;"); dot >= 0 {
			before = before[dot+1:]
		}
		// The kin word must qualify the name: no clause break between
		// ("his parents in India for long periods, Turing and his
		// brother" names Turing, not a parent).
		kin := false
		for _, w := range strings.Fields(strings.ToLower(before)) {
			switch {
			case kinWords[strings.Trim(w, ",")]:
				kin = true // "son of the actor", "son, Sreenivasan"
			case strings.HasSuffix(w, ","):
				kin = false
			}
		}
		if kin {
			return true
		}
	}
}

// kinWords are the relatives a surname alone may name.
var kinWords = wordsOf(`father mother son daughter brother sister wife husband uncle aunt cousin widow widower
	grandfather grandmother grandson granddaughter nephew niece`)

// leadRE matches an opening subject: a name, an optional parenthesis,
// then a form of "to be".
var leadRE = regexp.MustCompile(`^((?:The |A |An )?)([^\s(),;:.][^(),;:]{1,100}?)\s+(?:\([^)]{0,200}\)\s+)?(?:is|was|are|were|has been|had been)\s`)

// leadSubject returns the title-case subject opening the first sentence
// of a document (from byte start), without a leading article, or an empty
// span.
func leadSubject(first string, start int) span {
	m := leadRE.FindStringSubmatchIndex(first[start:])
	if m == nil {
		return span{}
	}
	s, e := start+m[4], start+m[5]
	words := strings.Fields(first[s:e])
	if len(words) == 0 || len(words) > 10 || !isWordCap(words[0]) {
		return span{}
	}
	for _, w := range words {
		if smallWords[w] || nameConnectors[w] || !hasLetter(w) {
			continue
		}
		if !isCap(w) && !(w[0] >= '0' && w[0] <= '9') {
			return span{}
		}
	}
	if stopCaps[words[0]] || titles[words[0]] || rankWords[words[0]] || roleWords[words[0]] {
		return span{}
	}
	return span{s, e}
}

// firstLineTitle returns the span of a document's first line when it reads as
// a title: at most 120 bytes, no closing punctuation, text after it.
func firstLineTitle(content string) (span, bool) {
	start := len(content) - len(strings.TrimLeft(content, " \t\n\r\ufeff"))
	nl := strings.IndexByte(content[start:], '\n')
	if nl <= 0 || nl > 120 {
		return span{}, false
	}
	line := strings.TrimSpace(content[start : start+nl])
	body := strings.TrimSpace(content[start+nl:])
	if line == "" || strings.ContainsAny(line[len(line)-1:], ".!?:;,") || body == "" {
		return span{}, false
	}
	return span{start, start + nl}, true
}

// leadSentence returns the first sentence after a title line.
func leadSentence(content string, title span) string {
	body := strings.TrimSpace(content[title.end:])
	for _, s := range extract.Sentences(body) {
		return body[:s.End]
	}
	return body
}

// leadName returns the title-case name that opens the first sentence
// after a title line, or "".
func leadName(text string, title span) string {
	sentence := leadSentence(text, title)
	sp := leadSubject(sentence, 0)
	if sp.end <= sp.start {
		return ""
	}
	return strings.Join(strings.Fields(sentence[sp.start:sp.end]), " ")
}

// namedIn reports whether a sentence names what a title does: each of
// the title's words of three letters or more is a word of the sentence,
// in any case ("Ernest Hemingway" over "Ernest Miller Hemingway was
// ...").
func namedIn(title, sentence string) bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(sentence), notWordRune) {
		words[w] = true
	}
	named := false
	for _, w := range strings.FieldsFunc(strings.ToLower(title), notWordRune) {
		if len(w) < 3 {
			continue
		}
		if !words[w] {
			return false
		}
		named = true
	}
	return named
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// findMain sets the document's main entity: in an article-sized document
// whose first sentence opens with a name ("Wilfried Schneider (born 1963)
// is ...", "The Carey Business School is ..."), that name. Its links to
// the entities of other sentences carry a lower weight (see buildGraph).
func (e *Extractor) findMain(doc extract.Document, t *docTables) {
	content := doc.Content
	if len(content) > mainDocMax || extract.IsCJK(content) {
		return
	}
	text, ok := t.blank(maskMarkup(maskCitations(content)), 0)
	if !ok {
		return
	}
	start := len(text) - len(strings.TrimLeft(text, " \t\n\r\ufeff"))
	// A title line the text does not name again is skipped: the lead is
	// the first sentence after it. Such a title (a heading, a file's or
	// page's title: "Double Helix" over "The structure of DNA was
	// described by ...") is never the document's main entity, so it is
	// not linked to everything the document names; a title its lead
	// sentence names (every word of it: "Ernest Hemingway" over "Ernest
	// Miller Hemingway was an American novelist") is, as an article's
	// subject. (Leaving every title that the text does not repeat word
	// for word out of the main entity lost retrieval on passages titled
	// by their subject: MuSiQue ppr R@5 0.636 to 0.623, hybrid 0.508 to
	// 0.492.)
	title, titled := firstLineTitle(content)
	if titled && !namedIn(content[title.start:title.end], leadSentence(content, title)) {
		rest := text[title.end:]
		start = title.end + len(rest) - len(strings.TrimLeft(rest, " \t\n\r"))
		titled = false
	}
	end := start
	for _, s := range extract.Sentences(text[start:]) {
		end = start + s.End
		break
	}
	if end <= start {
		return
	}
	first := text[:end]
	t.lead = leadSubject(first, start)
	if t.lead.end > t.lead.start {
		if c, ok := describedAs(text, t.lead.start, t.lead.end); ok {
			name := strings.Join(strings.Fields(text[t.lead.start:t.lead.end]), " ")
			t.votes[name] = &[8]int{}
			t.votes[name][c]++
		}
	}
	ents, _, toks, _ := e.english(doc, first, 0, t)
	for _, en := range ents {
		if en.cat == catDate || en.cat == catNumber {
			continue
		}
		if en.start < start {
			continue // in the skipped title
		}
		// The name must open the sentence (after "The" at most).
		lead := 0
		for _, tk := range toks {
			if tk.start >= en.start {
				break
			}
			if tk.start >= start {
				lead++
			}
		}
		if lead <= 1 {
			t.main, t.mainCat = en.name, en.cat
			switch {
			case t.lead.end > t.lead.start && en.start <= t.lead.start && en.end >= t.lead.end:
				// An article opening "X (…) was a …" is about X.
				t.surnameOfMain(content)
			case en.cat == catPerson && titled && en.end <= title.end:
				// A person's name over a text whose first sentence names
				// them in full ("Alan Turing" over "Alan Mathison Turing
				// was ..."): the article is about them, the full name
				// is theirs.
				if full := leadName(text, title); full != "" && full != en.name && namedIn(en.name, full) {
					t.aliases[full] = en.name
				}
				t.surnameOfMain(content)
			}
		}
		return
	}
}
