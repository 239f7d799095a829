package nlp

import (
	"strings"
	"unicode"

	prose "github.com/jdkato/prose/v2"
)

// nerType asks the recogniser (prose's entity model, see maxent.go) for the
// category of an entity, looking only at a window of two tokens around it
// within its sentence. Answers are cached by window text, so the result
// depends on the window alone.
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
	return spanAnswer(e.nerTokens(window), s, end)
}

// spanAnswer reads the category of the span [s, e) from labelled tokens as
// runNER describes.
func spanAnswer(toks []tok, s, end int) nerResult {
	var r nerResult
	for _, t := range toks {
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

// nerTokens labels the tokens of window as prose's NewDocument would
// (without segmentation), with no new document: each whitespace-separated
// span of the window is split as prose splits it (see spanWordsOf), the
// words are tagged by the tagger and labelled by the recognizer, and
// occurrences of a span share the tags and labels of the last one (bar a
// span that ends the window), as prose's shared tokens do.
func (e *Extractor) nerTokens(window string) []tok {
	spans := whitespaceSpans(window)
	var (
		words  []string
		ranges []tokRange
	)
	for _, sp := range e.spanWordsOf(window, spans) {
		ranges = append(ranges, tokRange{len(words), len(words) + len(sp)})
		words = append(words, sp...)
	}
	if len(words) == 0 {
		return nil
	}
	// A run that ends the text, with no space after it, gets tokens of
	// its own.
	shared := ranges
	if last := spans[len(spans)-1]; last.end == len(window) {
		shared = ranges[:len(ranges)-1]
	}
	tags := shareRanges(shared, words, e.tagger.tag(words))
	labels := shareRanges(shared, words, e.recognizer.classify(words, tags))
	ptoks := make([]prose.Token, len(words))
	for i := range words {
		ptoks[i] = prose.Token{Text: words[i], Tag: tags[i], Label: labels[i]}
	}
	return alignTokens(window, ptoks)
}

// whitespaceSpans returns the runs of text without white space, as
// prose's tokeniser splits it before splitting each run.
func whitespaceSpans(text string) []span {
	var out []span
	start := -1
	for i, r := range text {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, span{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, span{start, len(text)})
	}
	return out
}

// spanWordsOf returns prose's tokens of each span of text. prose splits a
// run of text without white space the same way wherever it stands, so each
// distinct run is split by prose once and remembered; the 206 windows of A
// Christmas Carol hold 426. Filling the cache from each
// chunk's own tokens instead measured slower: it walks every run of every
// chunk, and few of them ever stand in a window.
func (e *Extractor) spanWordsOf(text string, spans []span) [][]string {
	out := make([][]string, len(spans))
	var miss []int
	e.spanMu.Lock()
	for i, sp := range spans {
		w, ok := e.spanWords[text[sp.start:sp.end]]
		if !ok {
			miss = append(miss, i)
		}
		out[i] = w
	}
	e.spanMu.Unlock()
	for _, i := range miss {
		run := text[spans[i].start:spans[i].end]
		out[i] = splitRun(run)
		e.spanMu.Lock()
		e.storeSpan(run, out[i])
		e.spanMu.Unlock()
	}
	return out
}

// splitRun is prose's tokenisation of one run of text without white space.
func splitRun(run string) []string {
	pd, err := prose.NewDocument(run, prose.WithSegmentation(false), prose.WithTagging(false), prose.WithExtraction(false))
	if err != nil {
		return nil
	}
	ws := make([]string, 0, 2)
	for _, t := range pd.Tokens() {
		ws = append(ws, t.Text)
	}
	return ws
}

// storeSpan caches prose's tokens of one run of text; the caller holds
// spanMu.
func (e *Extractor) storeSpan(run string, ws []string) {
	if len(e.spanWords) >= 200000 {
		e.spanWords = map[string][]string{}
	}
	e.spanWords[strings.Clone(run)] = ws
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
