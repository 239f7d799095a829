package nlp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Candidate priorities: where candidates overlap, the higher priority
// wins (then the longer, then the earlier).
const (
	prioRun     = 1 // a run of capitalised words
	prioPattern = 2 // a date or number
	prioNamed   = 3 // a run holding a number ("Studio 92", "2002 Winter Olympics")
	prioQuoted  = 4 // a title in quotes
)

// nameConnectors are lower-case particles inside one name ("Giuseppe di
// Leonessa", "Bruck an der Leitha", "Sogn og Fjordane").
var nameConnectors = wordsOf(`de del della der den di da das dos do du des la le les los von van ter ten zu zum zur am an
	im y e og och bin ibn al el bint ben ap`)

// locatorWords before a number make a page, chapter or list reference,
// which is no node ("Chapter 12", "Page 5").
var locatorWords = wordsOf(`Page Pages Chapter Chapters Stave Figure Fig. Table Section Verse Volume Vol. Part Book Act
	Scene Plate Item No. Number Line Lines Note Notes Appendix Article Paragraph Step Level Room Box Illustration`)

// degreeHeads head academic degrees ("Master of Business Administration").
var degreeHeads = wordsOf(`Master Masters Bachelor Bachelors Doctor Doctorate Diploma`)

// stopCaps are capitalised words that are not names on their own.
var stopCaps = wordsOf(`I A An The This That These Those It He She We They You His Her Their Our My Your Its But And Or If
	When Then There Here What Who Whom Whose Why How Where Which Oh O Ah Yes No Not Well So Now In On At For With As By To
	From Of After Before While Upon CHAPTER Chapter STAVE Stave Ha Hallo Ay Aye Nay Alas Hush Come Let Look See One All
	Some Any Every Each Even Still Yet Nor Such Both Either Neither Do Don't Does Did Is Was Are Were Be Been Being Has
	Have Had Will Would Shall Should Can Could May Might Must Also Although Though Because Since Until Unless Whether
	During Despite Within Without Into Onto About Above Below Under Over Between Among Through Throughout Against Along
	Across Behind Beyond Near Around However Therefore Thus Hence Meanwhile Moreover Furthermore Nevertheless Perhaps
	Indeed Many Most Much More Several Few Other Another Same Only Just Very Again Never Always Often Sometimes Once Twice
	Here Hereafter Whatever Whoever Whenever Wherever Nothing Everything Something Anything Nobody Everybody Somebody
	Anybody None Him Them Us Me Mine Yours Ours Theirs Hers Myself Yourself Himself Herself Itself Ourselves Themselves
	Yes Ok OK Okay Please Thanks Why Dear List Bah Pooh Halloa Ho Hey Eh Oho Aha Hurrah Huzzah Lo Hem Ahem
	Later Afterwards Eventually Subsequently Initially Finally Soon Shortly Together Instead Otherwise Likewise`)

// isWordCap reports whether a token starts with an upper-case letter and
// holds a letter.
func isWordCap(s string) bool { return isCap(s) && hasLetter(s) }

// runBuilder finds name candidates in one tagged chunk.
type runBuilder struct {
	text   string
	toks   []tok
	sentOf []int
	tables *docTables
}

// startsSentence reports whether token i opens its sentence or follows an
// opening quote, bracket or dash.
func (b *runBuilder) startsSentence(i int) bool {
	return i == 0 || b.sentOf[i-1] != b.sentOf[i] || isOpener(b.toks[i-1].text)
}

// isCand reports whether token i can be part of a name.
func (b *runBuilder) isCand(i int) bool {
	t := b.toks[i]
	if t.start == t.end || !isWordCap(t.text) {
		return false
	}
	if isInitial(t.text) {
		return true
	}
	if strings.ContainsAny(t.text, "'’") && clitic(t.text) > 0 {
		return false // "I'd", "Marley's" kept whole by the tagger
	}
	stop := stopCaps[t.text] || stopCaps[titleCase(t.text)]
	if titles[t.text] {
		return true
	}
	if t.tag == "NNP" || t.tag == "NNPS" {
		return !stop
	}
	if stop {
		return false
	}
	if b.startsSentence(i) {
		// A sentence's first word is a name when it is a short form of a
		// person the document names in full ("Fleming studied ...").
		return b.tables != nil && b.tables.aliases[t.text] != ""
	}
	switch t.tag {
	case "NN", "NNS", "JJ", "FW", "VBN", "VBG", "JJS", "JJR", "VB", "VBP", "VBZ", "VBD", "RB", "CD", "IN", "PRP", "UH":
		return true
	}
	return false
}

// same reports whether tokens i and j are in one sentence.
func (b *runBuilder) same(i, j int) bool {
	return j < len(b.toks) && b.sentOf[i] == b.sentOf[j]
}

// adjacent reports whether tokens i and j are separated by spaces or
// tabs only (at most one line break). A name runs on over a line break in
// wrapped prose ("visited Ebenezer\nScrooge"), not out of a line of
// capitalised words alone, a title over its text ("Demon Dice\nDemon
// Dice, originally published as ...").
func (b *runBuilder) adjacent(i, j int) bool {
	gap := b.text[b.toks[i].end:b.toks[j].start]
	switch strings.Count(gap, "\n") {
	case 0:
		return strings.TrimSpace(gap) == ""
	case 1:
		return strings.TrimSpace(gap) == "" && !titleLine(b.text[strings.LastIndexByte(b.text[:b.toks[i].end], '\n')+1:b.toks[i].end])
	}
	return false
}

// titleLine reports whether a line (up to a name's end) is made of
// capitalised words and the small words of titles ("History of English
// Food"): no other word of it opens in lower case.
func titleLine(line string) bool {
	for _, w := range strings.Fields(line) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsLower(r) && !titleWords[w] {
			return false
		}
	}
	return true
}

// ofWords join a name's head to what it is of.
var ofWords = map[string]bool{"of": true, "der": true, "des": true, "de": true, "du": true, "di": true, "del": true,
	"della": true, "dello": true, "degli": true}

// titleWords are the lower-case words titles and names hold.
var titleWords = map[string]bool{"of": true, "the": true, "and": true, "for": true, "in": true, "on": true, "at": true,
	"a": true, "an": true, "to": true, "de": true, "del": true, "della": true, "di": true, "da": true, "von": true,
	"van": true, "der": true, "den": true, "du": true, "la": true, "le": true, "les": true, "y": true, "und": true,
	"ap": true, "bin": true, "ibn": true, "al": true, "el": true}

// isHyphen reports a hyphen token joining two name parts, written "X-Y"
// or spaced "X - Y".
func isHyphen(s string) bool { return s == "-" || s == "‐" }

// spans returns the name candidates of the chunk, before typing.
func (b *runBuilder) spans() []entity {
	var out []entity
	toks := b.toks
	for i := 0; i < len(toks); i++ {
		if !b.isCand(i) {
			continue
		}
		j, dash := b.extend(i)
		out = append(out, b.finish(i, j, dash)...)
		i = j
	}
	return out
}

// extend grows a run from token i and returns its last token and the
// index of an en dash inside it (-1 when none).
func (b *runBuilder) extend(i int) (int, int) {
	toks := b.toks
	j, dash := i, -1
	saint := saints[toks[i].text]
	for {
		switch {
		// A repeated word ends the run: "called Scrooge Scrooge" is the
		// same name twice.
		case b.same(i, j+1) && b.adjacent(j, j+1) && b.isCand(j+1) && toks[j+1].text != toks[j].text:
			j++
			continue
		// A nickname in quotes between two names: Wilfried "Willi"
		// Schneider.
		case b.same(i, j+4) && isQuote(toks[j+1].text) && b.isCand(j+2) && isQuote(toks[j+3].text) && b.isCand(j+4) &&
			!stopCaps[toks[j+4].text] && toks[j+2].start == toks[j+1].end && toks[j+3].start == toks[j+2].end:
			j += 4
			continue
		case b.same(i, j+2) && b.isCand(j+2) && (nameConnectors[toks[j+1].text] || toks[j+1].text == "&"):
			j += 2
			continue
		case b.same(i, j+2) && b.isCand(j+2) && isHyphen(toks[j+1].text) && isWordCap(toks[j].text):
			j += 2
			continue
		// "Kang Won - yong", "Middle - earth": a short lower-case part after
		// a hyphen.
		case b.same(i, j+2) && isHyphen(toks[j+1].text) && isWordCap(toks[j].text) && !isCap(toks[j+2].text) &&
			len(toks[j+2].text) <= 6 && hasLetter(toks[j+2].text) && !smallWords[toks[j+2].text] &&
			(toks[j+2].tag == "NN" || toks[j+2].tag == "JJ" || toks[j+2].tag == "FW" || toks[j+2].tag == "NNS"):
			j += 2
			continue
		case b.same(i, j+2) && b.isCand(j+2) && (toks[j+1].text == "–" || toks[j+1].text == "—") && dash < 0:
			dash = j + 1
			j += 2
			continue
		// "Nobel Prize in Physics", "Academy Award for Best Director": a
		// prize named by its field.
		case b.same(i, j+2) && (toks[j+1].text == "in" || toks[j+1].text == "for") && prizeHeads[toks[j].text] && b.isCand(j+2):
			j += 2
			continue
		// "Institute for Advanced Study", "National Council for Peace
		// and Order": a body named by what it is for.
		case b.same(i, j+2) && toks[j+1].text == "for" && forHeads[toks[j].text] && b.isCand(j+2):
			j += 2
			continue
		// "Baltimore and Ohio Railroad Company", "Ministry of Education
		// and Research": "and" inside an organisation's name.
		case b.same(i, j+2) && toks[j+1].text == "and" && b.andJoins(i, j):
			j = b.andEnd(j + 2)
			continue
		case b.same(i, j+2) && toks[j+1].text == "of" && b.ofHead(i, j):
			k := j + 2
			if toks[k].text == "the" && b.same(i, k+1) {
				k++
			}
			if b.isCand(k) || k < len(toks) && toks[k].text == "The" {
				j = k
				continue
			}
		// "St. Paul's Churchyard", "Regent's Park", "People's Republic":
		// a possessive inside a place name.
		case b.same(i, j+2) && toks[j+1].tag == "POS" && toks[j+1].start == toks[j].end && b.isCand(j+2) &&
			(saint || placeHeads[toks[j+2].text] && !b.isCandAt(j+3) || possessiveHeads[toks[j+2].text]):
			j += 2
			continue
		}
		return j, dash
	}
}

// andEnd returns the last token of the run of name words from k.
func (b *runBuilder) andEnd(k int) int {
	for b.same(k, k+1) && b.adjacent(k, k+1) && b.isCand(k+1) {
		k++
	}
	return k
}

// andJoins reports whether the run toks[i..j] goes on over "and" to the
// name words after it: they end in an organisation's head word and the
// run has none of its own ("Nose and Ear Hospital", "Foreign and
// Commonwealth Office"), or the run is an organisation's head and what it
// is of or for ("Ministry of Education and Research") and no part is a
// known place or person ("the University of Chicago and Northwestern" are
// two).
func (b *runBuilder) andJoins(i, j int) bool {
	toks := b.toks
	if !b.isCand(j + 2) {
		return false
	}
	end := b.andEnd(j + 2)
	orgHead := func(k int) bool {
		c, ok := headCat[toks[k].text]
		return ok && c == catOrg
	}
	if orgHead(j) {
		return false // "Microsoft Corporation and Google ..."
	}
	if orgHead(end) {
		for k := i; k <= j; k++ {
			if orgHead(k) {
				return false
			}
		}
		return true
	}
	ofAt := -1
	for k := i + 1; k < j; k++ {
		if (toks[k].text == "of" || toks[k].text == "for") && orgHead(k-1) {
			ofAt = k
		}
	}
	if ofAt < 0 || end != j+2 || gazetteerHas(toks[j].text) || gazetteerHas(toks[end].text) ||
		isGivenName(toks[end].text) || b.tables != nil && b.tables.isPerson(toks[end].text) {
		return false
	}
	return !b.same(end, end+1) || toks[end+1].text != "of"
}

// possessiveHeads are institutions named with a possessive ("King's
// College London", "Queen's University", "Children's Hospital", "People's Party").
var possessiveHeads = wordsOf(`College University Hospital School Church Cathedral Academy Party Republic Army Front Committee
	Movement Congress League Council Assembly`)

// forHeads are the words a body's name ends in before "for" and what it
// is for.
var forHeads = wordsOf(`Council Center Centre Institute Society Committee Foundation Agency Commission Organization
	Organisation Association Union Alliance Coalition Movement Fund Office Bureau Department Ministry Federation League`)

// prizeHeads are the words a prize's name ends in before its field.
var prizeHeads = wordsOf(`Prize Award Medal Trophy`)

// isQuote reports a double quote token.
func isQuote(s string) bool { return s == "\"" || s == "“" || s == "”" || s == "``" || s == "''" }

// isCandAt is isCand with a bounds check.
func (b *runBuilder) isCandAt(i int) bool { return i < len(b.toks) && b.isCand(i) }

// ofHead reports whether the run toks[i..j] may continue with "of": its
// last word heads an organisation, place, event or degree ("Bank of",
// "Gulf of", "Treaty of", "Master of", "House of"), or is a regnal number
// ("Philip V of Spain").
func (b *runBuilder) ofHead(i, j int) bool {
	w := b.toks[j].text
	if _, ok := headCat[w]; ok {
		return !titles[w] || w == "Order"
	}
	if degreeHeads[w] || w == "House" || (j > i && nameSuffixes[w] && w != "X") {
		return true
	}
	// A single common noun: "Ghost of Christmas Past", "Song of Freedom".
	return i == j && !titles[w] && !rankWords[w] && !roleWords[w] && !isGivenName(w) && !b.tables.isPerson(w) && !gazetteerHas(w) && w != "List" &&
		(b.toks[j].tag == "NN" || b.toks[j].tag == "NNS" || b.tables.lower[strings.ToLower(w)] > 0)
}

// finish trims the run toks[i..j] into zero or more candidates: titles and
// ranks before a name go to the title property, a nationality before a
// title or person is a place of its own, an adjective before a known
// person is dropped ("Poor Bob"), all-capital headings are dropped, and a
// run holding an en dash is cut there unless its last word heads a name
// ("Australia – Chile Free Trade Agreement").
func (b *runBuilder) finish(i, j, dash int) []entity {
	toks := b.toks
	if dash >= 0 {
		if _, ok := headCat[toks[j].text]; !ok {
			return append(b.finish(i, dash-1, -1), b.finish(dash+1, j, -1)...)
		}
	}
	if b.shouting(i, j) || b.onlyInitials(i, j) {
		return nil
	}
	first, last := b.trimEdges(i, j)
	if first > last || b.onlyRoles(first, last) {
		return nil
	}
	var out []entity
	// A nationality before a title, a person or another nationality is
	// a place of its own ("Malaysian Prime Minister", "Minnesotan Peter
	// Ostroushko", "Soviet Armenian Grandmaster").
	for first < last && (demonyms[toks[first].text] || partyWords[toks[first].text]) && b.splitsFrom(first+1) &&
		!multiDemonyms[toks[first].text+" "+toks[first+1].text] && !religionsMulti[toks[first].text+" "+toks[first+1].text] {
		out = append(out, b.cand(first, first, ""))
		first++
	}
	// A title inside the run starts the person's name: "Bourbon King
	// Philip V of Spain" gives "Bourbon" and "Philip V of Spain".
	if k := b.innerTitle(first, last); k >= 0 {
		out = append(out, b.finish(first, k-1, -1)...)
		return append(out, b.finish(k, last, -1)...)
	}
	// Adjectives before a person ("Poor Bob", "Old Marley", "Up
	// Scrooge").
	for first < last && nameAdjectives[toks[first].text] && b.personAhead(first+1, last) {
		first++
	}
	return b.named(out, first, last)
}

// shouting reports a heading or shouting in the run toks[i..j]: two or
// more all-capital words ("PLEASE READ", "MARLEY'S GHOST", "STAVE ONE")
// in a row, or an all-capital word next to another outside the run or on
// a heading line.
func (b *runBuilder) shouting(i, j int) bool {
	toks := b.toks
	caps := 0
	for k := i; k <= j; k++ {
		if isAllCaps(toks[k].text) && !isInitial(toks[k].text) && !nameSuffixes[toks[k].text] {
			caps++
		}
	}
	return caps >= 2 || caps == 1 && (b.capsNeighbour(i-1) || b.capsNeighbour(j+1)) || caps == 1 && b.headingLine(toks[i].start)
}

// onlyInitials reports a run toks[i..j] of initials alone ("C. D."),
// which name no one the text shows.
func (b *runBuilder) onlyInitials(i, j int) bool {
	initials := true
	for k := i; k <= j && initials; k++ {
		initials = isInitial(b.toks[k].text)
	}
	return initials
}

// trimEdges drops the stop words at the edges of the run toks[i..j] and
// returns what is left ("The Hague" keeps its "The" only when the
// gazetteer knows it; "World War I" keeps its "I"); first > last when
// nothing is.
func (b *runBuilder) trimEdges(i, j int) (first, last int) {
	toks := b.toks
	first, last = i, j
	for first <= last && stopCaps[toks[first].text] && !titles[toks[first].text] {
		if first < last && gazetteerHas(b.text[toks[first].start:toks[last].end]) {
			break
		}
		first++
	}
	for last >= first && (stopCaps[toks[last].text] || nameConnectors[toks[last].text] || toks[last].text == "&" ||
		isHyphen(toks[last].text) || toks[last].text == "of" || toks[last].text == "the") {
		if toks[last].text == "I" && last > first && toks[last-1].text == "War" {
			break // "World War I"
		}
		last--
	}
	return first, last
}

// onlyRoles reports whether toks[first..last] holds titles, ranks and
// roles only, which name no one, unless an office follows a title
// ("Lord Mayor").
func (b *runBuilder) onlyRoles(first, last int) bool {
	toks := b.toks
	roles := true
	for k := first; k <= last && roles; k++ {
		w := toks[k].text
		roles = titles[w] || rankWords[w] || roleWords[w] || isHyphen(w) || nameConnectors[w] || w == "of" || w == "the"
	}
	return roles && !(first < last && titles[toks[first].text] && offices[toks[first+1].text])
}

// innerTitle returns the token of a person's title inside the run
// toks[first..last] that starts a person's name, -1 when there is none
// or the run's last word heads a name.
func (b *runBuilder) innerTitle(first, last int) int {
	toks := b.toks
	for k := first + 1; k < last; k++ {
		if personTitles[toks[k].text] && !rankWords[toks[k-1].text] && !titles[toks[k-1].text] && isWordCap(toks[k+1].text) &&
			!offices[toks[k+1].text] && !(k+1 <= last && toks[k+1].text == "of") {
			if _, ok := headCat[toks[last].text]; ok {
				return -1
			}
			return k
		}
	}
	return -1
}

// named appends to out the candidate toks[first..last] makes once its
// leading titles and ranks go to its title property, with an acronym
// before it as one of its own; a field name ("Author:"), a locator with a
// number ("Chapter 12") or a title alone make none.
func (b *runBuilder) named(out []entity, first, last int) []entity {
	toks := b.toks
	tf, ok := b.titleEnd(first, last)
	if !ok {
		// Only a title ("Chairman", "Prime Minister"): no node, unless
		// an office ("Lord Mayor").
		if first < last && offices[toks[last].text] {
			return append(out, b.cand(first, last, ""))
		}
		return out
	}
	title := ""
	if tf > first {
		title = strings.Join(strings.Fields(b.text[toks[first].start:toks[tf-1].end]), " ")
		first = tf
	}
	// "Author:" or "Release:" heads a field, it is no name.
	if first == last && last+1 < len(toks) && toks[last+1].text == ":" {
		return out
	}
	// An all-capital word before a name is an acronym of its own
	// ("NAVFORGER Rear Admiral Wilkes", "US Billboard").
	if first < last && isAllCaps(toks[first].text) && (countryCodes[toks[first].text] || titles[toks[first+1].text] ||
		rankWords[toks[first+1].text]) {
		out = append(out, b.cand(first, first, ""))
		first++
		for first <= last && (titles[toks[first].text] || rankWords[toks[first].text]) {
			if title == "" {
				title = toks[first].text
			} else {
				title += " " + toks[first].text
			}
			first++
		}
		if first > last {
			return out
		}
	}
	// A locator with a number is no name ("Chapter 12").
	if first == last && locatorWords[toks[first].text] && last+1 < len(toks) && toks[last+1].tag == "CD" {
		return out
	}
	// A name heading a programme or mission is its name ("the Apollo
	// program", not Apollo the god).
	if last+1 < len(toks) && b.same(last, last+1) && b.adjacent(last, last+1) && lowerHeads[toks[last+1].text] != "" {
		last++
	}
	return append(out, b.cand(first, last, title))
}

// titleEnd returns where the name after the titles and ranks that open
// toks[first..last] starts (first when none go to the title property),
// or false when the run is titles alone. An office after a title stays
// ("Lord Mayor"), "St." stays in a place ("St. Paul's Churchyard"), and
// so do the titles of a name whose head is a place or organisation
// ("General Motors", "King's College").
func (b *runBuilder) titleEnd(first, last int) (int, bool) {
	toks := b.toks
	tf := first
	for tf <= last && (titles[toks[tf].text] || rankWords[toks[tf].text] && tf < last && b.titleAt(tf+1, last)) &&
		!(tf < last && toks[tf+1].tag == "POS") { // "King's College" names no king
		tf++
	}
	if tf == first {
		if r := b.roleEnd(first, last); r > first {
			return r, true // "Director Anurag Kashyap"
		}
		return tf, true
	}
	switch {
	case tf <= last && offices[toks[tf].text] && tf == first+1:
		return first, true // "Lord Mayor"
	case saints[toks[first].text] && tf <= last:
		return first, true // "St. Paul's Churchyard", "Saint Lucia"
	case tf > last:
		return tf, false
	case b.headOf(tf, last) != catMisc || gazetteerHas(b.text[toks[first].start:toks[last].end]):
		return first, true // "General Motors", "King's College", "Prince Edward Island"
	}
	return tf, true
}

// lowerHeads are the heads a name takes in lower case ("Apollo program",
// "Manhattan Project" written "Manhattan project"), as miscHeads write
// them.
var lowerHeads = map[string]string{"program": "Program", "programme": "Programme", "project": "Project", "mission": "Mission",
	"campaign": "Campaign"}

// headingLine reports whether the line holding byte at has letters but
// none in lower case: a heading ("A CHRISTMAS CAROL", "CONTENTS").
func (b *runBuilder) headingLine(at int) bool {
	s := strings.LastIndexByte(b.text[:at], '\n') + 1
	e := strings.IndexByte(b.text[at:], '\n')
	if e < 0 {
		e = len(b.text)
	} else {
		e += at
	}
	for _, r := range b.text[s:e] {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// capsNeighbour reports whether token k is an all-capital word.
func (b *runBuilder) capsNeighbour(k int) bool {
	return k >= 0 && k < len(b.toks) && isAllCaps(b.toks[k].text) && hasLetter(b.toks[k].text) && !isInitial(b.toks[k].text)
}

// splitsFrom reports whether the word at k makes a nationality before it
// a name of its own: a title, a rank, a given name, a faith or another
// nationality.
func (b *runBuilder) splitsFrom(k int) bool {
	w := b.toks[k].text
	return titles[w] || rankWords[w] && b.titleAt(k, len(b.toks)-1) || isGivenName(w) || religions[w] || demonyms[w] || partyWords[w] ||
		b.tables.isPerson(w)
}

// titleAt reports whether a title follows (after more ranks) at k.
// roleEnd returns where a person's name starts after an office held
// before it, the run's last role word with two name words or more after
// it ("National Security Advisor James L. Jones", "Director Anurag
// Kashyap"), or -1. A run with a head word ("Art Director Magazine",
// "University Director Office") is the name of something else.
func (b *runBuilder) roleEnd(first, last int) int {
	toks := b.toks
	for k := first; k <= last; k++ {
		if _, ok := headCat[toks[k].text]; ok || toks[k].text == "of" {
			return -1
		}
	}
	for k := last - 2; k >= first; k-- {
		if roleWords[toks[k].text] {
			return k + 1
		}
	}
	return -1
}

func (b *runBuilder) titleAt(k, last int) bool {
	for ; k <= last; k++ {
		if titles[b.toks[k].text] {
			return true
		}
		if !rankWords[b.toks[k].text] {
			return false
		}
	}
	return false
}

// personAhead reports whether the words first..last start with a person:
// a given name, a title, or a name the document knows as a person.
func (b *runBuilder) personAhead(first, last int) bool {
	w := b.toks[first].text
	if isGivenName(w) || titles[w] {
		return true
	}
	name := strings.Join(strings.Fields(b.text[b.toks[first].start:b.toks[last].end]), " ")
	return b.tables.isPerson(name)
}

// headOf returns the category of the head word of toks[first..last]: the
// word before the first "of" (or its German, French, Italian or Spanish
// form: "Annalen der Physik"), else the last word.
func (b *runBuilder) headOf(first, last int) category {
	head := last
	for k := first + 1; k < last; k++ {
		if ofWords[b.toks[k].text] {
			head = k - 1
			break
		}
	}
	if c, ok := headCat[headWord(b.toks[head].text)]; ok {
		return c
	}
	return catMisc
}

// headWord is a word as headCat knows it: a lower-case head
// (lowerHeads) as it is written in names.
func headWord(w string) string {
	if h := lowerHeads[w]; h != "" {
		return h
	}
	return w
}

// cand makes a candidate of toks[first..last]. A capital "The" right
// before it inside a sentence is part of the name ("The Scotsman", "The
// Everly Brothers"); a small "the" is not ("moved to the United States"
// names the United States of "United States v. Nixon").
func (b *runBuilder) cand(first, last int, title string) entity {
	if title == "" && first > 0 && b.same(first-1, first) {
		switch p := b.toks[first-1].text; {
		case p == "The" && !b.startsSentence(first-1):
			first--
		}
	}
	return entity{start: b.toks[first].start, end: b.toks[last].end, sent: b.sentOf[first], tokFirst: first, tokLast: last,
		prio: prioRun, title: title}
}

// namedNumbers joins a number to the name before it ("Studio 92",
// "Billboard Hot 100", "Atari 2600") and a year to the event after it
// ("2002 Winter Olympics"): such a candidate outranks the number alone.
func (b *runBuilder) namedNumbers(runs []entity) []entity {
	toks := b.toks
	for k := range runs {
		r := &runs[k]
		if r.title != "" || r.tokFirst < 0 {
			continue
		}
		l := r.tokLast
		n := l + 1
		if n < len(toks) && b.same(l, n) && toks[n].tag == "CD" && isDigits(toks[n].text) && len(toks[n].text) <= 4 &&
			!yearLike(toks[n].text) &&
			b.text[toks[l].end:toks[n].start] == " " && !monthWords[toks[l].text] && !weekdays[toks[l].text] && !locatorWords[toks[l].text] &&
			!isAllCaps(toks[l].text) && !(n+1 < len(toks) && (isUnitWord(toks[n+1].text) || toks[n+1].text == ",")) {
			r.end, r.tokLast, r.prio = toks[n].end, n, prioNamed
		}
		f := r.tokFirst - 1
		if f >= 0 && b.same(f, r.tokFirst) && len(toks[f].text) == 4 && isDigits(toks[f].text) && eventNouns[toks[r.tokLast].text] &&
			b.adjacent(f, r.tokFirst) {
			r.start, r.tokFirst, r.prio, r.cat, r.typed = toks[f].start, f, prioNamed, catMisc, true
		}
	}
	return runs
}

// yearLike reports a number that reads as a year (1500-2099).
func yearLike(s string) bool {
	return len(s) == 4 && (s[0] == '1' && s[1] >= '5' || s[0] == '2' && s[1] == '0')
}

// isDigits reports a non-empty string of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// smallWords may stay lower case in a title ("Take a Letter", "Song of
// Freedom").
var smallWords = wordsOf(`a an the and but or nor for of in on at to by with from as into onto over up out off via per vs
	is are was be de la le el del der und et y n't 's 're 'm 've 'll 'd na`)

// quotedTitles finds titles in double quotes: two to twelve words in title
// case ("Take a Letter Miss Smith", “Here You Come Again”), or one
// capitalised word that is neither a nickname inside a name nor speech.
func quotedTitles(text string) []entity {
	var out []entity
	for i := 0; i < len(text); {
		open, n := utf8.DecodeRuneInString(text[i:])
		if open != '"' && open != '“' {
			i += n
			continue
		}
		closer := '"'
		if open == '“' {
			closer = '”'
		}
		s := i + n
		e := strings.IndexRune(text[s:], closer)
		if e < 0 {
			break
		}
		e += s
		inner := text[s:e]
		next := e + utf8.RuneLen(closer)
		if en, ok := quotedTitle(text, s, e, inner); ok {
			out = append(out, en)
		}
		i = next
	}
	return out
}

// quotedTitle checks the text between two quotes.
func quotedTitle(text string, s, e int, inner string) (entity, bool) {
	if len(inner) > 100 || strings.ContainsAny(inner, "\n!?;:") {
		return entity{}, false
	}
	// Trim white space and a comma or period set inside the quotes.
	ts, te := s, e
	for ts < te && (text[ts] == ' ' || text[ts] == '\t') {
		ts++
	}
	for te > ts && strings.ContainsRune(" \t,.", rune(text[te-1])) {
		te--
	}
	if ts >= te {
		return entity{}, false
	}
	words := strings.Fields(text[ts:te])
	if len(words) == 0 || len(words) > 12 || !isWordCap(words[0]) {
		return entity{}, false
	}
	for _, w := range words {
		w = strings.Trim(w, ",()")
		if w == "" || smallWords[strings.ToLower(w)] || !hasLetter(w) {
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return entity{}, false
		}
	}
	if strings.ContainsAny(text[ts:te], ".,") && len(words) < 3 {
		return entity{}, false
	}
	if len(words) <= 3 && isGivenName(strings.Trim(words[len(words)-1], ",")) {
		return entity{}, false // a nickname: Tim Cratchit ("Tiny Tim")
	}
	if len(words) == 1 {
		// A nickname between the names of a person (Wilfried "Willi"
		// Schneider) or a single word of speech is no title.
		if prevWordCap(text, s-1) || nextWordCap(text, e+1) || stopCaps[words[0]] {
			return entity{}, false
		}
	}
	return entity{start: ts, end: te, cat: catMisc, typed: true, strong: true, tokFirst: -1, tokLast: -1, prio: prioQuoted}, true
}

// prevWordCap reports whether the word ending before byte i is
// capitalised.
func prevWordCap(text string, i int) bool {
	w := strings.TrimRight(text[:max(i, 0)], " \t")
	k := strings.LastIndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
	return k < len(w)-1 && isCap(w[k+1:])
}

// nextWordCap reports whether the word starting after byte i is
// capitalised.
func nextWordCap(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	w := strings.TrimLeft(text[i:], " \t")
	return isCap(w) && !stopCaps[firstWord(w)]
}

// firstWord returns the leading letters of s.
func firstWord(s string) string {
	k := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if k < 0 {
		return s
	}
	return s[:k]
}
