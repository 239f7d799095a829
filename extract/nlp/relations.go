package nlp

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/relation"
)

// relationKind is what an entity is for choosing a standard relation.
func relationKind(e entity) relation.Kind {
	switch e.cat {
	case catPerson:
		return relation.Person
	case catOrg:
		return relation.Org
	case catLocation:
		return relation.Place
	case catDate:
		return relation.Date
	case catWork:
		return relation.Work
	default: // catMisc, catEvent, catNumber
		return relation.Any
	}
}

// isCountry reports whether a place's name is a country's.
func isCountry(name string) bool {
	name = placeName(name)
	return countries[name] || countryAliases[name] != "" || countryCodes[name] && !cityCodes[name]
}

// subnational are the names in the countries list that name a part of a
// country, or a territory that lies in one, for what it lies in.
var subnational = linesOf(`Catalonia|Basque Country|Bavaria|Flanders|Wallonia|Kurdistan|Tibet|Crimea|Gaza|West Bank|
	Greenland|Hong Kong|Macau|Puerto Rico|English Channel|Prussia`)

// cityCodes are the abbreviations among countryCodes that name cities
// or parts of a country.
var cityCodes = wordsOf(`NYC LA DC D.C. SSR`)

// countryOf returns the country a place entity names: a country's name
// in its usual form ("the U.S." -> "United States"), or a nationality's
// country ("Canadian" -> "Canada"); "" for anything else.
func countryOf(e entity) string {
	if e.cat != catLocation {
		return ""
	}
	name := placeName(e.name)
	switch {
	case subnational[name]:
		return ""
	case countryAliases[name] != "":
		return countryAliases[name]
	case isCountry(name):
		return name
	default:
		return demonymCountry[name]
	}
}

// pairRelation reads a standard relation from two entities of a sentence
// that no verb joins, by what they are and what stands between them
// (ents[a] before ents[b]; reverse: the edge runs from b to a):
//   - a place, organisation or other thing and a country (or its
//     nationality) of the same sentence ("Ulm, Germany"; "the Canadian
//     province of Alberta"): country;
//   - a place or organisation and a region (a state, a province) of the
//     same sentence, or a place or organisation and then a place with a
//     comma or "in" between ("Springfield, Illinois"; "the school in
//     Toronto"): located in the administrative territorial entity;
//   - a person, then a date in the parentheses after the name ("Ada
//     Lovelace (born 10 December 1815)", "(1815–1852)"): date of birth
//     for the first date, date of death for a second after a dash;
//   - a nationality, then a person with no verb between ("the German
//     physicist Max Born"): the person's country of citizenship.
func pairRelation(text string, ents []entity, a, b int) (r relation.Relation, reverse, ok bool) {
	ea, eb := ents[a], ents[b]
	gap := strings.TrimSpace(text[ea.end:eb.start])
	if b == a+1 && ea.cat != catPerson && ea.cat != catDate && ea.cat != catNumber {
		if r, ok := workOf(text, ea, eb, gap); ok {
			return r, false, true
		}
	}
	switch {
	case b == a+1 && demonymCountry[ea.name] != "" && ea.cat == catLocation && eb.cat == catPerson && nounsOnly(gap):
		return mustRelation("P27"), true, true
	case ea.cat == catPerson && eb.cat == catLocation && bornIn(text, ents, a, b):
		return mustRelation("P19"), false, true
	case ea.cat == catPerson && nation(eb) && !isCountry(eb.name) && copulaOnly(text, ents, a, b):
		return mustRelation("P27"), false, true
	case ea.cat == catPerson && eb.cat == catDate:
		if id := lifeDate(text, ents, a, b); id != "" {
			return mustRelation(id), false, true
		}
		return relation.Relation{}, false, false
	case nation(ea) && inCountry(eb) && nationOf(text, ents, b, a):
		return mustRelation("P17"), true, true
	case inCountry(ea) && nation(eb) && nationOf(text, ents, a, b):
		return mustRelation("P17"), false, true
	case region(ea) && located(eb) && !region(eb):
		return mustRelation("P131"), true, true
	case located(ea) && region(eb) && !region(ea):
		return mustRelation("P131"), false, true
	case b == a+1 && located(ea) && eb.cat == catLocation && !nation(eb) && (gap == "," || gap == "in" || gap == ", in") &&
		!(gap == "," && listGoesOn(text, ents, b)):
		return mustRelation("P131"), false, true
	}
	return relation.Relation{}, false, false
}

// listGoesOn reports whether entity b is followed in its sentence by
// "and" or "or" and another entity of its category: "Paris, Lyon and
// Nice" lists places, it does not place Paris in Lyon.
func listGoesOn(text string, ents []entity, b int) bool {
	if b+1 >= len(ents) || ents[b+1].sent != ents[b].sent || ents[b+1].cat != ents[b].cat {
		return false
	}
	switch strings.TrimSpace(text[ents[b].end:ents[b+1].start]) {
	case "and", "or", ", and", ", or":
		return true
	}
	return false
}

// nation reports a country or a nationality.
func nation(e entity) bool { return countryOf(e) != "" }

// region reports a state, province or other region below a country.
func region(e entity) bool {
	return e.cat == catLocation && regions[placeName(e.name)] && !wideRegions[placeName(e.name)]
}

// inCountry reports an entity that lies in one country: a place that is
// no country and crosses no border, or an organisation.
func inCountry(e entity) bool {
	switch e.cat {
	case catLocation:
		return !nation(e) && !wideRegions[placeName(e.name)]
	case catOrg:
		return true
	default:
		return false
	}
}

// nationOf reports whether ents[n], a country or nationality, is the
// country of ents[x] by how they stand in a sentence: no other country
// stands between them, and a nationality (an adjective) must qualify x,
// directly before it ("the Canadian province of Alberta") or after a
// copula ("Roketsan is a major Turkish weapons manufacturer").
func nationOf(text string, ents []entity, x, n int) bool {
	lo, hi := min(x, n), max(x, n)
	for k := lo + 1; k < hi; k++ {
		if nation(ents[k]) {
			return false
		}
	}
	if isCountry(ents[n].name) {
		return true
	}
	if hi != lo+1 {
		return false
	}
	gap := strings.TrimSpace(text[ents[lo].end:ents[hi].start])
	if n < x {
		return nounsOnly(gap)
	}
	words := strings.Fields(gap)
	if len(words) == 0 || len(words) > 5 || !nounsOnly(strings.Join(words[min(len(words), 3):], " ")) {
		return false
	}
	switch words[0] {
	case "is", "was", "are", "were":
	default:
		return false
	}
	for _, w := range words {
		if !lowerWord(w) {
			return false
		}
	}
	return true
}

// lowerWord reports a word of lower-case letters and hyphens.
func lowerWord(w string) bool {
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r == '-') {
			return false
		}
	}
	return w != ""
}

// located reports an entity that lies somewhere: a place that is no
// country, an organisation, or another named thing that is not a person.
func located(e entity) bool {
	switch e.cat {
	case catLocation:
		return !nation(e)
	case catOrg, catMisc, catWork, catEvent:
		return true
	default: // people, dates, numbers
		return false
	}
}

// placeName is a place's name without a leading article ("the United
// States").
func placeName(name string) string {
	if rest, ok := strings.CutPrefix(name, "the "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(name, "The "); ok {
		return rest
	}
	return name
}

func mustRelation(id string) relation.Relation {
	r, _ := relation.ByID(id)
	return r
}

// lifeDate reads a date after a person's name: "P569" (date of birth)
// for "NAME (born DATE" or "NAME (DATE –", "P570" (date of death) for
// the second date of "NAME (DATE – DATE)" or "died DATE"; "" otherwise.
func lifeDate(text string, ents []entity, a, b int) string {
	gap := strings.ToLower(strings.TrimSpace(text[ents[a].end:ents[b].start]))
	switch {
	case b == a+1 && (gap == "(" || gap == "( born" || gap == "(born" || gap == ", born" || gap == "born"):
		return "P569"
	case b == a+2 && ents[a+1].cat == catDate && strings.HasPrefix(gap, "("):
		mid := strings.TrimSpace(text[ents[a+1].end:ents[b].start])
		if mid == "–" || mid == "-" || mid == "—" || mid == "to" || mid == "; died" || mid == ", died" {
			return "P570"
		}
	}
	return ""
}

// bornIn reports a place of birth in the parenthesis after a person's
// name: "Wilfried Schneider (born 13 March 1963 in Mediaș, Transylvania)",
// "Ada (born in London)"; the first place after "in" only.
func bornIn(text string, ents []entity, a, b int) bool {
	gap := strings.ToLower(strings.Join(strings.Fields(text[ents[a].end:ents[b].start]), " "))
	switch {
	case b == a+1:
		return gap == "(born in" || gap == "( born in"
	case b == a+2 && ents[a+1].cat == catDate:
		lead := strings.ToLower(strings.Join(strings.Fields(text[ents[a].end:ents[a+1].start]), " "))
		mid := strings.TrimSpace(text[ents[a+1].end:ents[b].start])
		return (lead == "(born" || lead == "( born") && (mid == "in" || mid == ", in")
	}
	return false
}

// copulaOnly reports whether only "is a", "was an" (and the dates of a
// parenthesis after the name) stand between ents[a] and ents[b]: "Paul
// Desmarais Jr. (born July 3, 1954) is a Canadian businessman".
func copulaOnly(text string, ents []entity, a, b int) bool {
	var gap strings.Builder
	for k := a; k < b; k++ {
		if k > a && ents[k].cat != catDate {
			return false
		}
		gap.WriteString(text[ents[k].end:ents[k+1].start])
		gap.WriteByte(' ')
	}
	g := strings.ToLower(gap.String())
	for _, cut := range []string{"(", ")", ",", "–", "-", "born", "died"} {
		g = strings.ReplaceAll(g, cut, " ")
	}
	switch strings.Join(strings.Fields(g), " ") {
	case "is a", "was a", "is an", "was an", "a", "an":
		return true
	}
	return false
}

// nounsOnly reports whether a gap holds only a few lower-case words or
// hyphenated ones (a nationality's noun: "physicist", "-born singer").
func nounsOnly(gap string) bool {
	words := strings.Fields(gap)
	if len(words) > 3 {
		return false
	}
	for _, w := range words {
		for _, r := range w {
			if !(r >= 'a' && r <= 'z' || r == '-') {
				return false
			}
		}
	}
	return true
}

// countries gives the places and organisations of a chunk that no
// sentence gave a country the country the chunk places them in:
//   - the country of what they lie in ("Westmere, Guilderland" and
//     "Guilderland, United States": Westmere's country is the United
//     States);
//   - a known place's own country, when the chunk names it ("Munich",
//     "University of Strasbourg"); a known place whose country the chunk
//     does not name gets none;
//   - else the chunk's one country, when it names only one (by name or
//     nationality: "Canada" and "Canadian" are one), as an encyclopedia
//     article about a town or a firm names the country it is in and no
//     other; when it names several, the one its lead (the document's
//     first two sentences) names first ("Sara Black is an American
//     artist").
//
// A nationality counts as a country of the chunk when it places
// something ("the Canadian province") or stands in the lead, not when a
// later sentence says who a person is ("a German racer"). The edges weigh
// as links beyond a sentence do and cite the sentence of the entity's
// first mention outside a heading.
func (eb *edgeBuilder) countries(ents []entity, keys []string) {
	country := mustRelation("P17").Label()
	located := mustRelation("P131").Label()
	has := map[string]string{} // key -> its country's key
	within := map[string][]string{}
	for _, ed := range eb.edges {
		switch ed.Label {
		case country:
			has[ed.Source] = ed.Target
		case located:
			within[ed.Source] = append(within[ed.Source], ed.Target)
		}
	}
	named, only := eb.chunkCountries(ents, keys, has)
	eb.citizenships(ents, keys, only)
	eb.regionOf(ents, keys, within)
	for i, en := range ents {
		k := keys[i]
		if k == "" || has[k] != "" || !inCountry(en) || eb.inHeading(en) {
			continue
		}
		target, known := "", false
		for _, up := range within[k] {
			if c := has[up]; c != "" {
				target = c
				break
			}
		}
		if target == "" {
			target, known = homeIn(named, placeName(en.name))
		}
		for _, up := range within[k] {
			if target != "" || known {
				break
			}
			target, known = homeIn(named, placeName(nameOfKey(ents, keys, up)))
		}
		if target == "" && !known {
			target = only
		}
		if target == "" || target == k {
			continue
		}
		has[k] = target
		eb.add(k, target, country, en.sent, weightDistant)
	}
}

// chunkCountries returns the chunk's countries (country -> the key of
// its entity, the name's before a nationality's) and the one a place
// nothing else places lies in ("" for none): the only one, or the one
// the document's lead names first. has maps keys to their countries'
// keys; a nationality counts when it placed something or stands in the
// lead.
func (eb *edgeBuilder) chunkCountries(ents []entity, keys []string, has map[string]string) (named map[string]string, only string) {
	placed := map[string]bool{}
	for _, c := range has {
		placed[c] = true
	}
	named = map[string]string{}
	for i, en := range ents {
		c := countryOf(en)
		if c == "" || keys[i] == "" || !isCountry(en.name) && !placed[keys[i]] && !eb.inLead(en) {
			continue
		}
		if k, ok := named[c]; !ok || isCountry(en.name) && !isCountry(nameOfKey(ents, keys, k)) {
			named[c] = keys[i]
		}
	}
	if len(named) == 1 {
		for _, k := range named {
			return named, k
		}
	}
	for i, en := range ents {
		if !eb.inLead(en) {
			break
		}
		if c := countryOf(en); c != "" && keys[i] != "" {
			return named, named[c]
		}
	}
	return named, ""
}

// citizenships gives each person of a document's first chunk no sentence
// gave a country of citizenship the chunk's country (see
// chunkCountries): the people an article on an American names are
// American unless it says otherwise, as Wikidata-derived gold such as
// Re-DocRED reads them. A later chunk of a long text gives none: a
// biography's chapter on a stay abroad names the people met there.
func (eb *edgeBuilder) citizenships(ents []entity, keys []string, only string) {
	if only == "" || eb.chunk.Index != 0 {
		return // a later chunk of a long text may tell of anyone anywhere
	}
	citizen := mustRelation("P27").Label()
	done := map[string]bool{only: true}
	for _, ed := range eb.edges {
		if ed.Label == citizen {
			done[ed.Source] = true
		}
	}
	for i, en := range ents {
		if k := keys[i]; en.cat == catPerson && k != "" && !done[k] && !eb.inHeading(en) {
			done[k] = true
			eb.add(k, only, citizen, en.sent, weightDistant)
		}
	}
}

// regionOf places the places and organisations of a chunk that lie in
// nothing it names in the chunk's one region (a state or province), or,
// when it names several, in the one its lead names first: an article on
// a school in Texas names Texas and places the rest there. A known city
// keeps its own region.
func (eb *edgeBuilder) regionOf(ents []entity, keys []string, within map[string][]string) {
	one, lead, many := "", "", false
	for i, en := range ents {
		if keys[i] == "" || !region(en) {
			continue
		}
		if lead == "" && eb.inLead(en) {
			lead = keys[i]
		}
		if one != "" && one != keys[i] {
			many = true
		}
		one = keys[i]
	}
	if many {
		one = lead
	}
	if one == "" {
		return
	}
	located := mustRelation("P131").Label()
	for i, en := range ents {
		k := keys[i]
		if k == "" || k == one || len(within[k]) > 0 || !inCountry(en) || region(en) || eb.inHeading(en) {
			continue
		}
		if cities[placeName(en.name)] {
			continue // a known city lies in its own region
		}
		within[k] = append(within[k], one)
		eb.add(k, one, located, en.sent, weightDistant)
	}
}

// workDates gives a title in quotes the date its sentence names after
// it, the nearest one, when no other title stands between them: "the
// single "Maybe", released on 20 April 2008" has that publication date
// (see relabel: a named edge of the pair stays as it is).
func (eb *edgeBuilder) workDates(ents []entity, keys []string) {
	published := mustRelation("P577").Label()
	for i, en := range ents {
		if keys[i] == "" || en.cat != catMisc || en.prio != prioQuoted || eb.inHeading(en) {
			continue
		}
		for j := i + 1; j < len(ents) && ents[j].sent == en.sent; j++ {
			if ents[j].cat == catMisc && ents[j].prio == prioQuoted {
				break
			}
			if ents[j].cat != catDate || keys[j] == "" {
				continue
			}
			eb.relabel(keys[i], keys[j], published, en.sent)
			break
		}
	}
}

// recordLabels gives an article's subject (mainKey: an album, a song,
// a singer or a band) the record labels its chunk names ("... released
// on Atco Records"): an organisation named "X Records" or "X
// Recordings".
func (eb *edgeBuilder) recordLabels(ents []entity, keys []string, mainKey string) {
	label := mustRelation("P264").Label()
	for i, en := range ents {
		if keys[i] == "" || keys[i] == mainKey || en.cat != catOrg || eb.inHeading(en) {
			continue
		}
		if last := en.name[strings.LastIndexByte(en.name, ' ')+1:]; last == "Records" || last == "Recordings" {
			eb.relabel(mainKey, keys[i], label, en.sent)
		}
	}
}

// relabel gives the pair src, dst the label: it names their
// co-occurrence edge when that is all that joins them, or adds an edge
// when nothing does.
func (eb *edgeBuilder) relabel(src, dst, label string, sent int) {
	if !eb.pairs[pairKey(src, dst)] {
		eb.add(src, dst, label, sent, weightDistant)
		return
	}
	co := -1
	for i, ed := range eb.edges {
		if ed.Source == src && ed.Target == dst || ed.Source == dst && ed.Target == src {
			if ed.Label != "related_to" {
				return
			}
			co = i
		}
	}
	if co < 0 {
		return
	}
	ed := &eb.edges[co]
	delete(eb.edgeAt, extract.EdgeKey(ed.Source, ed.Label, ed.Target))
	ed.Source, ed.Target, ed.Label = src, dst, label
	eb.edgeAt[extract.EdgeKey(src, label, dst)] = co
}

// inLead reports a mention in the document's lead: the first two
// sentences of its first chunk.
func (eb *edgeBuilder) inLead(en entity) bool { return eb.chunk.Index == 0 && en.sent < 2 }

// inHeading reports a mention in a title or heading line.
func (eb *edgeBuilder) inHeading(en entity) bool {
	return en.sent < len(eb.sents) && headingLine(eb.text, eb.sents[en.sent])
}

// continents gives each country of the chunk, and each place it knows
// or placed in a country, the continent that country lies in when the
// chunk names that continent ("Sweden ... in Europe", "the Asian
// Games ... Indonesia"; "the Americas" stand for both of theirs).
func (eb *edgeBuilder) continents(ents []entity, keys []string) {
	named := map[string]string{} // continent -> key of its entity
	for i, en := range ents {
		name := placeName(en.name)
		if keys[i] == "" || en.cat != catLocation || isCountry(name) || countryOf(en) != "" {
			continue
		}
		for _, c := range continentOf[name] {
			if _, ok := named[c]; !ok {
				named[c] = keys[i]
			}
		}
	}
	if len(named) == 0 {
		return
	}
	country, continent := mustRelation("P17").Label(), mustRelation("P30").Label()
	countryOfKey := map[string]string{}
	for _, ed := range eb.edges {
		if ed.Label == country {
			countryOfKey[ed.Source] = nameOfKey(ents, keys, ed.Target)
		}
	}
	done := map[string]bool{}
	for i, en := range ents {
		k := keys[i]
		if k == "" || done[k] || eb.inHeading(en) {
			continue
		}
		var conts []string
		if c := countryOf(en); c != "" {
			conts = continentOf[c]
		} else if c := countryOfKey[k]; c != "" {
			conts = continentOf[countryOf(entity{name: c, cat: catLocation})]
		} else if cs, ok := placeHome(placeName(en.name)); ok && len(cs) > 0 {
			conts = continentOf[cs[0]]
		}
		for _, c := range conts {
			if target := named[c]; target != "" && target != k {
				done[k] = true
				eb.add(k, target, continent, en.sent, weightDistant)
				break
			}
		}
	}
}

// homeIn returns the key of the country a known place lies in among the
// chunk's countries (named: country -> key), and whether the place is
// known: a known place whose country the chunk does not name gets none
// ("Turin" in an article on a German racer).
func homeIn(named map[string]string, place string) (key string, known bool) {
	cs, known := placeHome(place)
	for _, c := range cs {
		if k := named[c]; k != "" {
			return k, true
		}
	}
	return "", known
}

// placeHome returns the countries a place lies in by its name: a known
// place, or a name that holds one after "of" or in its first words
// ("University of Strasbourg", "Munich Airport").
func placeHome(name string) ([]string, bool) {
	if cs, ok := homes[name]; ok {
		return cs, true
	}
	if _, after, ok := strings.Cut(name, " of "); ok {
		if cs, ok := homes[placeName(after)]; ok {
			return cs, true
		}
	}
	words := strings.Fields(name)
	for n := min(3, len(words)-1); n >= 1; n-- {
		if cs, ok := homes[strings.Join(words[:n], " ")]; ok {
			return cs, true
		}
	}
	return nil, false
}

// locatedInCountry says of each place and organisation a country edge
// joins to its country that it is located in that country too: a town's
// country is also what it lies in, as Wikidata-derived gold such as
// Re-DocRED states both (every place or organisation of its sample with a
// country is located in it as well), and a question asking where
// something is finds the answer under either label. The edge copies the
// country edge's evidence.
func (eb *edgeBuilder) locatedInCountry(ents []entity, keys []string) {
	country := mustRelation("P17").Label()
	located := mustRelation("P131").Label()
	placed := map[string]bool{}
	for i, en := range ents {
		if keys[i] != "" && inCountry(en) {
			placed[keys[i]] = true
		}
	}
	for i, n := 0, len(eb.edges); i < n; i++ {
		ed := eb.edges[i]
		if ed.Label != country || !placed[ed.Source] {
			continue
		}
		k := extract.EdgeKey(ed.Source, located, ed.Target)
		if _, ok := eb.edgeAt[k]; ok {
			continue
		}
		ed.Label, ed.Keywords = located, ""
		ed.Mentions = slices.Clone(ed.Mentions)
		eb.edgeAt[k] = len(eb.edges)
		eb.edges = append(eb.edges, ed)
	}
}

// kinRelations are the relatives a possessive names before a person
// ("his brother Harry Alger", "Alger's wife Mary"), with the relation from
// the possessor to them.
var kinRelations = map[string]string{
	"brother": "P3373", "sister": "P3373", "wife": "P26", "husband": "P26",
	"son": "P40", "daughter": "P40", "father": "P22", "mother": "P25",
}

// parentPhrase reports whether the words before a name end "son of",
// "daughter of" or "child of", with at most two words between "of" and
// the name ("child of the poet").
func parentPhrase(words []string) bool {
	n := len(words)
	for o := n - 1; o >= max(1, n-3); o-- {
		if words[o] != "of" {
			continue
		}
		switch words[o-1] {
		case "son", "daughter", "child":
			return true
		}
		return false
	}
	return false
}

// sentenceSubjectPerson returns the first person of a sentence before
// entity b (its subject, in "Ross Alger, the son of ..."), or -1.
func sentenceSubjectPerson(ents []entity, keys []string, from, b int) int {
	for a := from; a < b; a++ {
		if ents[a].cat == catPerson && keys[a] != "" {
			return a
		}
	}
	return -1
}

// kinship links a person to the relative a possessive names ("His brother
// was Harry Alger", "Alger's wife, Mary"): the possessor is the name
// right before "'s", or for "his" and "her" the document's main entity
// when it is a person, else the sentence's first person.
func (eb *edgeBuilder) kinship(text string, ents []entity, keys []string, mainKey string, mainIsPerson bool) {
	for b := range ents {
		if ents[b].cat != catPerson || keys[b] == "" {
			continue
		}
		sentStart := b
		for sentStart > 0 && ents[sentStart-1].sent == ents[b].sent {
			sentStart--
		}
		lo := ents[b].start - 60
		if b > 0 && ents[b-1].end > lo {
			lo = ents[b-1].end
		}
		if lo < 0 {
			lo = 0
		}
		words := strings.Fields(strings.ToLower(strings.NewReplacer(",", " ", "’", "'").Replace(text[lo:ents[b].start])))
		// "... his (younger) brother (was)", "... Alger's wife".
		if n := len(words); n > 0 && (words[n-1] == "was" || words[n-1] == "is") {
			words = words[:n-1]
		}
		n := len(words)
		if n == 0 {
			continue
		}
		if parent := parentPhrase(words); parent {
			// "the younger son of (the poet) X": X is a parent of the
			// one the sentence is about.
			owner := ""
			if mainIsPerson && mainKey != "" {
				owner = mainKey
			} else if a := sentenceSubjectPerson(ents, keys, sentStart, b); a >= 0 {
				owner = keys[a]
			}
			if owner != "" && owner != keys[b] {
				eb.add(keys[b], owner, mustRelation("P40").Label(), ents[b].sent, weightSentence)
			}
			continue
		}
		id, ok := kinRelations[words[n-1]]
		if !ok {
			continue
		}
		k := n - 2
		for k >= 0 && (words[k] == "younger" || words[k] == "elder" || words[k] == "older" || words[k] == "twin" || words[k] == "late") {
			k--
		}
		owner := ""
		switch {
		case k >= 0 && (words[k] == "his" || words[k] == "her"):
			if mainIsPerson && mainKey != "" && mainKey != keys[b] {
				owner = mainKey
			} else if a := sentenceSubjectPerson(ents, keys, sentStart, b); a >= 0 {
				owner = keys[a]
			}
		case k == 0 && words[0] == "'s" && b > 0 && ents[b-1].cat == catPerson && ents[b-1].sent == ents[b].sent && keys[b-1] != "":
			owner = keys[b-1]
		}
		if owner == "" || owner == keys[b] {
			continue
		}
		eb.add(owner, keys[b], mustRelation(id).Label(), ents[b].sent, weightSentence)
	}
}

// nameOfKey returns the name of the first entity with key k.
func nameOfKey(ents []entity, keys []string, k string) string {
	for i := range ents {
		if keys[i] == k {
			return ents[i].name
		}
	}
	return ""
}

// workRE reads the copula that says what a work is: "is an album by",
// "was a 1936 British film directed by", "is a novel written by": the
// class noun (group 1), a participle (group 2) and a closing "by"
// (group 3), each optional but the noun.
var workRE = regexp.MustCompile(`^(?:is|was) (?:an?|the) (?:[\w'’-]+ ){0,4}?(album|single|song|EP|record|film|movie|documentary|series|sitcom|show|novel|book|poem|story|play|opera|musical|painting|sculpture|game|video game|comic|manga|anime)(?: (directed|written|produced|developed|published|created|composed|performed|recorded|released|sung|painted))?(?: (by))?$`)

// workRelation maps a work's class noun, or the participle before "by",
// to the relation from the work to the person or organisation named
// after "by".
var workRelation = map[string]string{
	"album": "P175", "single": "P175", "song": "P175", "EP": "P175", "record": "P175",
	"film": "P57", "movie": "P57", "documentary": "P57",
	"novel": "P50", "book": "P50", "poem": "P50", "story": "P50", "play": "P50", "comic": "P50", "manga": "P50",
	"painting": "P170", "sculpture": "P170", "opera": "P86", "musical": "P86",
	"game": "P178", "video game": "P178",
	"directed": "P57", "written": "P50", "produced": "P162", "developed": "P178", "published": "P123",
	"created": "P170", "composed": "P86", "performed": "P175", "recorded": "P175", "sung": "P175", "painted": "P170",
}

// workOf reads what a sentence says a work a is to entity b right after
// it: "Mess of Blues is an album by Jeff Healey" (performer), "Song of
// Freedom is a 1936 British film" (publication date 1936, country of
// origin British), "... is a 1936 British film directed by J. Elder
// Wills" (director). The date and the nationality stand inside the
// copula, before the class noun.
func workOf(text string, ea, eb entity, gap string) (relation.Relation, bool) {
	switch {
	case eb.cat == catDate || nation(eb):
		// "is a 1936 British film": the class noun follows b.
		lead := strings.Fields(strings.ToLower(gap))
		if len(lead) != 2 || lead[0] != "is" && lead[0] != "was" || lead[1] != "a" && lead[1] != "an" && lead[1] != "the" {
			return relation.Relation{}, false
		}
		m := workRE.FindStringSubmatch("is a " + firstWords(text[eb.end:], 3))
		if m == nil && eb.cat == catDate {
			m = workRE.FindStringSubmatch("is a " + firstWords(text[eb.end:], 1))
		}
		if m == nil {
			return relation.Relation{}, false
		}
		if eb.cat == catDate {
			return mustRelation("P577"), true
		}
		return mustRelation("P495"), true
	case eb.cat == catPerson || eb.cat == catOrg:
		m := workRE.FindStringSubmatch(strings.Join(strings.Fields(gap), " "))
		if m == nil || m[3] == "" {
			return relation.Relation{}, false
		}
		id := workRelation[m[1]]
		if m[2] != "" {
			id = workRelation[m[2]]
		}
		if eb.cat == catOrg && id != "P178" && id != "P123" && id != "P162" {
			return relation.Relation{}, false
		}
		return mustRelation(id), true
	}
	return relation.Relation{}, false
}

// firstWords returns up to n words of s that come before any
// punctuation, joined by spaces.
func firstWords(s string, n int) string {
	if i := strings.IndexAny(s, ".,;:()\"“”"); i >= 0 {
		s = s[:i]
	}
	w := strings.Fields(s)
	return strings.Join(w[:min(len(w), n)], " ")
}
