// Package nlp is kgstudio's offline extraction strategy: no model service,
// pure Go. It tags each chunk with prose (the model is built once per
// Extractor), then finds entities with several passes that cover the weak
// spots of prose's named-entity recogniser:
//
//   - runs of proper nouns and capitalised words inside a sentence ("Bank of
//     England", "Salt Lake City", nationality adjectives such as "German"),
//     typed by prose's recogniser run on a small window around each run
//     (running it on whole chunks costs five times more and found no more
//     entities on Re-DocRED);
//   - plain-text markup never enters a name: underscores and asterisks
//     around words (_italics_, *bold*) and "--" dashes are blanked before
//     tagging, keeping byte offsets;
//   - one-word names used more often in lower case in the same document
//     ("Author", "May", "Want") are dropped, as are one-word names that are
//     capitalised only where a sentence or exclamation opens ("Hard and
//     sharp as flint", "Foggier yet"), unless a cue word types them;
//   - dates, years and numbers by pattern;
//   - within a document, a short form ("Lincoln") is read as a full name
//     ending with it ("Abraham Lincoln"). Full names are runs of two to four
//     capitalised words, leading titles dropped; a run that repeats a word
//     ("called Scrooge Scrooge") and greetings ("Merry Christmas") are no
//     full names. With one full name the short form takes it; with several,
//     the most frequent takes it when it occurs at least twice as often as
//     any other; otherwise the short form is ambiguous and stays a node of
//     its own;
//   - type corrections from cue words (titles such as "Mr." make a person,
//     a title before an office stays in the name and makes a person ("Lord
//     Mayor"), "University", "Company" an organisation, "River", "City",
//     "Churchyard" a location, also after "St. X's"; greetings and feast
//     days ("Christmas Eve") are concepts).
//
// Edge labels spell out clitics ("'ll" -> "will") and are left out when
// the verb belongs to a pronoun between the two entities ("Scrooge, and
// you'll keep your Christmas" gives no "keep" edge).
//
// Types map onto the chosen schema's types (see Options.EntityTypes):
// persons to Person, organisations to Organization, places to Location,
// dates and years to Date (or Time, else Data), numbers to Number (or
// Quantity, else Data), anything else to Concept.
//
// Nodes are keyed by extract.NodeKey of their name; a node's description is
// the sentences (at most Options.MaxSentences per chunk) where it appears.
// Entities in the same sentence are linked by an edge labelled with the verb
// phrase between them ("was born in"), or "related_to" when there is none;
// the weight counts the sentences. Citation markers ("[12]", "[6-7]",
// "[注 1]", "［3］") are blanked before any pass, keeping byte offsets.
//
// Text that is mostly CJK gets no NER; instead (see cjkEntities): titles
// in 《》 are works, other quoted or bracketed names concepts; dates, years
// and numbers with a unit ("5.6亿", "300万") are data, bare counts and
// ordinals no node; person names are a common surname plus one or two
// characters that open the document, recur, or stand by a cue word ("说",
// "导演", "搭档"); organisations, places, festivals and awards are typed
// by their suffix ("大学", "公司", "省", "电影节", "奖"). An edge between
// neighbouring CJK entities is labelled with a verb from a short list
// ("主演", "获得", "出生于") found between them, else related_to.
package nlp

import (
	"context"
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
	// SkipNER turns off prose's statistical recogniser (several times
	// faster); entities then come from the proper-noun, pattern and cue-word
	// passes only.
	SkipNER bool
}

// Extractor is the nlp strategy. It is safe for concurrent use.
type Extractor struct {
	model *prose.Model
	types typeMapper
	opts  Options

	// skipCorrections turns off the cue-word type corrections and the
	// common-word filter; tests use it to measure what they bring.
	skipCorrections bool

	mu     sync.Mutex
	tables map[string]*docEntry // by document digest

	cjk map[string]*cjkEntry // by document digest, guarded by mu

	nerMu    sync.Mutex
	nerCache map[string]nerResult // by window text
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

// New builds an Extractor; the prose model is loaded here, once.
func New(opts Options) (*Extractor, error) {
	if opts.MaxSentences <= 0 {
		opts.MaxSentences = 3
	}
	if opts.PairWindow <= 0 {
		opts.PairWindow = 3
	}
	model := prose.ModelFromData("kgstudio-en")
	if model == nil {
		return nil, extract.Errorf(extract.KindInternal, "load the prose model")
	}
	return &Extractor{
		model:    model,
		types:    newTypeMapper(opts.EntityTypes, opts.TypeMap),
		opts:     opts,
		tables:   map[string]*docEntry{},
		nerCache: map[string]nerResult{},
	}, nil
}

// Extract implements extract.Extractor. It returns an error only when ctx
// is done; any text, CJK included, yields a (possibly empty) graph.
func (e *Extractor) Extract(ctx context.Context, doc extract.Document, chunk extract.Chunk) (extract.ChunkResult, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return extract.ChunkResult{}, err
	}
	var (
		ents  []entity
		sents []span
		toks  []tok
	)
	text := maskCitations(chunk.Text)
	cjk := extract.IsCJK(text)
	if cjk {
		ents, sents = cjkEntities(text, e.cjkTablesFor(doc))
	} else {
		var err error
		ents, sents, toks, err = e.english(doc, maskMarkup(text))
		if err != nil {
			return extract.ChunkResult{}, err
		}
	}
	g := e.buildGraph(chunk, ents, sents, toks, cjk)
	return extract.ChunkResult{Chunk: chunk.Ref(), Graph: g, Elapsed: time.Since(start)}, nil
}

// span is a byte range of the chunk text.
type span struct{ start, end int }

// entity is one mention found in a chunk.
type entity struct {
	start, end int    // bytes in the chunk
	name       string // canonical name (may differ from the surface)
	cat        category
	typed      bool // category came from evidence, not a default
	sent       int  // sentence index
	tokFirst   int  // first token index, -1 for pattern matches
	tokLast    int
}

// tok is a prose token with its byte offsets in the chunk.
type tok struct {
	text, tag, label string
	start, end       int
}

// english runs the English passes over one chunk (text already passed
// through maskMarkup, so offsets are the chunk's).
func (e *Extractor) english(doc extract.Document, text string) ([]entity, []span, []tok, error) {
	pd, err := prose.NewDocument(text,
		prose.WithSegmentation(false),
		prose.WithExtraction(false),
		prose.UsingModel(e.model))
	if err != nil {
		return nil, nil, nil, extract.Wrap(extract.KindInternal, err, "tag text")
	}
	toks := alignTokens(text, pd.Tokens())
	sents, sentOf := tokenSentences(text, toks)
	tables := e.docTables(doc)

	runs := properNounSpans(text, toks, sentOf)
	pats := patternSpans(text)
	for i := range pats {
		pats[i].sent = sentAt(sents, pats[i].start)
	}
	ents := resolve(text, pats, runs)
	kept := ents[:0]
	for _, en := range ents {
		if en.tokFirst >= 0 {
			cued := false
			if !e.skipCorrections {
				correctType(&en, toks)
				cued = en.typed
				// A lone capitalised word seen only where sentences
				// open ("Hard and sharp as flint") is no name.
				if !en.typed && en.tokFirst == en.tokLast && opensSentence(text, en.start) && tables.onlyInitial(en.name) {
					continue
				}
			}
			if !en.typed && !e.opts.SkipNER {
				if c, ok := e.nerType(text, toks, sentOf, en); ok {
					en.cat, en.typed = c, true
				}
			}
			// A word used more in lower case ("Want is keenly felt")
			// is no name unless a cue word said so.
			if !cued && !e.skipCorrections && tables.commonWord(en.name) {
				continue
			}
		}
		if en.cat != catDate && en.cat != catNumber {
			if full, ok := tables.aliases[en.name]; ok {
				en.name = full
			}
		}
		kept = append(kept, en)
	}
	ents = kept
	return ents, sents, toks, nil
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
func (e *Extractor) buildGraph(chunk extract.Chunk, ents []entity, sents []span, toks []tok, cjk bool) extract.Graph {
	text := chunk.Text
	var g extract.Graph
	nodeAt := map[string]int{}
	sentKept := map[string]map[int]bool{}
	for _, en := range ents {
		key := extract.NodeKey(en.name)
		if key == "" {
			continue
		}
		i, ok := nodeAt[key]
		if !ok {
			i = len(g.Nodes)
			nodeAt[key] = i
			g.Nodes = append(g.Nodes, extract.Node{Key: key, Name: en.name, Type: e.types.name(en.cat),
				Properties: map[string]any{"category": en.cat.String()}})
			sentKept[key] = map[int]bool{}
		}
		n := &g.Nodes[i]
		n.Mentions = append(n.Mentions, extract.Mention{
			DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index,
			Start: chunk.Start + en.start, End: chunk.Start + en.end, Text: text[en.start:en.end],
		})
		if en.sent < len(sents) && !sentKept[key][en.sent] && len(sentKept[key]) < e.opts.MaxSentences {
			sentKept[key][en.sent] = true
			s := sentenceText(text, sents[en.sent])
			if n.Description != "" {
				n.Description += "\n"
			}
			n.Description += s
		}
	}

	// Edges: entities of one sentence, each with the next few.
	edgeAt := map[string]int{}
	for a := 0; a < len(ents); a++ {
		for b := a + 1; b < len(ents) && b <= a+e.opts.PairWindow; b++ {
			ea, eb := ents[a], ents[b]
			if ea.sent != eb.sent {
				break
			}
			src, dst := extract.NodeKey(ea.name), extract.NodeKey(eb.name)
			if src == "" || dst == "" || src == dst {
				continue
			}
			label := ""
			switch {
			case b == a+1 && cjk:
				label = cjkVerb(text[ea.end:eb.start])
			case b == a+1:
				label = verbPhrase(toks, ea.end, eb.start)
			}
			if label == "" {
				label = "related_to"
			}
			k := extract.EdgeKey(src, label, dst)
			sp := sents[ea.sent]
			m := extract.Mention{DocumentID: chunk.DocumentID, ChunkIndex: chunk.Index,
				Start: chunk.Start + sp.start, End: chunk.Start + sp.end}
			if i, ok := edgeAt[k]; ok {
				ed := &g.Edges[i]
				if ed.Mentions[len(ed.Mentions)-1] != m {
					ed.Weight++
					ed.Mentions = append(ed.Mentions, m)
				}
				continue
			}
			edgeAt[k] = len(g.Edges)
			g.Edges = append(g.Edges, extract.Edge{Source: src, Target: dst, Label: label, Weight: 1,
				Description: sentenceText(text, sp), Mentions: []extract.Mention{m}})
		}
	}
	return g
}

// sentenceText returns a sentence with white space collapsed, cut at 300
// characters.
func sentenceText(text string, s span) string {
	t := strings.Join(strings.Fields(text[s.start:s.end]), " ")
	if utf8.RuneCountInString(t) > 300 {
		r := []rune(t)
		t = string(r[:300]) + "…"
	}
	return t
}
