package nlp

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	prose "github.com/jdkato/prose/v2"

	"github.com/kgstudio/kgstudio/extract"
)

// titles mark the following name as a person; they are not part of the
// name.
var titles = setOf("Mr.", "Mrs.", "Ms.", "Dr.", "Mr", "Mrs", "Ms", "Dr", "Miss", "Mister", "Prof.", "Professor",
	"Sir", "Lady", "Lord", "Madam", "Madame", "St.", "Saint", "King", "Queen", "Prince", "Princess", "Uncle", "Aunt",
	"President", "Captain", "General", "Colonel", "Father", "Mother", "Brother", "Sister", "Master", "Senator", "Governor")

// personTitles are the titles that do not start a place name ("St." does).
var personTitles = setOf("Mr.", "Mrs.", "Ms.", "Dr.", "Mr", "Mrs", "Ms", "Dr", "Miss", "Mister", "Prof.", "Professor",
	"Sir", "Lady", "Lord", "Madam", "Madame", "King", "Queen", "Prince", "Princess", "Uncle", "Aunt",
	"President", "Captain", "General", "Colonel", "Senator", "Governor")

// orgWords end (or start) organisation names.
var orgWords = setOf("Inc", "Inc.", "Corp", "Corp.", "Corporation", "Company", "Co.", "Ltd", "Ltd.", "LLC",
	"University", "College", "School", "Institute", "Association", "Society", "Party", "Army", "Navy",
	"Church", "Council", "Committee", "Bank", "Club", "Team", "Band", "Records", "Group", "Agency",
	"Ministry", "Department", "Union", "League", "Federation", "Foundation", "Academy", "Museum", "Press",
	"Airlines", "Airways", "FC", "Parliament", "Congress", "Senate", "Court", "Police", "Orchestra",
	"Studios", "Entertainment", "Network", "Channel", "Commission", "Office", "Brigade", "Regiment", "Division")

// placeWords end (or start) place names.
var placeWords = setOf("River", "Lake", "Mountain", "Mountains", "Mount", "Mt.", "Island", "Islands", "City",
	"County", "Street", "Road", "Square", "Park", "Bay", "Sea", "Ocean", "Valley", "State", "Province",
	"Kingdom", "Republic", "Hill", "Hills", "Desert", "Forest", "Coast", "Peninsula", "Avenue", "Lane",
	"District", "Region", "Village", "Town", "Township", "Gulf", "Strait", "Canal", "Airport", "Station",
	"Bridge", "Castle", "Palace", "Cathedral", "Abbey", "Hall", "Churchyard", "Gardens", "Market")

// greetings are capitalised phrases that name no one ("Merry
// Christmas!"): they stay concepts and never stand in for a short form.
var greetings = setOf("Merry Christmas", "Happy Christmas", "Happy New Year", "Good Morning", "Good Afternoon",
	"Good Evening", "Good Night", "Good Day", "Happy Birthday", "Happy Easter")

// feasts are named days, concepts rather than persons ("Christmas Eve").
var feasts = setOf("Christmas Eve", "Christmas Day", "New Year", "New Year's Eve", "New Year's Day",
	"Easter Sunday", "Good Friday", "Boxing Day", "Twelfth Night")

// saints are the titles that may open a place name.
var saints = setOf("St.", "St", "Saint")

// offices follow a title to form one name ("Lord Mayor", "Lord
// Chancellor"): the title then stays part of the name.
var offices = setOf("Mayor", "Mayoress", "Chancellor", "Chamberlain", "Bishop", "Justice", "Protector", "Admiral",
	"Lieutenant", "Chief", "Provost", "Steward", "Keeper", "Marshal", "Advocate", "Speaker", "Treasurer")

// speechVerbs after a name make it a person.
var speechVerbs = setOf("said", "says", "asked", "replied", "cried", "exclaimed", "answered", "whispered", "returned", "thought")

// connectors may join the words of one proper name.
var connectors = setOf("of", "de", "von", "van", "der", "den", "la", "le", "du", "da", "del", "di", "&", "y", "bin", "al")

// stopCaps are capitalised words that are not names on their own.
var stopCaps = setOf("I", "A", "An", "The", "This", "That", "These", "Those", "It", "He", "She", "We", "They",
	"You", "His", "Her", "Their", "Our", "My", "Your", "Its", "But", "And", "Or", "If", "When", "Then", "There",
	"Here", "What", "Who", "Why", "How", "Where", "Which", "Oh", "O", "Ah", "Yes", "No", "Not", "Well", "So",
	"Now", "In", "On", "At", "For", "With", "As", "By", "To", "From", "Of", "After", "Before", "While", "Upon",
	"CHAPTER", "Chapter", "STAVE", "Stave", "Mr.", "Mrs.", "Mr", "Mrs", "Dr.", "Ms.", "Miss", "Sir", "Ha", "Hallo",
	"Ay", "Aye", "Nay", "Alas", "Hush", "Come", "Let", "Look", "See", "One", "All", "Some", "Any", "Every", "Each",
	"Even", "Still", "Yet", "Nor", "Such", "Both", "Either", "Neither", "Do", "Don't", "Is", "Was", "Are")

// setOf builds a set of strings.
func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// isCap reports whether a token starts with an upper-case letter.
func isCap(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// properNounSpans finds runs of proper nouns and capitalised words within
// a sentence. Leading titles are left out of the span.
func properNounSpans(text string, toks []tok, sentOf []int) []entity {
	var out []entity
	isCand := func(i int) bool {
		t := toks[i]
		if t.start == t.end || !isCap(t.text) || !hasLetter(t.text) {
			return false
		}
		stop := stopCaps[t.text] || stopCaps[titleCase(t.text)]
		if t.tag == "NNP" || t.tag == "NNPS" {
			return !(stop && !titles[t.text])
		}
		initial := i == 0 || sentOf[i-1] != sentOf[i] || isOpener(toks[i-1].text)
		if initial || stop {
			return false
		}
		switch t.tag {
		case "NN", "NNS", "JJ", "FW", "VBN", "VBG", "JJS", "JJR", "VB", "VBP", "VBZ", "VBD", "RB", "CD":
			return true
		}
		return false
	}
	for i := 0; i < len(toks); i++ {
		if !isCand(i) {
			continue
		}
		j := i
		saint := saints[toks[i].text]
		possessive := false
		for {
			// A repeated word ends the run: "called Scrooge Scrooge" is
			// the same name twice.
			if j+1 < len(toks) && sentOf[j+1] == sentOf[i] && isCand(j+1) && toks[j+1].text != toks[j].text {
				j++
				continue
			}
			if j+2 < len(toks) && sentOf[j+2] == sentOf[i] && connectors[toks[j+1].text] && isCand(j+2) {
				j += 2
				continue
			}
			// "St. Paul's Churchyard", "Regent's Park": a possessive
			// inside a place name.
			if j+2 < len(toks) && sentOf[j+2] == sentOf[i] && toks[j+1].tag == "POS" && toks[j+1].start == toks[j].end &&
				isCand(j+2) && (saint || placeWords[toks[j+2].text]) {
				j += 2
				possessive = true
				continue
			}
			break
		}
		first := i
		// Titles are no part of a name, except before an office ("Lord
		// Mayor") and "St." in a place ("St. Paul's Churchyard").
		for first < j && titles[toks[first].text] && !offices[toks[first+1].text] &&
			!(saints[toks[first].text] && (possessive || placeWords[toks[j].text])) {
			first++
		}
		if first == j && titles[toks[first].text] {
			first++
		}
		// Drop stop words left at the edges ("The Hague" keeps its "The"
		// only when prose tags it NNP).
		for first <= j && stopCaps[toks[first].text] {
			first++
		}
		last := j
		for last >= first && (stopCaps[toks[last].text] || connectors[toks[last].text]) {
			last--
		}
		// "Author:" or "Release:" heads a field, it is no name.
		if first == last && last+1 < len(toks) && toks[last+1].text == ":" {
			first = last + 1
		}
		if first <= last {
			out = append(out, entity{start: toks[first].start, end: toks[last].end, sent: sentOf[i],
				tokFirst: first, tokLast: last})
		}
		i = j
	}
	return out
}

// titleCase turns "WORD" into "Word".
func titleCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + strings.ToLower(s[n:])
}

// isOpener reports opening quotes and brackets, after which a capital does
// not mark a name.
func isOpener(s string) bool {
	switch s {
	case "\"", "'", "(", "[", "\u201c", "\u2018", "--", "-", ":", ";":
		return true
	}
	return false
}

// hasLetter reports whether s holds a letter.
func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

const monthNames = `(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan\.|Feb\.|Mar\.|Apr\.|Jun\.|Jul\.|Aug\.|Sep\.|Sept\.|Oct\.|Nov\.|Dec\.)`

// patternRE finds dates (group 1) and numbers (group 2).
var patternRE = regexp.MustCompile(
	`(\b\d{1,2}(?:st|nd|rd|th)?\s+` + monthNames + `,?\s+\d{3,4}\b` +
		`|\b` + monthNames + `\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{3,4}\b` +
		`|\b\d{1,2}(?:st|nd|rd|th)?\s+` + monthNames + `(?:\s|$)` +
		`|\b` + monthNames + `\s+\d{1,2}(?:st|nd|rd|th)?\b` +
		`|\b` + monthNames + `\s+\d{4}\b` +
		`|\b\d{4}-\d{2}-\d{2}\b` +
		`|\b\d{1,2}(?:st|nd|rd|th)\s+century\b` +
		`|\b(?:1[0-9]{3}|20[0-9]{2})s?\b)` +
		`|(\b\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:\s*(?:%|percent|million|billion|thousand))?` +
		`|\b\d+(?:\.\d+)?(?:\s*(?:%|percent|million|billion|thousand))?)`)

// patternSpans finds dates, years and numbers.
func patternSpans(text string) []entity {
	var out []entity
	for _, m := range patternRE.FindAllStringSubmatchIndex(text, -1) {
		c := catDate
		if m[2] < 0 {
			c = catNumber
		}
		s, e := m[0], m[1]
		for e > s && unicode.IsSpace(rune(text[e-1])) {
			e--
		}
		if c == catNumber && e-s < 2 {
			continue // single digits are rarely worth a node
		}
		out = append(out, entity{start: s, end: e, cat: c, typed: true, tokFirst: -1, tokLast: -1})
	}
	return out
}

// resolve merges the candidate passes: pattern matches win over the
// proper-noun runs they overlap; typed candidates (from a recogniser) that
// overlap a run give it their category, otherwise they are added when they
// start with a capital. Names are the surface text with white space
// collapsed.
func resolve(text string, pats, cands []entity) []entity {
	var runs, ner []entity
	for _, c := range cands {
		if c.typed {
			ner = append(ner, c)
		} else {
			runs = append(runs, c)
		}
	}
	overlaps := func(a, b entity) bool { return a.start < b.end && b.start < a.end }
	// A run takes the category of the NER span over its last word, except
	// that a person label anywhere wins (prose often labels the first name
	// of "Abraham Lincoln" as a place and the surname as a person).
	nRuns := len(runs)
	for _, n := range ner {
		hit := false
		for i := 0; i < nRuns; i++ {
			if !overlaps(runs[i], n) {
				continue
			}
			hit = true
			switch {
			case !runs[i].typed, n.cat == catPerson:
				runs[i].cat, runs[i].typed = n.cat, true
			case runs[i].cat != catPerson && n.end >= runs[i].end:
				runs[i].cat = n.cat
			}
		}
		if !hit && isCap(text[n.start:n.end]) {
			runs = append(runs, n)
		}
	}
	out := append([]entity(nil), pats...)
	for _, r := range runs {
		clash := false
		for _, p := range pats {
			if overlaps(r, p) {
				clash = true
				break
			}
		}
		if !clash {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	// Drop nested or overlapping leftovers, keeping the earlier, longer one.
	kept := out[:0]
	for _, e := range out {
		if n := len(kept); n > 0 && e.start < kept[n-1].end {
			if e.end-e.start > kept[n-1].end-kept[n-1].start && e.start == kept[n-1].start {
				kept[n-1] = e
			}
			continue
		}
		kept = append(kept, e)
	}
	for i := range kept {
		kept[i].name = strings.Join(strings.Fields(text[kept[i].start:kept[i].end]), " ")
	}
	return kept
}

// correctType applies cue words to an entity found by the token passes.
func correctType(en *entity, toks []tok) {
	first, last := toks[en.tokFirst].text, toks[en.tokLast].text
	prev, next := "", ""
	if en.tokFirst > 0 {
		prev = toks[en.tokFirst-1].text
	}
	if en.tokLast+1 < len(toks) {
		next = strings.ToLower(toks[en.tokLast+1].text)
	}
	switch {
	case greetings[en.name] || feasts[en.name]:
		en.cat, en.typed = catMisc, true
	case orgWords[last] || (orgWords[first] && en.tokLast > en.tokFirst):
		en.cat, en.typed = catOrg, true
	case placeWords[last] || (placeWords[first] && en.tokLast > en.tokFirst):
		en.cat, en.typed = catLocation, true
	case personTitles[prev] || speechVerbs[next] || offices[last] && en.tokLast > en.tokFirst:
		en.cat, en.typed = catPerson, true
	case en.tokFirst > 0 && speechVerbs[strings.ToLower(prev)] && en.tokFirst == en.tokLast:
		en.cat, en.typed = catPerson, true
	}
}

// contractions spell out the clitics prose splits off ("you'll" ->
// "you", "'ll"), so labels read "will keep", never "'ll keep".
var contractions = map[string]string{"'ll": "will", "'d": "would", "'ve": "have", "'re": "are", "'m": "am",
	"'s": "is", "n't": "not", "ca": "can", "wo": "will"}

// subjectPronouns start a clause whose verb belongs to them.
var subjectPronouns = setOf("i", "you", "he", "she", "we", "they", "it", "who", "which", "that")

// verbPhrase returns the verb group between two entities in the chunk
// (byte range [from, to)), e.g. "was born in", or "".
func verbPhrase(toks []tok, from, to int) string {
	i := sort.Search(len(toks), func(i int) bool { return toks[i].start >= from })
	var words []string
	hasVerb := false
	n := 0
	prev := ""
	for ; i < len(toks) && toks[i].end <= to; i++ {
		t := toks[i]
		if n++; n > 8 {
			return ""
		}
		word := strings.ToLower(t.text)
		if full, ok := contractions[strings.ReplaceAll(word, "’", "'")]; ok {
			word = full
		}
		isVerb := strings.HasPrefix(t.tag, "VB") || t.tag == "MD"
		switch {
		case isVerb && len(words) == 0 && subjectPronouns[prev]:
			// "Scrooge, and you'll keep your Christmas": the verb is
			// the pronoun's, not the entity's.
			return ""
		case isVerb:
			hasVerb = true
			words = append(words, word)
		case len(words) > 0 && (t.tag == "RB" || t.tag == "RP" || t.tag == "TO" || t.tag == "IN"):
			words = append(words, word)
		case len(words) > 0:
			// The group ended; a later verb starts a new one.
			if hasVerb {
				return trimAdverbs(words, toks)
			}
			words = words[:0]
		}
		prev = strings.ToLower(t.text)
	}
	if !hasVerb {
		return ""
	}
	return trimAdverbs(words, toks)
}

// trimAdverbs joins the words of a verb group.
func trimAdverbs(words []string, _ []tok) string {
	return strings.Join(words, " ")
}

// aliasRE finds capitalised word sequences of a document.
var aliasRE = regexp.MustCompile(`\b[A-Z][a-z'’]+(?:[ \t]*\n?[ \t]*[A-Z][a-z'’]+)+\b`)

// wordRE finds words for the case statistics.
var wordRE = regexp.MustCompile(`\b[A-Za-z][a-z]+\b`)

// docTables holds what the passes learn from a whole document.
type docTables struct {
	// aliases maps a short form (the last word of a multi-word name) to
	// the full name it stands for; see buildTables.
	aliases map[string]string
	// lower and upper count a word's lower-case and capitalised uses; mid
	// counts the capitalised uses that do not open a sentence.
	lower, upper, mid map[string]int
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
// flint", "Foggier yet"), which is no evidence that it is a name.
func (t *docTables) onlyInitial(name string) bool {
	return !strings.ContainsAny(name, " ") && t.mid[name] == 0
}

// docTables returns (building once per document) the document's tables.
func (e *Extractor) docTables(doc extract.Document) *docTables {
	key := doc.SHA256
	if key == "" {
		key = doc.Name + "\x00" + itoa(len(doc.Content)) + "\x00" + itoa(doc.ID)
	}
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
	ent.once.Do(func() { ent.t = buildTables(doc.Content) })
	return ent.t
}

// buildTables scans a document once: word case counts feed commonWord and
// onlyInitial; aliases map a short form to a full name.
//
// The alias rule: every run of two to four capitalised words (leading
// titles and stop words removed, but a title kept before an office such as
// "Lord Mayor") is a full name for its last word. A full name whose words
// repeat ("called Scrooge Scrooge") is no full name. When only one full
// name ends with a word, the word stands for it ("Lincoln" for "Abraham
// Lincoln"). When several do, the most frequent one wins if it occurs at
// least twice as often as any other ("Abraham Lincoln" four times, "Mary
// Todd Lincoln" once); otherwise the short form is ambiguous and stays a
// node of its own.
func buildTables(content string) *docTables {
	content = maskMarkup(content)
	t := &docTables{aliases: map[string]string{}, lower: map[string]int{}, upper: map[string]int{}, mid: map[string]int{}}
	for _, m := range wordRE.FindAllStringIndex(content, -1) {
		w := content[m[0]:m[1]]
		if !isCap(w) {
			t.lower[w]++
			continue
		}
		t.upper[w]++
		if !opensSentence(content, m[0]) {
			t.mid[w]++
		}
	}
	full := map[string]map[string]int{}
	for _, m := range aliasRE.FindAllString(content, -1) {
		words := trimTitles(strings.Fields(m))
		if len(words) < 2 || len(words) > 4 || repeats(words) || greetings[strings.Join(words, " ")] {
			continue
		}
		last := words[len(words)-1]
		if stopCaps[last] || orgWords[last] || placeWords[last] || strings.ContainsAny(last, "'’") {
			continue
		}
		if full[last] == nil {
			full[last] = map[string]int{}
		}
		full[last][strings.Join(words, " ")]++
	}
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
	return t
}

// trimTitles drops leading stop words and titles from the words of a
// name, keeping a title that precedes an office ("Lord Mayor").
func trimTitles(words []string) []string {
	for len(words) > 0 && (stopCaps[words[0]] || titles[words[0]] || stopCaps[clitic(words[0])]) {
		if titles[words[0]] && len(words) > 1 && offices[words[1]] {
			break
		}
		words = words[1:]
	}
	return words
}

// clitic returns the part of a word before an apostrophe ("What's" ->
// "What"), or "" when it has none.
func clitic(w string) string {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		return w[:i]
	}
	return ""
}

// repeats reports whether a word occurs twice among words.
func repeats(words []string) bool {
	for i := 1; i < len(words); i++ {
		for j := 0; j < i; j++ {
			if words[i] == words[j] {
				return true
			}
		}
	}
	return false
}

// opensSentence reports whether the word at byte i opens a sentence: only
// spaces, quotes and brackets lie between it and the start of the text, a
// blank line, or a sentence end (".", "!", "?", ":").
func opensSentence(text string, i int) bool {
	newlines := 0
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		switch {
		case r == '\n':
			if newlines++; newlines >= 2 {
				return true
			}
		case unicode.IsSpace(r), strings.ContainsRune("'\"‘’“”([", r):
		case r == '.':
			// "Mr. Fezziwig", "J. Smith": an abbreviation, no sentence end.
			w := text[:i-n]
			k := strings.LastIndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
			w = w[k+1:]
			return !(titles[w+"."] || titles[w] || utf8.RuneCountInString(w) == 1 && isCap(w))
		case strings.ContainsRune("!?:", r):
			return true
		default:
			return false
		}
		i -= n
	}
	return true
}

// nerType asks prose's recogniser for the category of an entity, looking
// only at a window of two tokens around it within its sentence. Answers are
// cached by window text, so the result depends on the window alone.
func (e *Extractor) nerType(text string, toks []tok, sentOf []int, en entity) (category, bool) {
	f, l := en.tokFirst, en.tokLast
	for k := 0; k < 2 && f > 0 && sentOf[f-1] == sentOf[en.tokFirst]; k++ {
		f--
	}
	for k := 0; k < 2 && l+1 < len(toks) && sentOf[l+1] == sentOf[en.tokLast]; k++ {
		l++
	}
	ws := toks[f].start
	window := text[ws:toks[l].end]
	key := itoa(en.start-ws) + ":" + itoa(en.end-ws) + ":" + window
	e.nerMu.Lock()
	r, hit := e.nerCache[key]
	e.nerMu.Unlock()
	if hit {
		return r.cat, r.ok
	}
	r = e.runNER(window, en.start-ws, en.end-ws)
	e.nerMu.Lock()
	if len(e.nerCache) >= 100000 {
		e.nerCache = map[string]nerResult{}
	}
	e.nerCache[key] = r
	e.nerMu.Unlock()
	return r.cat, r.ok
}

// runNER labels a window and reads the category of the span [s, e): a
// person label anywhere wins (prose often labels the given name of "Abraham
// Lincoln" as a place and the surname as a person), else the label of the
// last labelled token.
func (e *Extractor) runNER(window string, s, end int) nerResult {
	pd, err := prose.NewDocument(window, prose.WithSegmentation(false), prose.UsingModel(e.model))
	if err != nil {
		return nerResult{}
	}
	var r nerResult
	for _, t := range alignTokens(window, pd.Tokens()) {
		if t.end <= s || t.start >= end || len(t.label) < 3 {
			continue
		}
		c, _ := labelCategory(t.label[2:])
		if r.ok && r.cat == catPerson {
			continue
		}
		r.cat, r.ok = c, true
	}
	return r
}

// itoa formats a non-negative int.
func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// cjkRE finds names in CJK text: bracketed or quoted names (group 1-4),
// dates (group 5), numbers with an optional unit (group 6) and Latin words
// (group 7).
var cjkRE = regexp.MustCompile(`《([^》\n]{1,40})》|「([^」\n]{1,40})」|“([^”\n]{1,40})”|【([^】\n]{1,40})】` +
	`|(\d{4}年(?:\d{1,2}月(?:\d{1,2}[日号])?)?|\d{1,2}月\d{1,2}[日号]|\d{4}-\d{1,2}-\d{1,2})` +
	`|(\d+(?:\.\d+)?(?:千万|百万|万|亿)?(?:%|％|美元|港元|港币|人民币|元|岁|张|首|部|场|次|集|人|名|倍|座|项)?)` +
	`|([A-Za-z][A-Za-z0-9\-\.']*[A-Za-z0-9](?: [A-Z][A-Za-z0-9\-\.']*[A-Za-z0-9])*)`)

// yearRE matches a bare number that reads as a year.
var yearRE = regexp.MustCompile(`^(?:1[5-9]\d\d|20\d\d)$`)

// cjkEntities is the pass for CJK text, which prose cannot read: titles
// in 《》 are works, other bracketed or quoted names concepts; dates, years
// and numbers with a unit ("5.6亿", "300万") are data, while bare numbers
// that are no year and ordinals ("第4") are dropped; then the document's
// person names (see buildCJKTables) and names typed by their suffix (see
// cjkPlaceSpans). Where candidates overlap, the earlier one wins, and at
// the same start the longer one.
func cjkEntities(text string, tables *cjkTables) ([]entity, []span) {
	var sents []span
	for _, s := range extract.Sentences(text) {
		sents = append(sents, span{s.Start, s.End})
	}
	var out []entity
	for _, m := range cjkRE.FindAllStringSubmatchIndex(text, -1) {
		var en entity
		switch {
		case m[2] >= 0:
			en = entity{start: m[2], end: m[3], cat: catWork, typed: true}
		case m[4] >= 0 || m[6] >= 0 || m[8] >= 0:
			for g := 2; g <= 4; g++ {
				if m[2*g] >= 0 {
					en = entity{start: m[2*g], end: m[2*g+1], cat: catMisc}
				}
			}
		case m[10] >= 0:
			en = entity{start: m[10], end: m[11], cat: catDate, typed: true}
		case m[12] >= 0:
			en = entity{start: m[12], end: m[13], cat: catNumber, typed: true}
			num := text[m[12]:m[13]]
			switch {
			case strings.HasSuffix(text[:m[12]], "第"):
				continue // an ordinal
			case strings.Trim(num, "0123456789") == "":
				if !yearRE.MatchString(num) {
					continue // a bare count, index or stray marker
				}
				en.cat = catDate
			case strings.Trim(num, "0123456789.") == "":
				continue // a bare decimal
			}
		default:
			if m[15]-m[14] < 2 {
				continue
			}
			en = entity{start: m[14], end: m[15], cat: catMisc}
		}
		en.tokFirst, en.tokLast = -1, -1
		en.name = strings.TrimSpace(text[en.start:en.end])
		if en.name == "" {
			continue
		}
		out = append(out, en)
	}
	out = append(out, cjkPersonSpans(text, tables)...)
	out = append(out, cjkPlaceSpans(text)...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].start != out[j].start {
			return out[i].start < out[j].start
		}
		return out[i].end > out[j].end
	})
	kept := out[:0]
	for _, en := range out {
		if n := len(kept); n > 0 && en.start < kept[n-1].end {
			continue
		}
		en.sent = sentAt(sents, en.start)
		kept = append(kept, en)
	}
	return kept, sents
}

// maskMarkup blanks plain-text markup so that it never becomes part of a
// name: underscores and asterisks that open or close a word (Gutenberg's
// _italics_ and *bold*) and runs of two or more hyphens used as dashes
// ("Eve--old Scrooge"). Each masked byte becomes a space, so byte offsets
// are unchanged; underscores inside a word ("snake_case") stay.
func maskMarkup(text string) string {
	if !strings.ContainsAny(text, "_*") && !strings.Contains(text, "--") {
		return text
	}
	b := []byte(text)
	wordByte := func(i int) bool {
		if i < 0 || i >= len(b) {
			return false
		}
		c := b[i]
		return c >= 0x80 || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '_', '*':
			if !(wordByte(i-1) && wordByte(i+1)) {
				b[i] = ' '
			}
		case '-':
			j := i
			for j < len(b) && b[j] == '-' {
				j++
			}
			if j-i >= 2 {
				for k := i; k < j; k++ {
					b[k] = ' '
				}
			}
			i = j - 1
		}
	}
	return string(b)
}
