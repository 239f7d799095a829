package nlp

import (
	prose "github.com/jdkato/prose/v2"
)

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
