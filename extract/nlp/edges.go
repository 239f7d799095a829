package nlp

import (
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/relation"
)

// contractions spell out the clitics prose splits off ("you'll" ->
// "you", "'ll"), so labels read "will keep", never "'ll keep".
var contractions = map[string]string{"'ll": "will", "'d": "would", "'ve": "have", "'re": "are", "'m": "am",
	"'s": "is", "n't": "not", "ca": "can", "wo": "will"}

// beVerbs are the forms of "to be".
var beVerbs = setOf("is", "are", "was", "were", "be", "been", "being", "'s", "'re", "am", "'m")

// Edge weights: one per sentence where two entities meet; links beyond a
// sentence (to the document's main entity, into a sentence that opens with
// a pronoun) weigh less.
const (
	weightSentence = 1.0
	weightDistant  = 0.5
)

// tokIndex returns the index of the first token starting at or after byte
// at.
func tokIndex(toks []tok, at int) int {
	return sort.Search(len(toks), func(i int) bool { return toks[i].start >= at })
}

// clauseVerb returns the label of an edge from entity a to entity b when a
// is the subject and b the object of one clause: between them stands only
// a verb group (with adverbs, particles and prepositions: "was born in",
// "moved to", "joined"), or a form of "to be" with a noun and a
// preposition ("is the capital of" -> "is capital of"). Anything else
// (punctuation, a conjunction, a pronoun, a second noun, a participle
// without an auxiliary, a preposition before a) gives "".
func clauseVerb(toks []tok, sentOf []int, a, b entity) string {
	if !subjectLike(toks, sentOf, a) {
		return ""
	}
	return verbGroup(toks, tokIndex(toks, a.end), b)
}

// carriedVerb returns the label of an edge from a sentence's subject s
// to an entity b further on, when b is the object of a verb group of the
// subject's that follows the entity before b ("Curie was born in Warsaw
// and moved to Paris": Curie moved to Paris), after a comma or a
// conjunction; else "".
func carriedVerb(toks []tok, sentOf []int, s, before, b entity) string {
	if !subjectLike(toks, sentOf, s) {
		return ""
	}
	return carriedGroup(toks, before, b)
}

// carriedGroup reads the verb group from the comma or conjunction after
// entity before to entity b ("..., and moved to Paris"); "" when no
// comma or conjunction follows before (its verb is its own clause's).
func carriedGroup(toks []tok, before, b entity) string {
	i := tokIndex(toks, before.end)
	lead := false
	for i < len(toks) && (toks[i].text == "," || toks[i].tag == "CC") {
		i++
		lead = true
	}
	if !lead {
		return ""
	}
	return verbGroup(toks, i, b)
}

// subjectLike reports whether a can be the subject of its clause: it is
// not the object of a preposition or verb of its sentence.
func subjectLike(toks []tok, sentOf []int, a entity) bool {
	first := tokIndex(toks, a.start)
	p := first - 1
	for p >= 0 && sentOf[p] == sentOf[first] && (toks[p].tag == "DT" || toks[p].tag == "JJ" || toks[p].tag == "PRP$") {
		p--
	}
	return !(p >= 0 && sentOf[p] == sentOf[first] && (toks[p].tag == "IN" || toks[p].tag == "TO" || strings.HasPrefix(toks[p].tag, "VB")))
}

// verbGroup reads the tokens from i to entity b as clauseVerb does.
func verbGroup(toks []tok, i int, b entity) string {
	end := tokIndex(toks, b.start)
	if i >= end || end-i > 8 {
		return ""
	}
	// "was Scrooge's partner": b owns the object, it is none.
	if l := tokIndex(toks, b.end); l < len(toks) && toks[l].tag == "POS" && toks[l].start == b.end {
		return ""
	}
	var words []string
	sawVerb, finite, copula, noun := false, false, false, false
	for k := i; k < end; k++ {
		t := toks[k]
		word := strings.ToLower(strings.ReplaceAll(t.text, "’", "'"))
		if full, ok := contractions[word]; ok {
			word = full
		}
		tag := t.tag
		isVerb := strings.HasPrefix(tag, "VB") || tag == "MD"
		switch {
		case !sawVerb && k == i && (word == "\"" || word == "”" || word == "''" || word == "'"):
			// The closing quote of a title: `"Hound Dog" was recorded by`.
		case isVerb && noun && copula && tag == "VBN" && relativeEnds(toks, k+1, end):
			// A reduced relative after a class noun: "is a racing game
			// developed by" says "developed by".
			words, noun, copula = append(words[:0], word), false, false
		case isVerb && noun:
			return "" // a second clause
		case isVerb:
			if !sawVerb && (tag == "VBG" || tag == "VBN") && !finite {
				return "" // a participle phrase: "Apostles putting off to sea"
			}
			if tag == "VBD" || tag == "VBZ" || tag == "VBP" || tag == "MD" {
				finite = true
			}
			if beVerbs[word] {
				copula = true
			}
			sawVerb = true
			words = append(words, word)
		case tag == "RB" && !noun:
			// Adverbs ("also", "later") stay out of the label, except
			// negation.
			if word == "not" || word == "never" {
				words = append(words, word)
			}
		case !sawVerb:
			return "" // no verb right after the subject
		case tag == "RP" || tag == "IN" || tag == "TO":
			words = append(words, word)
		case tag == "DT" || tag == "PRP$" || tag == "JJ" || tag == "JJS" || tag == "CD":
			// Determiners and adjectives before the object or noun.
		case (tag == "NN" || tag == "NNS") && (!noun || isNoun(toks[k-1].tag)):
			// The noun of "is capital of", "ran as candidate for" (a
			// compound noun counts once).
			noun = true
			words = append(words, word)
		default:
			return ""
		}
	}
	if !sawVerb || !finite {
		return ""
	}
	// A noun must be followed by a preposition ("capital of").
	if noun && (len(words) == 0 || !isPrepWord(words[len(words)-1])) {
		return ""
	}
	return strings.Join(words, " ")
}

// datedGroup reads the verb group from token from to entity b across an
// entity d between them, one of the two a date: "was born on 7 November
// 1878 in Vienna" gives "was born in", "was born in London on 10
// December 1815" "was born on", "moved in 1907 to Berlin" "moved to",
// "married in 1930 X" "married". Only a preposition (and commas,
// determiners) may stand between d and b; "" when the words do not read
// so.
func datedGroup(toks []tok, from int, d, b entity) string {
	lead := verbGroup(toks, from, d)
	if lead == "" {
		return ""
	}
	words := strings.Fields(lead)
	if isPrepWord(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return ""
	}
	var mid []string
	for k, end := tokIndex(toks, d.end), tokIndex(toks, b.start); k < end; k++ {
		switch t := toks[k]; {
		case t.text == "," || t.tag == "DT":
		case (t.tag == "IN" || t.tag == "TO") && len(mid) == 0:
			mid = append(mid, strings.ToLower(t.text))
		default:
			return ""
		}
	}
	return strings.Join(append(words, mid...), " ")
}

// isNoun reports a common noun's tag.
func isNoun(tag string) bool { return tag == "NN" || tag == "NNS" }

// relativeEnds reports whether toks[from:end] are prepositions and
// particles alone, as after the participle of a reduced relative
// ("developed by", "located in the").
func relativeEnds(toks []tok, from, end int) bool {
	prep := false
	for k := from; k < end; k++ {
		switch toks[k].tag {
		case "IN", "TO", "RP":
			prep = true
		case "DT":
		default:
			return false
		}
	}
	return prep
}

// lastWord returns the last word of s.
func lastWord(s string) string {
	return s[strings.LastIndexByte(s, ' ')+1:]
}

// isPrepWord reports a preposition label word.
func isPrepWord(w string) bool {
	switch w {
	case "of", "in", "for", "at", "to", "from", "by", "on", "with", "since", "until", "till", "during", "before", "after":
		return true
	}
	return false
}

// linkable reports whether two entities may be joined by an edge: numbers
// never are, two dates never, and a date with a place or an organisation
// only through a verb.
func linkable(a, b category, verb bool) bool {
	if a == catNumber || b == catNumber {
		return false
	}
	if a == catDate && b == catDate {
		return false
	}
	if !verb && (a == catDate && (b == catLocation || b == catOrg) || b == catDate && (a == catLocation || a == catOrg)) {
		return false
	}
	return true
}

// edgeBuilder accumulates the edges of one chunk.
type edgeBuilder struct {
	chunk  extract.Chunk
	text   string
	sents  []span
	edges  []extract.Edge
	edgeAt map[string]int
	pairs  map[[2]string]bool // unordered pairs already linked in the chunk
}

// add adds (or strengthens) an edge for one sentence.
func (eb *edgeBuilder) add(src, dst, label string, sent int, weight float64) {
	k := extract.EdgeKey(src, label, dst)
	sp := eb.sents[sent]
	m := extract.Mention{DocumentID: eb.chunk.DocumentID, ChunkIndex: eb.chunk.Index,
		Start: eb.chunk.Start + sp.start, End: eb.chunk.Start + sp.end}
	eb.pairs[pairKey(src, dst)] = true
	if i, ok := eb.edgeAt[k]; ok {
		ed := &eb.edges[i]
		for _, old := range ed.Mentions {
			if old == m {
				return
			}
		}
		ed.Weight += weight
		ed.Mentions = append(ed.Mentions, m)
		return
	}
	eb.edgeAt[k] = len(eb.edges)
	eb.edges = append(eb.edges, extract.Edge{Source: src, Target: dst, Label: label, Weight: weight,
		Description: sentenceText(eb.text, sp), Mentions: []extract.Mention{m}})
}

// keywords sets the keywords of an edge added before (the phrase it was
// named from), when it has none.
func (eb *edgeBuilder) keywords(src, dst, label, kw string) {
	if i, ok := eb.edgeAt[extract.EdgeKey(src, label, dst)]; ok && eb.edges[i].Keywords == "" {
		eb.edges[i].Keywords = kw
	}
}

// pairKey orders two keys.
func pairKey(a, b string) [2]string {
	if b < a {
		return [2]string{b, a}
	}
	return [2]string{a, b}
}

// buildEdges links the entities of a chunk:
//   - within a sentence, each entity with the next few (Options.PairWindow);
//     neighbours get a verb label when the first is the subject and the
//     second the object of one clause (clauseVerb, or cjkVerb for CJK
//     text), the sentence's subject a verb label for an object further on
//     (carriedVerb), pairs a standard relation their kinds and the text
//     between them give (pairRelation), else "related_to" when one of
//     the two is the sentence's subject — except for the members of one
//     list, a date and anything but the subject, and an entity and the
//     object of the subject's verb, which are not linked;
//   - places and organisations their country (countries);
//   - the document's main entity with the entities of other sentences
//     that nothing else links (pronounSubjects labels those a sentence
//     opening with "He" or "It" gives a verb), and
//     a sentence's subject with the entities of the next sentence when that
//     one opens with a pronoun ("He won ..."), at a lower weight.
//
// Numbers are never linked, two dates never, and a date with a place or
// organisation only through a verb.
func (e *Extractor) buildEdges(chunk extract.Chunk, text string, ents []entity, sents []span, toks []tok, sentOf []int, cjk bool, main string, mainCatOf category) []extract.Edge {
	eb := &edgeBuilder{chunk: chunk, text: chunk.Text, sents: sents, edgeAt: map[string]int{}, pairs: map[[2]string]bool{}}
	keys := make([]string, len(ents))
	for i, en := range ents {
		keys[i] = extract.NodeKey(en.name)
	}
	cl := &chunkLinker{eb: eb, text: text, ents: ents, keys: keys, sents: sents, toks: toks, sentOf: sentOf, cjk: cjk}
	cl.linkSentences(e.opts.PairWindow)
	cl.linkMain(main, mainCatOf)
	return eb.namedOnly()
}

// namedOnly returns the edges without the co-occurrence edges of pairs
// another edge names ("Ulm related_to Germany" beside "Ulm country
// Germany"): the named edge says more and the graph stays readable.
func (eb *edgeBuilder) namedOnly() []extract.Edge {
	named := map[[2]string]bool{}
	for _, ed := range eb.edges {
		if ed.Label != "related_to" {
			named[pairKey(ed.Source, ed.Target)] = true
		}
	}
	out := eb.edges[:0]
	for _, ed := range eb.edges {
		if ed.Label != "related_to" || !named[pairKey(ed.Source, ed.Target)] {
			out = append(out, ed)
		}
	}
	return out
}

// chunkLinker links the entities of one chunk for buildEdges.
type chunkLinker struct {
	eb     *edgeBuilder
	text   string // the chunk's text, masked
	ents   []entity
	keys   []string // the node key of each entity
	sents  []span
	toks   []tok
	sentOf []int
	cjk    bool
	// The sentence of the entity being linked: the index of its first
	// entity and of its subject, and whether the entity opens it.
	sentStart, subj int
	first           bool
	// The verb that joins the entity being linked to the entity right
	// after it joins it to the other members of a list that entity
	// opens too ("was written by Doc Pomus and Mort Shuman"): its label
	// and phrase, the list's last member so far and whether the edges
	// point to the entity.
	listLabel, listPhrase string
	listEnd               int
	listRev               bool
}

// pairEdge is the edge linkPair makes of two entities, as its label is
// settled.
type pairEdge struct {
	src, dst, label, phrase string
}

// turn swaps the edge's ends when reverse is set.
func (p *pairEdge) turn(reverse bool) {
	if reverse {
		p.src, p.dst = p.dst, p.src
	}
}

// linkSentences links each entity of a sentence with the next few
// (window) of the same sentence; headings state no relation.
func (cl *chunkLinker) linkSentences(window int) {
	ents := cl.ents
	heading := false // the sentence is a title or heading: it states no relation
	for a := 0; a < len(ents); a++ {
		cl.first = a == 0 || ents[a-1].sent != ents[a].sent
		if cl.first {
			cl.sentStart, cl.subj = a, sentenceSubject(ents, a, cl.toks, cl.sentOf, cl.sents, cl.cjk)
			heading = ents[a].sent < len(cl.sents) && headingLine(cl.eb.text, cl.sents[ents[a].sent])
		}
		if heading {
			continue
		}
		cl.listLabel, cl.listPhrase, cl.listEnd, cl.listRev = "", "", -1, false
		for b := a + 1; b < len(ents) && b <= a+window; b++ {
			if ents[a].sent != ents[b].sent {
				break
			}
			cl.linkPair(a, b)
		}
	}
}

// linkPair links entity a with entity b of its sentence, by a verb, a
// standard relation or, for a sentence's subject, co-occurrence; or
// leaves them apart (see buildEdges).
func (cl *chunkLinker) linkPair(a, b int) {
	ea, eb := cl.ents[a], cl.ents[b]
	p := pairEdge{src: cl.keys[a], dst: cl.keys[b]}
	if p.src == "" || p.dst == "" || p.src == p.dst {
		return
	}
	var skip bool
	if p.label, skip = cl.verbLabel(a, b); skip {
		return
	}
	cl.nameVerb(a, b, &p)
	verbLabel := p.label != "" && !beVerbs[p.label] && !cl.cjk
	cl.listOrKinds(a, b, &p)
	if !linkable(ea.cat, eb.cat, p.label != "") || p.label == "" && cl.apart(a, b) {
		return
	}
	if verbLabel && b == a+1 {
		cl.listLabel, cl.listPhrase, cl.listEnd, cl.listRev = p.label, p.phrase, b, p.src != cl.keys[a]
	}
	if p.label == "" && !cl.cjk {
		// A person and a prize of one sentence: the prize is
		// theirs ("Among the honours Pasteur received were the
		// Rumford Medal ...").
		if r, reverse, ok := kindRelation(ea, eb); ok {
			p.label = r.Label()
			p.turn(reverse)
		}
	}
	if p.label == "" {
		if !cooccurs(ea, eb, cl.cjk) {
			return
		}
		p.label = "related_to"
		p.turn(p.dst < p.src) // related_to has no direction
	}
	cl.eb.add(p.src, p.dst, p.label, ea.sent, weightSentence)
	if p.phrase != "" {
		cl.eb.keywords(p.src, p.dst, p.label, p.phrase)
	}
}

// verbLabel returns the verb group that joins entity a to entity b, ""
// for none; skip reports that b is the object of the sentence subject's
// verb, not of a, so the two are not linked.
func (cl *chunkLinker) verbLabel(a, b int) (label string, skip bool) {
	ea, eb := cl.ents[a], cl.ents[b]
	toks, sentOf, cjk, text := cl.toks, cl.sentOf, cl.cjk, cl.text
	// "Meitner was born on 7 November 1878 in Vienna": born in;
	// "Ada was born in London on 10 December 1815": born on (date
	// of birth).
	dated := ""
	if b == a+2 && (cl.ents[a+1].cat == catDate || eb.cat == catDate) && !cjk && subjectLike(toks, sentOf, ea) {
		dated = datedGroup(toks, tokIndex(toks, ea.end), cl.ents[a+1], eb)
	}
	switch {
	case b == a+1 && (cjk || hasCJK(text[ea.end:eb.start])):
		label = cjkVerb(text[ea.end:eb.start])
	case b == a+1:
		label = clauseVerb(toks, sentOf, ea, eb)
	case dated != "":
		label = dated
	case cl.first && !cjk:
		label = carriedVerb(toks, sentOf, ea, cl.ents[b-1], eb)
	case !cjk && carriedVerb(toks, sentOf, cl.ents[cl.sentStart], cl.ents[b-1], eb) != "":
		// b is the object of the subject's verb, not of a.
		return "", true
	}
	// A date is no object: "has been dead seven years" says when,
	// "was born in 1963" says it with a preposition.
	if label != "" && (eb.cat == catDate || ea.cat == catDate) && !isPrepWord(lastWord(label)) {
		label = ""
	}
	return label, false
}

// nameVerb names a verb label by the standard relation it reads as,
// keeping the verb as the edge's phrase.
func (cl *chunkLinker) nameVerb(a, b int, p *pairEdge) {
	if p.label == "" || cl.cjk {
		return
	}
	ea, eb := cl.ents[a], cl.ents[b]
	if b == a+1 && ea.cat != catPerson {
		// "is an album by": what the work is says the relation.
		if r, ok := workOf(cl.text, ea, eb, strings.TrimSpace(cl.text[ea.end:eb.start])); ok {
			p.label, p.phrase = r.Label(), p.label
		}
	}
	if p.phrase == "" {
		// A phrase with a standard reading takes its name ("was
		// born in" -> place of birth); the phrase stays as the
		// edge's keywords.
		if r, reverse, ok := relation.Phrase(p.label, relationKind(eb)); ok {
			p.label, p.phrase = r.Label(), p.label
			p.turn(reverse)
		}
	}
}

// listOrKinds labels a pair no verb labels: the next member of a list
// takes the verb that joined the list's first member, and a pair with no
// verb or a bare copula the relation their kinds and the text between
// them give.
func (cl *chunkLinker) listOrKinds(a, b int, p *pairEdge) {
	if cl.cjk {
		return
	}
	ents := cl.ents
	if p.label == "" && b == cl.listEnd+1 && ents[b].cat == ents[a+1].cat && isListGap(cl.text[ents[b-1].end:ents[b].start]) {
		p.label, p.phrase, cl.listEnd = cl.listLabel, cl.listPhrase, b
		p.turn(cl.listRev)
	}
	if p.label == "" || beVerbs[p.label] {
		// No verb, or a bare copula ("is a German racer"): what
		// the two are and how they stand in the text ("Ulm,
		// Germany"; "Ada (born 1815)").
		if r, reverse, ok := pairRelation(cl.text, ents, a, b); ok {
			p.label = r.Label()
			p.turn(reverse)
		}
	}
}

// apart reports whether co-occurrence alone leaves entities a and b
// unlinked.
func (cl *chunkLinker) apart(a, b int) bool {
	ents := cl.ents
	ea, eb := ents[a], ents[b]
	// Co-occurrence alone links a sentence's subject with what
	// it names, not the members of a list the sentence names
	// ("... in Iowa, Michigan and Ohio"; a list of subjects,
	// "Scrooge and Marley were partners", is linked) nor a date
	// with anything but the subject.
	if listed(cl.text, ents, a, b) && (cl.sentStart != a || !opensSpan(cl.text, cl.sents[min(ea.sent, len(cl.sents)-1)], ea)) ||
		(ea.cat == catDate || eb.cat == catDate) && !cl.first {
		return true
	}
	// Nor does it link two things the sentence names beside its
	// subject: "Alger moved to Calgary with Rod Sykes" says
	// nothing of Calgary and Sykes.
	return !cl.cjk && a != cl.subj && b != cl.subj
}

// linkMain links beyond sentences, outside CJK text: sentences that open
// with a pronoun, places and organisations with their countries, kin,
// and a biography's subject (the document's main entity, main of
// category mainCatOf) with what no sentence links.
func (cl *chunkLinker) linkMain(main string, mainCatOf category) {
	eb, ents, keys := cl.eb, cl.ents, cl.keys
	// The main entity, when the chunk names it.
	mainKey := extract.NodeKey(main)
	mainCat, hasMain := catMisc, false
	for i, en := range ents {
		if keys[i] == mainKey && mainKey != "" {
			mainCat, hasMain = en.cat, true
			break
		}
	}
	if cl.cjk {
		return
	}
	ref, refCat := "", mainCat
	switch {
	case hasMain:
		ref = mainKey
	case mainKey != "" && mainCatOf == catPerson:
		// A biography's "he" and "she" stand for its subject in
		// every chunk, not only those that name it.
		ref, refCat = mainKey, mainCatOf
	}
	eb.pronounSubjects(cl.text, ents, keys, cl.toks, ref, refCat)
	eb.countries(ents, keys)
	eb.continents(ents, keys)
	eb.locatedInCountry(ents, keys)
	eb.workDates(ents, keys)
	eb.kinship(cl.text, ents, keys, ref, refCat == catPerson)
	if !hasMain && mainKey != "" {
		// The main entity is named in another chunk of the document.
		mainCat, hasMain = mainCatOf, true
	}
	if hasMain && mainCat != catLocation && mainCat != catDate && mainCat != catNumber {
		eb.recordLabels(ents, keys, mainKey)
	}
	if hasMain && mainCat == catPerson {
		cl.linkBiography(mainKey)
	}
}

// linkBiography links a biography's subject (mainKey) to the people,
// places and organisations of its chunk that no sentence links to
// anything: the article is about them together. No other main entity is
// (a document's title linked to everything it names is a hub).
func (cl *chunkLinker) linkBiography(mainKey string) {
	eb := cl.eb
	linked := map[string]bool{}
	for _, ed := range eb.edges {
		linked[ed.Source], linked[ed.Target] = true, true
	}
	for i, en := range cl.ents {
		key := cl.keys[i]
		if key == "" || key == mainKey || en.cat == catDate || en.cat == catNumber || isDemonym(en) {
			continue
		}
		if eb.pairs[pairKey(mainKey, key)] || linked[key] {
			continue
		}
		p := pairKey(mainKey, key)
		eb.add(p[0], p[1], "related_to", en.sent, weightDistant)
	}
}

// pronounSubjects labels what a sentence that opens with a subject
// pronoun says of the one it stands for: "He moved to Alberta" after a
// sentence on Alger gives Alger -residence-> Alberta. The pronoun stands
// for the document's main entity (mainKey, of category mainCat) when the
// chunk names it, else for the
// previous sentence's subject; "he" and "she" only for a person, "it"
// never for one. The first entity after the pronoun's verb group is its
// object, and so is an entity after a comma or conjunction that opens
// another verb group of the pronoun's ("He was born in Sudbury and
// moved to Toronto"). The edges weigh as sentence links do; their
// pairs are then not linked beyond the sentence.
func (eb *edgeBuilder) pronounSubjects(text string, ents []entity, keys []string, toks []tok, mainKey string, mainCat category) {
	hasMain := mainKey != ""
	prev := -1 // the previous sentence's subject, an index into ents
	for i := 0; i < len(ents); {
		s := ents[i].sent
		j := i
		for j < len(ents) && ents[j].sent == s {
			j++
		}
		ref, refCat := "", catMisc
		switch {
		case hasMain:
			ref, refCat = mainKey, mainCat
		case prev >= 0 && ents[prev].sent == s-1:
			ref, refCat = keys[prev], ents[prev].cat
		}
		if sp := eb.sents[min(s, len(eb.sents)-1)]; ref != "" && s < len(eb.sents) {
			p := tokIndex(toks, sp.start)
			for p < len(toks) && toks[p].start < sp.end && strings.ContainsAny(toks[p].text, "\"'‘“(") {
				p++
			}
			if p < len(toks) && toks[p].start < ents[i].start && pronounFits(toks[p].text, refCat) {
				eb.pronounObjects(text, ents[i:j], keys[i:j], toks, p+1, ref, refCat)
			} else if q := leadPronoun(toks, p, sp, ents[i:j]); q >= 0 && pronounFits(titleCase(toks[q].text), refCat) {
				// "In 1930 she married ...", "There he met ...": the
				// pronoun after an opening phrase is the subject; what
				// the phrase names co-occurs with the one it stands for.
				k := i
				for k < j && ents[k].start < toks[q].start {
					if keys[k] != "" && keys[k] != ref {
						eb.pronounLink(ref, refCat, ents[k], keys[k])
					}
					k++
				}
				if k < j {
					eb.pronounObjects(text, ents[k:j], keys[k:j], toks, q+1, ref, refCat)
				}
			}
		}
		if opensSpan(text, eb.sents[min(s, len(eb.sents)-1)], ents[i]) && ents[i].cat != catDate && ents[i].cat != catNumber {
			prev = i
		} else {
			prev = -1
		}
		i = j
	}
}

// pronounLink links the one a pronoun stands for (ref, of category
// refCat) with a name of the pronoun's sentence by co-occurrence, at the
// lower weight, as a sentence's subject is linked with what it names.
func (eb *edgeBuilder) pronounLink(ref string, refCat category, en entity, key string) {
	p := pairKey(ref, key)
	if eb.pairs[p] || en.cat == catDate || !cooccurs(entity{cat: refCat}, en, false) || !linkable(refCat, en.cat, false) {
		return
	}
	eb.add(p[0], p[1], "related_to", en.sent, weightDistant)
}

// leadPronoun returns the index of a subject pronoun ("he", "she",
// "it", "they") that follows an opening phrase of a sentence ("In 1930
// she married", "After the war he moved", "There he met") before its
// first finite verb, when no name before it can be the sentence's
// subject; else -1. p is the sentence's first token.
func leadPronoun(toks []tok, p int, sp span, ents []entity) int {
	for q := p + 1; q < len(toks) && q <= p+10 && toks[q].start < sp.end; q++ {
		switch toks[q].tag {
		case "VBD", "VBZ", "VBP", "MD":
			return -1
		}
		switch toks[q].text {
		case "he", "she", "it", "they":
		default:
			continue
		}
		if q+1 >= len(toks) || !(strings.HasPrefix(toks[q+1].tag, "VB") || toks[q+1].tag == "MD" || toks[q+1].tag == "RB") {
			return -1
		}
		for _, en := range ents {
			if en.start < toks[q].start && en.cat != catDate && en.cat != catNumber && !isDemonym(en) && !afterPrep(toks, en) {
				return -1
			}
		}
		return q
	}
	return -1
}

// afterPrep reports whether a name stands in a prepositional phrase: a
// preposition (with determiners and adjectives) comes right before it.
func afterPrep(toks []tok, en entity) bool {
	k := tokIndex(toks, en.start) - 1
	for k >= 0 && (toks[k].tag == "DT" || toks[k].tag == "JJ" || toks[k].tag == "CD" || toks[k].tag == "PRP$") {
		k--
	}
	return k >= 0 && (toks[k].tag == "IN" || toks[k].tag == "TO")
}

// pronounFits reports whether a subject pronoun can stand for an entity
// of category c.
func pronounFits(pronoun string, c category) bool {
	switch pronoun {
	case "He", "She":
		return c == catPerson
	case "It":
		return c != catPerson && c != catDate && c != catNumber
	case "They":
		return c != catDate && c != catNumber
	}
	return false
}

// pronounObjects adds the edges from ref (what the pronoun stands for)
// to the objects of its verb groups among one sentence's entities; from
// is the token after the pronoun.
func (eb *edgeBuilder) pronounObjects(text string, ents []entity, keys []string, toks []tok, from int, ref string, refCat category) {
	for k := range ents {
		label := ""
		switch {
		case k == 0:
			label = verbGroup(toks, from, ents[0])
		case k == 1 && (ents[0].cat == catDate || ents[1].cat == catDate):
			// "She was born on 7 November 1878 in Vienna", "She died in
			// Passy on 4 July 1934".
			if label = datedGroup(toks, from, ents[0], ents[1]); label == "" {
				label = carriedGroup(toks, ents[0], ents[1])
			}
		default:
			label = carriedGroup(toks, ents[k-1], ents[k])
		}
		if keys[k] == "" || keys[k] == ref {
			continue
		}
		if label == "" || beVerbs[label] {
			// The pronoun is the sentence's subject: what the sentence
			// names and relates to nothing else co-occurs with the one
			// it stands for.
			eb.pronounLink(ref, refCat, ents[k], keys[k])
			continue
		}
		if ents[k].cat == catDate && !isPrepWord(lastWord(label)) || ents[k].cat == catNumber {
			continue
		}
		src, dst, phrase := ref, keys[k], ""
		if r, reverse, ok := relation.Phrase(label, relationKind(ents[k])); ok {
			label, phrase = r.Label(), label
			if reverse {
				src, dst = dst, src
			}
		}
		eb.add(src, dst, label, ents[k].sent, weightSentence)
		if phrase != "" {
			eb.keywords(src, dst, label, phrase)
		}
	}
}

// sentenceSubject returns the index of the subject of the sentence whose
// first entity is ents[first]: its first entity that is no date or
// number and no object of a preposition or verb ("In 1998, Alger ...";
// "Over the Christmas holiday Meitner discussed ...": Meitner); -1 when
// none is ("Public understanding of Turing's work grew"), and the
// sentence then links nothing by co-occurrence.
func sentenceSubject(ents []entity, first int, toks []tok, sentOf []int, sents []span, cjk bool) int {
	verb := -1 // the byte where the sentence's first finite verb starts
	if !cjk && ents[first].sent < len(sents) {
		sp := sents[ents[first].sent]
		for k := tokIndex(toks, sp.start); k < len(toks) && toks[k].start < sp.end; k++ {
			if t := toks[k].tag; t == "VBD" || t == "VBZ" || t == "VBP" || t == "MD" {
				verb = toks[k].start
				break
			}
		}
	}
	for i := first; i < len(ents) && ents[i].sent == ents[first].sent; i++ {
		en := ents[i]
		if cjk || hasCJK(en.name) {
			// CJK text has no tags: its first name is its subject.
			if en.cat != catDate && en.cat != catNumber {
				return i
			}
			continue
		}
		if verb >= 0 && en.start > verb {
			break
		}
		if en.cat == catDate || en.cat == catNumber || isDemonym(en) {
			continue
		}
		if subjectLike(toks, sentOf, en) {
			return i
		}
	}
	return -1
}

// isDemonym reports a nationality ("German", "Scottish"): it names a
// country only through what it qualifies, so it is no subject and is
// linked by no co-occurrence.
func isDemonym(e entity) bool {
	return demonymCountry[e.name] != "" && e.cat == catLocation && !isCountry(e.name)
}

// kindRelation is the relation what two names are says, where a
// sentence names both and states nothing else: a person and a prize
// (award received). reverse reports that it runs from b to a.
func kindRelation(a, b entity) (r relation.Relation, reverse, ok bool) {
	switch {
	case a.cat == catPerson && isPrize(b):
		return mustRelation("P166"), false, true
	case b.cat == catPerson && isPrize(a):
		return mustRelation("P166"), true, true
	}
	return relation.Relation{}, false, false
}

// isPrize reports a prize's name: its last word is Prize, Award, Medal
// or Trophy ("Nobel Prize in Physics" ends in its field, it opens with
// the prize).
func isPrize(e entity) bool {
	if e.cat == catPerson || e.cat == catDate || e.cat == catNumber {
		return false
	}
	for _, w := range strings.Fields(e.name) {
		if prizeHeads[w] {
			return true
		}
		if w == "in" || w == "for" || w == "of" {
			break
		}
	}
	return false
}

// cooccurs reports whether two entities of a sentence, one its subject,
// may be linked by co-occurrence alone: not when one is a nationality,
// nor for two organisations, two unclassified names, or a person and a
// date (on Re-DocRED such pairs are a stated relation one time in seven,
// against one in three for the rest). CJK text, whose verbs label few
// edges, and names a domain graph types keep every co-occurrence.
func cooccurs(a, b entity, cjk bool) bool {
	if isDemonym(a) || isDemonym(b) {
		return false
	}
	if cjk || a.typ != "" || b.typ != "" || hasCJK(a.name) || hasCJK(b.name) {
		return true
	}
	switch {
	case a.cat == catOrg && b.cat == catOrg,
		a.cat == catMisc && b.cat == catMisc,
		a.cat == catPerson && b.cat == catDate, a.cat == catDate && b.cat == catPerson:
		return false
	}
	return true
}

// opensSpan reports whether an entity opens its sentence (after "The" at
// most).
func opensSpan(text string, s span, en entity) bool {
	if en.start < s.start {
		return false
	}
	lead := strings.Fields(text[s.start:en.start])
	return len(lead) == 0 || len(lead) == 1 && (lead[0] == "The" || lead[0] == "the")
}

// listed reports whether entities a and b stand in one list: every gap
// from a to b holds only a separator ("," "and" "or" "&" ";").
func listed(text string, ents []entity, a, b int) bool {
	for i := a; i < b; i++ {
		gap := strings.TrimSpace(text[ents[i].end:ents[i+1].start])
		gap = strings.TrimSpace(strings.TrimPrefix(gap, ","))
		switch gap {
		case "", "and", "or", "&", ";", "as well as", "and the", "or the":
		default:
			return false
		}
	}
	return true
}
