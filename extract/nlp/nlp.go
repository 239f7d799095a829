// Package nlp is kgstudio's offline extraction strategy: no model service,
// pure Go. It tokenises each chunk with prose and tags it, and labels
// entity windows, with prose's models (loaded once per Extractor and laid
// out for speed: tagger.go, maxent.go), then finds entities with passes that
// cover the weak spots of prose's named-entity recogniser. The rules are written for
// kinds of text (encyclopedia articles, novels, news), never for particular
// names.
//
// Non-content: Project Gutenberg headers and footers and "Produced by"
// credits are blanked before any pass (see boilerplate), as are citation
// markers ("[12]", "［3］") and plain-text markup (_italics_, *bold*, "--"),
// all keeping byte offsets.
//
// Names (runs.go) are runs of capitalised words within a sentence:
//   - initials belong to a name ("William P. Carey", "Alan B. Miller
//     Hall"), and so do "&" ("Smith & Wesson"), lower-case particles
//     ("Giuseppe di Leonessa"), hyphenated parts and a nickname in quotes
//     (Wilfried "Willi" Schneider);
//   - "of" joins only after a word that heads names ("Bank of England",
//     "Gulf of Mexico", "Treaty of Paris", "Master of Arts") or a single
//     common noun ("Ghost of Christmas Past"), never after a person ("Tony
//     Day of Cape Town"); a possessive ends a name except in places ("St.
//     Paul's Churchyard"); no name crosses a sentence break (a word with a
//     full stop is split from it unless an abbreviation);
//   - leading titles and ranks go to the node's "title" property ("Prime
//     Minister Sheikh Hasina" -> "Sheikh Hasina"), except an office ("Lord
//     Mayor"); a run of titles or occupations alone is no node; a
//     nationality before a title or a person is a place of its own
//     ("Malaysian Prime Minister ..."); an adjective before a known person
//     is dropped ("Poor Bob", "Old Marley");
//   - titles in double quotes are one name ("Take a Letter Miss Smith");
//     a year joins the event after it ("2002 Winter Olympics") and a number
//     the name before it ("Billboard Hot 100").
//
// Junk: headings and shouting (lines or runs in capitals), words seen
// capitalised only where sentences open or used more in lower case, lone
// head words ("the Board"), common acronyms ("TV", "CEO"), clitics ("I'd")
// and numbers without worth are no nodes. Kept numbers (numbers.go): dates,
// years, decades and centuries ("the 1950s"), durations ("three weeks"),
// money ("$3 billion"), measures ("800 m"), grouped and decimal numbers,
// counts before a plural noun ("500 employees") and spelled-out cardinals;
// bare page and list numbers are dropped.
//
// Types (typing.go), strongest evidence first: the name itself (a
// gazetteer of countries, regions, cities, nationalities, faiths and
// parties; the head word: "University", "Records", "Party", "House of" make
// an organisation, "River", "County" a place, "Treaty", "Olympics" an event
// or work; an acronym; a title, an initial, a given name or "Jr." a
// person); then the document (the class noun that describes the name: "X
// is a Turkish weapons manufacturer", "the band X", "published by X"; a
// title, "said" or "(born" marking a person); then the words around it
// and the types of a list's other members; then prose's recogniser; else
// Concept. A word the tagger takes for a common noun, or one after "the",
// stays a Concept rather than taking the recogniser's weak guess. All
// mentions of a name in a chunk take the type with the most evidence, and
// chunk graphs carry their counts (type_counts) so that merging votes
// across the document.
//
// Merging (tables.go): a person's surname, or a given name used with a
// frequent full name, stands for the full name ("Lincoln" -> "Abraham
// Lincoln", "Jacob" -> "Jacob Marley"); with several full names the most
// frequent takes it when it occurs at least twice as often as any other.
// Only person short forms fold, never into a name opened by a place word
// ("Vancouver" is not "West Vancouver"), never common nouns ("Ghost" is not
// "Marley's Ghost"), and a woman's title keeps its own node ("Mrs.
// Cratchit" is not "Bob Cratchit").
//
// Edges (edges.go): entities of one sentence are linked with the next few
// (Options.PairWindow); a verb labels the edge only when the first entity
// is the subject and the second the object of one clause ("moved to", "is
// capital of"), else the edge is "related_to" (one edge for both
// directions). An article-sized document's main entity (the subject of its
// first sentence) is linked to the entities of its other sentences, and in
// other documents a sentence's subject to the entities of the next
// sentence when that opens with a pronoun; these links weigh 0.5 per
// sentence, others 1. Numbers are never linked, two dates never, and a
// date to a place or organisation only by a verb.
//
// Types map onto the chosen schema's types (see Options.EntityTypes):
// persons to Person, organisations to Organization, places to Location,
// dates and years to Date (or Time, else Data), numbers to Number (or
// Quantity, else Data), anything else to Concept.
//
// Nodes are keyed by extract.NodeKey of their name; a node's description is
// the sentences (at most Options.MaxSentences per chunk) where it appears.
//
// Text that is mostly CJK gets no NER; instead (see cjkEntities): titles
// in 《》 are works, other quoted or bracketed names concepts; dates, years
// and numbers with a unit ("5.6亿", "300万") are data, bare counts and
// ordinals no node; person names are a common surname plus one or two
// characters that open the document, recur, or stand by a cue word ("说",
// "导演", "搭档"), and not inside a word: a candidate nearly always glued
// to the same character ("白质" of "蛋白质", "叶分泌" of "前叶分泌") is
// none; a name met once is one beside a cue, across "和" or "、" from
// an accepted name, before a Japanese honorific ("田中さん") or standing
// alone in text of another script, and foreign names joined by a name
// dot ("列夫·托尔斯泰") are persons too; organisations, places, festivals and
// awards are typed by their suffix ("大学", "公司", "省", "城", "山",
// "电影节", "奖") and start at a boundary (punctuation, a particle, or a
// verb such as "获得", "凭借"); places without a suffix ("北京", "四川")
// come from a gazetteer. CJK runs inside mostly non-CJK text go through
// the same rules, beside the English entities of their sentence. An edge
// between neighbouring CJK entities is labelled with a verb from a short
// list ("主演", "获得", "出生于") found between them, else related_to; no
// pair spans "；".
package nlp

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	prose "github.com/jdkato/prose/v2"

	"github.com/kgstudio/kgstudio/extract"
)

// Options configures an Extractor.
type Options struct {
	// EntityTypes are the type names available (from the chosen schema);
	// empty means DefaultEntityTypes.
	EntityTypes []string
	// TypeMap overrides the mapping of a label ("PER", "ORG", "LOC", "TIME",
	// "NUM", "MISC" or a prose label such as "PERSON", "GPE") to a type name.
	TypeMap map[string]string
	// MaxSentences bounds the sentences kept as a node's description per
	// chunk (default 3).
	MaxSentences int
	// PairWindow links each entity of a sentence to at most this many
	// following entities of the same sentence (default 3).
	PairWindow int
	// SkipNER turns off the statistical recogniser (prose's entity model);
	// entities then come from the proper-noun, pattern and cue-word passes
	// only. It saves loading the model, no longer much time per chunk: the
	// Carol benchmark runs at the same KB per CPU-second either way.
	SkipNER bool
}

// Extractor is the nlp strategy. It is safe for concurrent use.
type Extractor struct {
	// tagger tags chunks (see tagger.go) and recognizer labels entities
	// (see maxent.go) with prose's weights; prose itself only tokenises.
	tagger     *tagger
	recognizer *recognizer
	types      typeMapper
	opts       Options

	// skipCorrections turns off the typing rules, the junk filters and the
	// per-name vote (types then come from prose's recogniser alone); tests
	// use it to measure what they bring.
	skipCorrections bool

	mu     sync.Mutex
	tables map[string]*docEntry // by document digest

	cjk map[string]*cjkEntry // by document digest, guarded by mu

	nerMu    sync.Mutex
	nerCache map[string]nerResult // by window text

	spanMu    sync.Mutex
	spanWords map[string][]string // prose's tokens of a run of text without white space
}

// docEntry is the lazily built per-document table.
type docEntry struct {
	once sync.Once
	t    *docTables
}

// nerResult is a cached NER answer for one window.
type nerResult struct {
	cat category
	ok  bool
}

var _ extract.Extractor = (*Extractor)(nil)

// loadTagger and loadRecognizer decode prose's models once per process:
// they are read-only once loaded, so every Extractor shares them (decoding
// them took 0.3 s of CPU and 128 MB of allocations per Extractor).
var (
	loadTagger     = sync.OnceValues(newTagger)
	loadRecognizer = sync.OnceValues(newRecognizer)
)

// New builds an Extractor; prose's models are loaded on the first call of
// the process (the entity model only when the recogniser is on).
func New(opts Options) (*Extractor, error) {
	if opts.MaxSentences <= 0 {
		opts.MaxSentences = 3
	}
	if opts.PairWindow <= 0 {
		opts.PairWindow = 3
	}
	// The two models decode at once, on two cores where there are.
	var (
		rec    *recognizer
		recErr error
		loaded = make(chan struct{})
	)
	go func() {
		defer close(loaded)
		if !opts.SkipNER {
			rec, recErr = loadRecognizer()
		}
	}()
	tg, err := loadTagger()
	<-loaded
	if err != nil {
		return nil, extract.Wrap(extract.KindInternal, err, "load the tagger model")
	}
	if recErr != nil {
		return nil, extract.Wrap(extract.KindInternal, recErr, "load the entity model")
	}
	return &Extractor{
		tagger:     tg,
		recognizer: rec,
		types:      newTypeMapper(opts.EntityTypes, opts.TypeMap),
		opts:       opts,
		tables:     map[string]*docEntry{},
		nerCache:   map[string]nerResult{},
		spanWords:  map[string][]string{},
	}, nil
}

// Extract implements extract.Extractor. It returns an error only when ctx
// is done; any text, CJK included, yields a (possibly empty) graph.
func (e *Extractor) Extract(ctx context.Context, doc extract.Document, chunk extract.Chunk) (extract.ChunkResult, error) {
	return e.extract(ctx, doc, chunk, nil)
}

// extract runs the passes over chunk; the names of domain, when not nil,
// are found as a gazetteer (see withDomain).
func (e *Extractor) extract(ctx context.Context, doc extract.Document, chunk extract.Chunk, domain *extract.Domain) (extract.ChunkResult, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return extract.ChunkResult{}, err
	}
	var (
		ents    []entity
		sents   []span
		toks    []tok
		sentOf  []int
		main    string
		mainCat category
	)
	text := maskCitations(chunk.Text)
	cjk := extract.IsCJK(text)
	if cjk {
		ents, sents = cjkEntities(text, e.cjkTablesFor(doc))
	} else {
		tables := e.docTables(doc)
		if t, ok := tables.blank(maskMarkup(text), chunk.Start); ok {
			ents, sents, toks, sentOf = e.english(doc, t, chunk.Start, tables)
		}
		main, mainCat = tables.main, tables.mainCat
		if hasCJK(text) {
			ents, sents = mixCJK(text, ents, sents, e.cjkTablesFor(doc))
		}
	}
	if domain != nil {
		ents = domainEntities(text, ents, sents, domain)
	}
	g := e.buildGraph(chunk, text, ents, sents, toks, sentOf, cjk, main, mainCat)
	return extract.ChunkResult{Chunk: chunk.Ref(), Graph: g, Elapsed: time.Since(start)}, nil
}

// span is a byte range of the chunk text.
type span struct{ start, end int }

// entity is one mention found in a chunk.
type entity struct {
	start, end int    // bytes in the chunk
	name       string // canonical name (may differ from the surface)
	cat        category
	typed      bool   // category came from evidence, not a default
	strong     bool   // category came from the candidate's own pattern
	ev         int    // evidence strength (evDefault ... evName)
	prio       int    // candidate priority (prioRun ... prioQuoted)
	title      string // a title or rank before a person's name ("Mr.")
	typ        string // the domain graph's type of a gazetteer match (see withDomain)
	sent       int    // sentence index
	tokFirst   int    // first token index, -1 for pattern matches
	tokLast    int
}

// tok is a prose token with its byte offsets in the chunk.
type tok struct {
	text, tag, label string
	start, end       int
}

// english runs the English passes over one chunk (text already passed
// through maskCitations, maskMarkup and the boilerplate blanking, so
// offsets are the chunk's): name candidates, dates and numbers, typing,
// junk filters, the per-name type vote and the short-form aliases.
func (e *Extractor) english(doc extract.Document, text string, at int, tables *docTables) ([]entity, []span, []tok, []int) {
	// prose tokenises; the tagger (prose's, laid out for speed) tags.
	pd, err := prose.NewDocument(text,
		prose.WithSegmentation(false),
		prose.WithTagging(false),
		prose.WithExtraction(false))
	if err != nil {
		return nil, nil, nil, nil
	}
	ptoks := pd.Tokens()
	words := make([]string, len(ptoks))
	for i := range ptoks {
		words[i] = ptoks[i].Text
	}
	toks := alignTokens(text, ptoks)
	tagWords := words
	if hasCJK(text) {
		tagWords = cjkStandIns(words)
	}
	for i, t := range shareSpanTags(text, toks, words, e.tagger.tag(tagWords)) {
		toks[i].tag = t
	}
	toks = fixTokens(text, toks)
	sents, sentOf := tokenSentences(text, toks)

	rb := &runBuilder{text: text, toks: toks, sentOf: sentOf, tables: tables}
	cands := rb.namedNumbers(rb.spans())
	cands = append(cands, patternSpans(text, toks, sentOf)...)
	for _, q := range quotedTitles(text) {
		q.sent = sentAt(sents, q.start)
		cands = append(cands, q)
	}
	if l := tables.lead; l.end > l.start && l.start >= at && l.end <= at+len(text) {
		if c, ok := leadCandidate(text, toks, sentOf, l.start-at, l.end-at); ok {
			cands = append(cands, c)
		}
	}
	ents := resolve(text, cands)
	if !e.skipCorrections {
		e.classify(text, ents, toks, sentOf, tables)
	} else if !e.opts.SkipNER {
		for i := range ents {
			if ents[i].tokFirst >= 0 && !ents[i].typed {
				if c, ok := e.nerType(text, toks, sentOf, ents[i]); ok {
					ents[i].cat, ents[i].typed = c, true
				}
			}
		}
	}
	kept := ents[:0]
	for _, en := range ents {
		if en.tokFirst >= 0 && !e.skipCorrections && e.junk(text, en, toks, tables) {
			continue
		}
		kept = append(kept, en)
	}
	ents = kept
	if !e.skipCorrections {
		vote(ents)
	}
	for i := range ents {
		e.fold(&ents[i], tables)
	}
	if !e.skipCorrections {
		foldLocal(ents, tables.main)
		foldAcronyms(text, ents)
	}
	return ents, sents, toks, sentOf
}

// foldAcronyms makes an acronym in parentheses right after a name one
// entity with it, every mention of it in the chunk ("the Overseas
// Private Investment Corporation (OPIC) ... OPIC"): its letters are the
// name's initials, in order, the first the name's first (Schwartz and
// Hearst's test for abbreviations).
func foldAcronyms(text string, ents []entity) {
	into := map[string]entity{}
	for i := 0; i+1 < len(ents); i++ {
		a, b := ents[i], ents[i+1]
		if !strings.Contains(a.name, " ") || a.name == b.name || strings.TrimSpace(text[a.end:b.start]) != "(" ||
			!strings.HasPrefix(strings.TrimLeft(text[b.end:], " "), ")") {
			continue
		}
		if acronymOf(b.name, a.name) {
			into[b.name] = a
		}
	}
	if len(into) == 0 {
		return
	}
	// The one entity takes the category of the stronger evidence; on a
	// tie an organisation's (an acronym in parentheses mostly names one).
	for short, a := range into {
		for _, en := range ents {
			if (en.name == short || en.name == a.name) && (en.ev > a.ev || en.ev == a.ev && en.cat == catOrg) {
				a.cat, a.typed, a.ev = en.cat, en.typed, en.ev
			}
		}
		into[short] = a
	}
	for i := range ents {
		if a, ok := into[ents[i].name]; ok {
			ents[i].name = a.name
		}
		for _, a := range into {
			if ents[i].name == a.name {
				ents[i].cat, ents[i].typed = a.cat, a.typed
			}
		}
	}
}

// acronymOf reports whether short (two to eight capitals, digits and
// "&") abbreviates name: its letters are initials of name's words in
// order, the first letter the first word's.
func acronymOf(short, name string) bool {
	if len(short) < 2 || len(short) > 8 || !isAllCaps(short) {
		return false
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' })
	w := 0
	for k, r := range short {
		if !unicode.IsLetter(r) {
			continue
		}
		for w < len(words) && !strings.EqualFold(string([]rune(words[w])[0]), string(r)) {
			if k == 0 {
				return false
			}
			w++
		}
		if w == len(words) {
			return false
		}
		w++
	}
	return true
}

// foldLocal replaces a lone word typed on weak evidence (the recogniser's
// guess, or none) by the one person's full name in the chunk that ends
// with it: "Lovelace" after "Ada Lovelace" when no word list knew "Ada".
// A cue around the word ("in Lovelace") or a title keeps it apart, and a
// surname two full names share stays as it is, and so does the document's
// main entity (edges are drawn from it by name).
func foldLocal(ents []entity, main string) {
	full := map[string]string{}
	for _, en := range ents {
		if en.cat != catPerson || !strings.Contains(en.name, " ") || !allCapitalised(en.name) {
			continue
		}
		last := en.name[strings.LastIndexByte(en.name, ' ')+1:]
		if prev, ok := full[last]; ok && prev != en.name {
			full[last] = ""
			continue
		}
		full[last] = en.name
	}
	for i := range ents {
		en := &ents[i]
		if en.tokFirst < 0 || en.tokFirst != en.tokLast || en.ev > evNER || en.title != "" || strings.Contains(en.name, " ") || en.name == main {
			continue
		}
		if name := full[en.name]; name != "" {
			en.name, en.cat = name, catPerson
		}
	}
}

// leadCandidate makes a candidate of the document's lead subject (see
// docTables.lead) when its bounds fall on token bounds.
func leadCandidate(text string, toks []tok, sentOf []int, s, e int) (entity, bool) {
	f := tokIndex(toks, s)
	if f >= len(toks) || toks[f].start != s {
		return entity{}, false
	}
	l := f
	for l+1 < len(toks) && toks[l+1].end <= e {
		l++
	}
	if toks[l].end != e {
		return entity{}, false
	}
	return entity{start: s, end: e, tokFirst: f, tokLast: l, sent: sentOf[f], prio: prioQuoted}, true
}

// junk reports a candidate that is no name: a lone capitalised word seen
// only where sentences open ("Hard and sharp as flint"), a word used more
// in lower case ("Want is keenly felt") unless its own name or a title
// typed it, a lone letter.
func (e *Extractor) junk(text string, en entity, toks []tok, tables *docTables) bool {
	single := en.tokFirst == en.tokLast
	if single && (len(en.name) == 1 || commonAcronyms[en.name] || nameSuffixes[en.name] || numberWords[strings.ToLower(en.name)]) {
		return true
	}
	// A head word alone ("the Board", "the Church", "Region") is a common
	// noun, unless it names one institution ("Parliament").
	if _, head := headCat[en.name]; single && (head || roleWords[en.name]) && !institutions[en.name] && en.title == "" {
		return true
	}
	if en.ev >= evName {
		return false
	}
	if single && en.ev < evContext && opensSentence(text, en.start) && tables.onlyInitial(en.name) {
		return true
	}
	if en.ev < evContext && tables.commonWord(en.name) {
		return true
	}
	return false
}

// fold replaces a person's short form by the full name the document uses
// ("Lincoln" -> "Abraham Lincoln"), and names a woman titled "Mrs.",
// "Miss" or "Ms." by title and surname when the surname alone stands for
// someone else ("Mrs. Cratchit" is not "Bob Cratchit").
func (e *Extractor) fold(en *entity, tables *docTables) {
	if en.tokFirst < 0 || en.cat != catPerson && en.cat != catMisc && en.ev > evNER {
		return
	}
	full, ok := tables.aliases[en.name]
	if strings.Contains(en.name, " ") && (!ok || full == en.name) {
		return // only a short form of the main entity's name has spaces
	}
	if femaleTitles[en.title] {
		if ok || tables.bare[en.name] > 0 {
			en.name = en.title + " " + en.name
		}
		return
	}
	if !ok || en.cat == catMisc && en.ev >= evName {
		return
	}
	en.name, en.cat = full, catPerson
}

// allCapitalised reports whether every word of name starts with an upper
// case letter: "Ada Lovelace", not "Scrooge and Marley".
func allCapitalised(name string) bool {
	for _, w := range strings.Fields(name) {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// alignTokens finds each token's byte offsets in text. prose rewrites
// curly quotes to straight ones, so a straight quote in a token matches its
// curly forms too. A token that cannot be found keeps the previous end as
// an empty span.
func alignTokens(text string, ptoks []prose.Token) []tok {
	out := make([]tok, 0, len(ptoks))
	pos := 0
	for _, pt := range ptoks {
		s, e, ok := matchAt(text, pos, pt.Text)
		if !ok {
			out = append(out, tok{text: pt.Text, tag: pt.Tag, label: pt.Label, start: pos, end: pos})
			continue
		}
		out = append(out, tok{text: text[s:e], tag: pt.Tag, label: pt.Label, start: s, end: e})
		pos = e
	}
	return out
}

// matchAt finds word in text at or after pos, skipping only white space
// first (and, as a fallback, searching ahead a little).
func matchAt(text string, pos int, word string) (int, int, bool) {
	s := pos
	for s < len(text) {
		r, n := utf8.DecodeRuneInString(text[s:])
		if !unicode.IsSpace(r) {
			break
		}
		s += n
	}
	if e, ok := matchWord(text, s, word); ok {
		return s, e, true
	}
	// Fallback: look ahead within a short window.
	limit := s + 64
	if limit > len(text) {
		limit = len(text)
	}
	for i := s; i < limit; i++ {
		if !utf8.RuneStart(text[i]) {
			continue
		}
		if e, ok := matchWord(text, i, word); ok {
			return i, e, true
		}
	}
	return 0, 0, false
}

// matchWord matches word at text[s:], letting ' and " match curly quotes.
func matchWord(text string, s int, word string) (int, bool) {
	i := s
	for _, wr := range word {
		if i >= len(text) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == wr:
		case wr == '\'' && (r == '\u2018' || r == '\u2019'):
		case wr == '"' && (r == '\u201c' || r == '\u201d'):
		default:
			return 0, false
		}
		i += n
	}
	return i, true
}

// tokenSentences groups tokens into sentences: a sentence ends after a
// token ".", "!", "?" (prose keeps abbreviations such as "Mr." whole) or at
// a blank line. It returns the sentence spans and each token's sentence.
func tokenSentences(text string, toks []tok) ([]span, []int) {
	var sents []span
	sentOf := make([]int, len(toks))
	first := 0
	closeAt := func(last int) {
		if first <= last {
			sents = append(sents, span{toks[first].start, toks[last].end})
		}
		first = last + 1
	}
	for i, t := range toks {
		if i > first && strings.Contains(text[toks[i-1].end:t.start], "\n\n") {
			closeAt(i - 1)
		}
		sentOf[i] = len(sents)
		switch t.text {
		case ".", "!", "?", "...", "?!", "!?":
			// A closing quote or bracket right after stays in the sentence.
			if i+1 < len(toks) && isCloser(toks[i+1].text) && toks[i+1].start == t.end {
				continue
			}
			closeAt(i)
		default:
			if isCloser(t.text) && i > 0 && toks[i-1].end == t.start {
				switch toks[i-1].text {
				case ".", "!", "?":
					closeAt(i)
				}
			}
		}
	}
	closeAt(len(toks) - 1)
	return sents, sentOf
}

// isCloser reports closing quotes and brackets.
func isCloser(s string) bool {
	switch s {
	case "'", "\"", ")", "]", "\u2019", "\u201d":
		return true
	}
	return false
}

// sentAt returns the sentence holding byte offset at.
func sentAt(sents []span, at int) int {
	i := sort.Search(len(sents), func(i int) bool { return sents[i].end > at })
	if i == len(sents) && i > 0 {
		return i - 1
	}
	return i
}

// buildGraph turns the entities of a chunk into nodes and edges.
// Mentions and descriptions quote the chunk text itself, markup included.
// CJK text has no tokens: its edge labels come from cjkVerb.
func (e *Extractor) buildGraph(chunk extract.Chunk, masked string, ents []entity, sents []span, toks []tok, sentOf []int, cjk bool, main string, mainCat category) extract.Graph {
	text := chunk.Text
	var g extract.Graph
	nodeAt := map[string]int{}
	sentKept := map[string]map[int]bool{}
	pages := pageLines(text)
	for _, en := range ents {
		key := extract.NodeKey(en.name)
		if key == "" {
			continue
		}
		i, ok := nodeAt[key]
		if !ok {
			i = len(g.Nodes)
			nodeAt[key] = i
			typ := e.types.name(en.cat)
			if en.typ != "" {
				typ = en.typ
			}
			g.Nodes = append(g.Nodes, extract.Node{Key: key, Name: en.name, Type: typ,
				Properties: map[string]any{"category": en.cat.String()}})
			sentKept[key] = map[int]bool{}
		}
		n := &g.Nodes[i]
		if en.typ != "" {
			n.Type = en.typ // the domain graph's type wins
		}
		if en.title != "" && n.Properties["title"] == nil && en.cat == catPerson {
			n.Properties["title"] = en.title
		}
		n.Mentions = append(n.Mentions, extract.Mention{
			DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index,
			Start: chunk.Start + en.start, End: chunk.Start + en.end, Text: text[en.start:en.end],
		})
		if en.sent < len(sents) && !sentKept[key][en.sent] && len(sentKept[key]) < e.opts.MaxSentences && !headingLine(text, sents[en.sent]) {
			if sent, ok := proseOf(sents[en.sent], en.start, pages); ok {
				sentKept[key][en.sent] = true
				s := sentenceText(text, sent)
				if n.Description != "" {
					n.Description += "\n"
				}
				n.Description += s
			}
		}
	}
	for i := range g.Nodes {
		g.Nodes[i].Properties[extract.PropTypeCounts] = map[string]int{g.Nodes[i].Type: len(g.Nodes[i].Mentions)}
	}
	g.Edges = e.buildEdges(chunk, masked, ents, sents, toks, sentOf, cjk, main, mainCat)
	return g
}

// pageLines returns the lines of text that are entries of a table of
// contents or a list of illustrations: words, then a gap of two or more
// spaces or a dot leader, then a page (a number, a range such as 28-29, a
// roman numeral, or "Frontispiece") closing the line, as in
// "Heading to Stave One      3". Each span runs from the line's start to
// its page.
func pageLines(text string) []span {
	var out []span
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at
		}
		line := strings.TrimRight(text[at:end], " \t\r")
		if i := strings.LastIndexAny(line, " \t."); i > 0 && isPageRef(strings.Trim(line[i+1:], "_")) {
			gap := line[:i+1]
			body := strings.TrimRight(gap, " \t.")
			if strings.TrimSpace(body) != "" && (strings.HasSuffix(gap, "  ") || strings.HasSuffix(gap, "\t") ||
				strings.Contains(gap[len(body):], "...")) {
				out = append(out, span{at, at + len(line)})
			}
		}
		at = end + 1
	}
	return out
}

// isPageRef reports a page reference: 1 to 4 digits, a range of them, a
// lower-case roman numeral, or "Frontispiece".
func isPageRef(s string) bool {
	if s == "" {
		return false
	}
	if s == "Frontispiece" {
		return true
	}
	if strings.Trim(s, "ivxlc") == "" {
		return len(s) <= 7
	}
	a, b, rng := strings.Cut(s, "-")
	if !rng {
		a, b, rng = strings.Cut(s, "–")
	}
	digits := func(x string) bool { return len(x) >= 1 && len(x) <= 4 && strings.Trim(x, "0123456789") == "" }
	return digits(a) && (!rng || digits(b))
}

// proseOf returns the part of sentence s that is prose for a mention at
// byte at, leaving out entries of a table of contents or a list of
// illustrations (see pageLines): none when the mention is in one (an
// entry's page may close a later line), else what follows the last entry
// before the mention.
func proseOf(s span, at int, pages []span) (span, bool) {
	for _, p := range pages {
		if p.end <= s.start || p.start >= s.end {
			continue
		}
		if p.end > at {
			return span{}, false
		}
		s.start = p.end
	}
	return s, s.start < s.end
}

// headingLine reports a sentence that is a line of its own with no
// closing punctuation and a dozen words at most: a document's title or a
// section's heading, which is no sentence of prose. It describes nothing
// and links nothing.
func headingLine(text string, s span) bool {
	t := strings.TrimSpace(text[s.start:s.end])
	if t == "" || strings.ContainsRune(t, '\n') {
		return false
	}
	words := 0
	for i := 0; i < len(t); i++ {
		if t[i] != ' ' && (i == 0 || t[i-1] == ' ') {
			words++
		}
	}
	if words > 12 {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(t); strings.ContainsRune(".!?;:,\"”’')]…", r) {
		return false
	}
	before := strings.TrimRight(text[:s.start], " \t")
	after := strings.TrimLeft(text[s.end:], " \t")
	return (before == "" || strings.HasSuffix(before, "\n")) && (after == "" || strings.HasPrefix(after, "\n"))
}

// sentenceText returns a sentence with white space collapsed, cut at 300
// characters.
func sentenceText(text string, s span) string {
	t := strings.Join(strings.Fields(plainMarkup(text[s.start:s.end])), " ")
	if utf8.RuneCountInString(t) > 300 {
		r := []rune(t)
		t = string(r[:300]) + "…"
	}
	return t
}

// Markdown's marks, which a description quotes the words of, not the
// marks: a heading's #s and a list item's bullet at the start of a line,
// **strong** and __strong__, *emphasis*, and a link's [text](target).
var (
	mdLineMark = regexp.MustCompile(`(?m)^[ \t]*(?:#{1,6}|[-*+]|\d{1,3}[.)])[ \t]+`)
	mdStrong   = regexp.MustCompile(`(\*\*|__)(\S(?:[^\n]*?\S)?)(\*\*|__)`)
	mdEm       = regexp.MustCompile(`(^|[^\w*])\*(\S(?:[^*\n]*?\S)?)\*($|[^\w*])`)
	mdLink     = regexp.MustCompile(`\[([^\]\n]+)\]\([^)\s]+\)`)
)

// plainMarkup is text without Markdown's marks (see above); text with
// none is returned as it is.
func plainMarkup(text string) string {
	if !strings.ContainsAny(text, "#*-+_[0123456789") {
		return text
	}
	text = mdLineMark.ReplaceAllString(text, "")
	text = mdStrong.ReplaceAllString(text, "$2")
	text = mdEm.ReplaceAllString(text, "$1$2$3")
	return mdLink.ReplaceAllString(text, "$1")
}
