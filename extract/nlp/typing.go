package nlp

import (
	"strings"
)

// Evidence strengths for a mention's category; the per-name vote weighs
// mentions by them.
const (
	evDefault = 0 // no evidence: Concept
	evNER     = 1 // prose's recogniser alone
	evContext = 2 // a cue around the mention or in the document
	evName    = 3 // the name itself: a head word, the gazetteer, a title
)

// nameCue types an entity from the name alone: greetings and feasts are
// concepts; the gazetteer; "&" makes an organisation; the head word
// ("Bank of England", "Salt Lake City", "Treaty of Paris"); an acronym is
// an organisation; a title before it, a suffix ("Jr.", "III"), an initial
// or a given name opening it make a person.
func nameCue(text string, en *entity, toks []tok) (category, bool) {
	name := en.name
	switch {
	case greetings[name] || feasts[name]:
		return catMisc, true
	}
	next := ""
	if en.tokFirst >= 0 && en.tokLast+1 < len(toks) {
		next = toks[en.tokLast+1].text
	}
	if c, ok := gazetteer(name); ok {
		if c == catLocation && pluralOfName(en, toks) {
			return catMisc, true // "Queens of Sheba", "Kings of Israel"
		}
		if next == "label" || next == "labels" || next == "brand" || next == "brands" {
			return catOrg, true // "on the Atlantic label": a record label, not the ocean
		}
		return c, true
	}
	if en.tokFirst < 0 {
		return catMisc, false
	}
	// "the Democratic nomination", "a Republican senator": the party.
	if en.tokFirst == en.tokLast && partyAdjectives[name] && partyNouns[strings.ToLower(next)] {
		return catOrg, true
	}
	f, l := en.tokFirst, en.tokLast
	if strings.Contains(name, " & ") || strings.Contains(name, "&") && f < l {
		return catOrg, true
	}
	// A sports club's initials open its name: "FK Partizan", "FC Porto".
	if f < l && clubPrefixes[toks[f].text] {
		return catOrg, true
	}
	// A title before an office: "Lord Mayor", "Lord Chancellor".
	if f < l && titles[toks[f].text] && offices[toks[f+1].text] {
		return catPerson, true
	}
	// Degrees: "Master of Business Administration".
	if degreeHeads[toks[f].text] && f+1 < l && toks[f+1].text == "of" {
		return catMisc, true
	}
	if toks[f].text == "House" && f+1 < l && toks[f+1].text == "of" {
		return catOrg, true // "House of Representatives", "House of Windsor"
	}
	if toks[f].text == "List" && f+1 < l && toks[f+1].text == "of" {
		return catMisc, true // "List of Taito games"
	}
	// Head word: the rightmost word that heads names ("Loyola University
	// Chicago", "Rhine River Patrol", "Bank of England"); one word alone
	// ("Party", "River") is too weak a cue.
	if f < l {
		top := l
		for k := f + 1; k < l; k++ {
			if ofWords[toks[k].text] {
				// "DePaul University School of Law": a head before "of"
				// wins over words after it.
				for h := k - 1; h >= f; h-- {
					if _, ok := headCat[headWord(toks[h].text)]; ok {
						top = k - 1
						break
					}
				}
				break
			}
		}
		for k := top; k >= f; k-- {
			if c, ok := headCat[headWord(toks[k].text)]; ok && !(k == f && titles[toks[k].text]) {
				// A place word opening a longer name heads it only as
				// "Lake Placid" or "River Thames" do; "Square Enix" is
				// no square.
				if c == catLocation && k == f && k < top && !placeFirst[toks[k].text] {
					continue
				}
				// A place word followed by other words names something
				// after the place: "Kansas City Kings".
				if c == catLocation && k < top && k > f && isWordCap(toks[k+1].text) && !nameConnectors[toks[k+1].text] {
					return catOrg, true
				}
				return c, true
			}
		}
	}
	if f == l && isAllCaps(toks[f].text) && len(toks[f].text) <= 12 && !nameSuffixes[toks[f].text] && !isInitial(toks[f].text) {
		return catOrg, true
	}
	if f < l && placeFirst[toks[f].text] {
		return catLocation, true
	}
	if en.title != "" {
		return catPerson, true
	}
	if f < l && nameSuffixes[toks[l].text] && (isGivenName(toks[f].text) || toks[l].text != "I") {
		return catPerson, true
	}
	if f < l {
		for k := f; k < l; k++ {
			if isInitial(toks[k].text) && len(toks[k].text) <= 4 && !countryCodes[toks[k].text] {
				if _, ok := headCat[toks[l].text]; !ok {
					return catPerson, true
				}
			}
		}
		if isGivenName(toks[f].text) && !placeLeads[toks[f].text] {
			return catPerson, true
		}
		// A given name after a nickname word: "Tiny Tim", "Little John".
		if isGivenName(toks[l].text) && !placeLeads[toks[f].text] && !placeFirst[toks[f].text] && !saints[toks[f].text] {
			return catPerson, true
		}
		// A club prefix or suffix ("FK Teleoptik", "Graz EC").
		for _, k := range []int{f, l} {
			w := toks[k].text
			if isAllCaps(w) && len(w) <= 4 && !countryCodes[w] && !nameSuffixes[w] && !commonAcronyms[w] && !isInitial(w) {
				return catOrg, true
			}
		}
	}
	return catMisc, false
}

// pluralWord reports a capitalised word shaped like an English plural
// ("Apostles", "Abrahams", "Belshazzars"): at least four letters, ending
// in "s" after a letter other than s, u, i, a or o ("Hess", "Cyprus",
// "Paris", and the Romance "Alcobendas", "Santos" are none).
func pluralWord(w string) bool {
	n := len(w)
	if n < 4 || w[n-1] != 's' || !isWordCap(w) {
		return false
	}
	switch c := w[n-2]; {
	case strings.IndexByte("suiao", c) >= 0:
		return false
	case c < 'a' || c > 'z':
		return false
	}
	return true
}

// pluralListed reports whether ents[i] is a one-word plural (see
// pluralWord) in a list (entities of one sentence separated only by
// commas, "and" or "or") that holds another one.
func pluralListed(text string, ents []entity, i int) bool {
	plural := func(k int) bool {
		en := &ents[k]
		return en.tokFirst >= 0 && en.tokFirst == en.tokLast && pluralWord(en.name)
	}
	if !plural(i) {
		return false
	}
	for k := i - 1; k >= 0 && ents[k].sent == ents[i].sent && isListGap(text[ents[k].end:ents[k+1].start]); k-- {
		if plural(k) {
			return true
		}
	}
	for k := i + 1; k < len(ents) && ents[k].sent == ents[i].sent && isListGap(text[ents[k-1].end:ents[k].start]); k++ {
		if plural(k) {
			return true
		}
	}
	return false
}

// pluralOfName reports a one-word name shaped like a plural and followed
// by "of" and a capitalised word: a class of persons or things named
// after someone or something ("Queens of Sheba", "Dukes of Burgundy"),
// not the place the word alone may name.
func pluralOfName(en *entity, toks []tok) bool {
	f := en.tokFirst
	return f >= 0 && f == en.tokLast && pluralWord(en.name) && f+2 < len(toks) &&
		toks[f+1].text == "of" && isWordCap(toks[f+2].text)
}

// placeCompound types a name that holds a known place and other words
// that are no place words: a team or a company ("Los Angeles Lakers",
// "Atlético Madrid", "Square Enix Europe"). A person's name may hold a
// place too ("Jack London"), so this is weaker than the document's own
// evidence.
func placeCompound(text string, en *entity, toks []tok) bool {
	f, l := en.tokFirst, en.tokLast
	if f < 0 || f == l || demonyms[toks[f].text] || isGivenName(toks[f].text) {
		return false
	}
	for k := f; k <= l; k++ {
		if nameConnectors[toks[k].text] {
			return false // "Washington Santana da Silva"
		}
	}
	for m := l - 1; m >= f; m-- { // a place opening the name
		if c, ok := gazetteer(strings.Join(strings.Fields(text[toks[f].start:toks[m].end]), " ")); ok && c == catLocation {
			return true
		}
	}
	if placeLeads[toks[f].text] || placeFirst[toks[f].text] {
		return false // "West Vancouver"
	}
	if modifiedPlace(en, toks) {
		return false
	}
	for k := f + 1; k <= l; k++ { // a place closing the name
		if c, ok := gazetteer(strings.Join(strings.Fields(text[toks[k].start:toks[l].end]), " ")); ok && c == catLocation && !demonyms[toks[k].text] {
			return true
		}
	}
	return false
}

// modifiedPlace reports a known place under a modifier: "Inner
// Mongolia", "Nazi Germany", "The Bronx".
func modifiedPlace(en *entity, toks []tok) bool {
	f, l := en.tokFirst, en.tokLast
	if f < 0 || f+1 != l || !placeModifiers[toks[f].text] || demonyms[toks[l].text] {
		return false
	}
	c, ok := gazetteer(toks[l].text)
	return ok && c == catLocation
}

// placeModifiers qualify a place's name without making it something
// else's: a regime, a part or an age of the place.
var placeModifiers = wordsOf(`The Inner Outer Nazi Vichy Soviet Imperial Colonial Occupied Ancient Medieval Modern Roman Free
	Metropolitan Mainland Continental Rural Urban Coastal Historic`)

// contextCue types an entity from the words around it: a person title
// before it, "said" after it, "(born" after it.
func contextCue(text string, en *entity, toks []tok) (category, bool) {
	f, l := en.tokFirst, en.tokLast
	if f < 0 {
		return catMisc, false
	}
	prev, next := "", ""
	if f > 0 {
		prev = toks[f-1].text
	}
	if l+1 < len(toks) {
		next = strings.ToLower(toks[l+1].text)
	}
	switch {
	case personTitles[prev], speechVerbs[next]:
		return catPerson, true
	case f == l && speechVerbs[strings.ToLower(prev)] && f > 1 && isCloser(toks[f-2].text):
		return catPerson, true
	case next == "(" && l+2 < len(toks) && (toks[l+2].text == "born" || toks[l+2].text == "née" ||
		isDigits(toks[l+2].text) && len(toks[l+2].text) == 4 && l+3 < len(toks) && isDash(toks[l+3].text)):
		return catPerson, true
	}
	return catMisc, false
}

// listTypes gives the members of a list (entities of one sentence
// separated only by commas, "and" or "or") the category of its members
// typed by the name or context, when those agree and the others have no
// more than the recogniser's guess.
func listTypes(text string, ents []entity) {
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].sent == ents[i].sent && isListGap(text[ents[j-1].end:ents[j].start]) {
			j++
		}
		if j-i == 2 {
			// A pair ("Trajan and Hadrian", "Mirab Gojjam and Bahir
			// Dar"): a person, place or organisation typed by the name or context
			// types the other, when it has no more than the
			// recogniser's guess.
			a, b := &ents[i], &ents[i+1]
			joined := strings.TrimSpace(text[a.end:b.start]) != "," // "and", "or", "&"
			if b.ev >= evContext && a.ev < evContext {
				a, b = b, a
			}
			if joined && a.ev >= evContext && b.ev < evContext && b.tokFirst >= 0 && (a.cat == catPerson || a.cat == catLocation || a.cat == catOrg) {
				b.cat, b.typed, b.ev = a.cat, true, evContext
			}
		}
		if j-i >= 3 {
			strong, agree := catMisc, true
			seen := false
			for k := i; k < j; k++ {
				en := ents[k]
				if en.cat == catDate || en.cat == catNumber {
					agree = false
					break
				}
				if en.ev >= evContext && en.cat != catMisc {
					if seen && en.cat != strong {
						agree = false
					}
					strong, seen = en.cat, true
				}
			}
			if agree && seen {
				for k := i; k < j; k++ {
					if ents[k].ev < evContext && ents[k].tokFirst >= 0 {
						ents[k].cat, ents[k].typed, ents[k].ev = strong, true, evContext
					}
				}
			}
		}
		i = j
	}
}

// isListGap reports the text between two list members.
func isListGap(s string) bool {
	s = strings.TrimSpace(s)
	switch s {
	case ",", "and", "or", ", and", ", or", "&":
		return true
	}
	return false
}

// commonSuffixes end English abstract nouns and adjectives.
var commonSuffixes = []string{"ness", "ment", "ance", "ence", "ity", "tion", "sion", "ism", "ful", "less", "ous", "ship",
	"hood", "dom", "ical", "able", "ible"}

// commonSuffix reports a word with one of commonSuffixes.
func commonSuffix(w string) bool {
	if len(w) < 6 {
		return false
	}
	for _, s := range commonSuffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// isDash reports a hyphen or dash token.
func isDash(s string) bool { return s == "-" || s == "–" || s == "—" }

// locatedBefore reports whether entity b follows a after only a comma and
// b is a gazetteer place: "Chanhassen, Minnesota" makes a place of a.
func locatedBefore(text string, a, b entity) bool {
	if strings.TrimSpace(text[a.end:b.start]) != "," {
		return false
	}
	c, ok := gazetteer(b.name)
	return ok && c == catLocation && !demonyms[b.name]
}

// classify gives every entity found by the token passes a category and an
// evidence strength: the name itself, then the document (a name it marks
// as a person), then the words around the mention, then prose's recogniser,
// else Concept.
func (e *Extractor) classify(text string, ents []entity, toks []tok, sentOf []int, tables *docTables) {
	for i := range ents {
		en := &ents[i]
		if en.strong || en.tokFirst < 0 {
			if en.typed {
				en.ev = evName
			}
			continue
		}
		if c, ok := nameCue(text, en, toks); ok {
			en.cat, en.typed, en.ev = c, true, evName
			continue
		}
		if c, ok := contextCue(text, en, toks); ok {
			en.cat, en.typed, en.ev = c, true, evContext
			continue
		}
		if c, ok := tables.kind(en.name); ok {
			en.cat, en.typed, en.ev = c, true, evContext
			continue
		}
		if en.tokFirst == en.tokLast && isGivenName(en.name) {
			en.cat, en.typed, en.ev = catPerson, true, evContext
			continue
		}
		if modifiedPlace(en, toks) {
			en.cat, en.typed, en.ev = catLocation, true, evContext
			continue
		}
		if placeCompound(text, en, toks) {
			en.cat, en.typed, en.ev = catOrg, true, evContext
			continue
		}
	}
	// "Chanhassen, Minnesota": a name before a comma and a known place is
	// a place.
	for i := 0; i+1 < len(ents); i++ {
		if ents[i].ev < evContext && ents[i].tokFirst >= 0 && locatedBefore(text, ents[i], ents[i+1]) {
			ents[i].cat, ents[i].typed, ents[i].ev = catLocation, true, evContext
		}
	}
	// Members of a list ("Debub Gondar, Misraq Gojjam and Bahir Dar")
	// share the category of the members typed by stronger evidence.
	listTypes(text, ents)
	if e.opts.SkipNER {
		return
	}
	for i := range ents {
		en := &ents[i]
		if en.ev > evDefault || en.tokFirst < 0 || en.typed {
			continue
		}
		// A single word the tagger does not take for a proper noun
		// ("Abundance", "Humbug"), or that follows "the" ("the Ghost"), is a
		// concept, whatever the recogniser guesses.
		if en.tokFirst == en.tokLast && (toks[en.tokFirst].tag != "NNP" && toks[en.tokFirst].tag != "NNPS" ||
			en.tokFirst > 0 && toks[en.tokFirst-1].text == "the") {
			continue
		}
		// So is a word with the ending of an English common noun or
		// adjective ("Abundance", "Happiness").
		if en.tokFirst == en.tokLast && commonSuffix(en.name) {
			continue
		}
		if c, ok := e.nerType(text, toks, sentOf, *en); ok {
			// One-word plurals the gazetteer does not know, listed
			// together ("Cains and Abels", "Abrahams, Belshazzars,
			// Apostles"), name classes of things, not places, whatever
			// the recogniser guesses.
			if c == catLocation && pluralListed(text, ents, i) {
				continue
			}
			en.cat, en.typed, en.ev = c, true, evNER
			if c == catDate || c == catNumber {
				en.cat = catMisc
			}
		}
	}
}

// vote gives all mentions of a name in a chunk the category with the
// most evidence (strengths summed; ties go to the first mention's).
func vote(ents []entity) {
	type tally struct {
		score [8]int
		first category
	}
	byName := map[string]*tally{}
	for _, en := range ents {
		if en.tokFirst < 0 && !en.typed {
			continue
		}
		t := byName[en.name]
		if t == nil {
			t = &tally{first: en.cat}
			byName[en.name] = t
		}
		t.score[en.cat] += 1 + 2*en.ev
	}
	for i := range ents {
		t := byName[ents[i].name]
		if t == nil {
			continue
		}
		best := t.first
		for c, s := range t.score {
			if s > t.score[best] {
				best = category(c)
			}
		}
		ents[i].cat = best
	}
}
