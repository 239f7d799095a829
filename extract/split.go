package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a byte range [Start, End) of a text.
type Span struct {
	Start, End int
}

// isSentenceEnd reports whether r closes a sentence for the splitter: the
// KAG LengthSplitter delimiters plus the newline.
func isSentenceEnd(r rune) bool {
	switch r {
	case '.', '。', '？', '?', '！', '!', '\n':
		return true
	}
	return false
}

// Sentences cuts text into sentence spans at `.。？?！!` and newlines (a
// period only where it ends a sentence: see periodEnds). Each span keeps
// its delimiter, excludes surrounding white space and is never empty.
// Offsets are bytes into text.
func Sentences(text string) []Span {
	var out []Span
	start := 0
	emit := func(end int) {
		s, e := trimSpan(text, start, end)
		if s < e {
			out = append(out, Span{s, e})
		}
	}
	for i, r := range text {
		if i < start {
			continue // a closing quote taken with the sentence before
		}
		if isSentenceEnd(r) && (r != '.' || periodEnds(text, i)) {
			end := i + utf8.RuneLen(r)
			// Closing quotes and brackets stay with their sentence.
			for end < len(text) && r != '\n' {
				q, n := utf8.DecodeRuneInString(text[end:])
				if !strings.ContainsRune(`"')]”’»`, q) {
					break
				}
				end += n
			}
			emit(end)
			start = end
		}
	}
	emit(len(text))
	return out
}

// periodEnds reports whether the period at byte i of text ends a
// sentence: it is followed by white space (or a closing quote or bracket
// and white space) or the end of the text, and does not close an initial
// ("J. R. R. Tolkien") or a common abbreviation ("Dr.", "e.g.", "U.S.").
// A period between letters or digits ("$87.60", "3.0", "example.com")
// never ends one.
func periodEnds(text string, i int) bool {
	j := i + 1
	for j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == ')' || text[j] == ']') {
		j++
	}
	if j < len(text) {
		r, _ := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsSpace(r) {
			return false
		}
	}
	// The word the period closes.
	k := i
	for k > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:k])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		k -= n
	}
	word := text[k:i]
	if word == "" {
		return true
	}
	if r, n := utf8.DecodeRuneInString(word); n == len(word) && unicode.IsUpper(r) {
		return false // an initial
	}
	return !Abbreviation(word)
}

// Abbreviation reports a word (without its period) a period closes
// without ending the sentence: "Dr", "e.g", "U.S" (any case).
func Abbreviation(word string) bool { return abbreviations[strings.ToLower(word)] }

// abbreviations close with a period that ends no sentence.
var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "jr": true,
	"sr": true, "vs": true, "etc": true, "e.g": true, "i.e": true, "inc": true, "ltd": true, "co": true,
	"u.s": true, "u.k": true, "gen": true, "gov": true, "sen": true, "rep": true, "col": true, "lt": true, "capt": true,
	"mt": true, "ft": true, "approx": true, "cf": true, "al": true, "fig": true, "vol": true, "pp": true, "corp": true}

// trimSpan narrows [s, e) of text to exclude leading and trailing white space.
func trimSpan(text string, s, e int) (int, int) {
	for s < e {
		r, n := utf8.DecodeRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		s += n
	}
	for e > s {
		r, n := utf8.DecodeLastRuneInString(text[s:e])
		if !unicode.IsSpace(r) {
			break
		}
		e -= n
	}
	return s, e
}

// unit is a sentence (or a piece of a long one) with its length in runes.
type unit struct {
	start, end int // bytes
	runes      int
}

// Split cuts a document into chunks with the semantics of KAG's
// LengthSplitter, measured in characters (runes):
//
//   - the text is cut into sentences at `.。？?！!` and newlines;
//   - sentences are packed into a chunk until adding the next one would
//     pass size characters;
//   - the next chunk starts with an overlap window: whole trailing sentences
//     of the previous chunk, taken from the end until they reach overlap
//     characters (so the window may pass overlap by part of one sentence);
//   - a sentence longer than size is cut into pieces of at most size
//     characters, preferring a cut at white space;
//   - strict mode guarantees no chunk passes size: the window holds only
//     sentences that fit within overlap and is shortened from the front until
//     the next sentence fits.
//
// A chunk's length is the length of its span in the document, separators
// between sentences included. Chunk.Text is always
// doc.Content[Chunk.Start:Chunk.End]. size <= 0 means
// DefaultConfig().ChunkSize; overlap is clamped to [0, size/2].
func Split(doc Document, size, overlap int, strict bool) []Chunk {
	if size <= 0 {
		size = DefaultConfig().ChunkSize
	}
	if overlap < 0 {
		overlap = 0
	}
	if overlap > size/2 {
		overlap = size / 2
	}
	text := doc.Content
	units := splitUnits(text, size)
	if len(units) == 0 {
		return nil
	}
	// runeAt maps a byte offset at a unit boundary to its rune index; units
	// are in order so a running count is enough.
	runeStart := make([]int, len(units))
	runeEnd := make([]int, len(units))
	pos, runes := 0, 0
	for i, u := range units {
		runes += utf8.RuneCountInString(text[pos:u.start])
		runeStart[i] = runes
		runes += u.runes
		runeEnd[i] = runes
		pos = u.end
	}
	span := func(a, b int) int { return runeEnd[b] - runeStart[a] } // units a..b inclusive

	var groups [][2]int // inclusive unit ranges
	first := -1         // first unit of the current chunk, -1 when empty
	for i := range units {
		if first >= 0 && span(first, i) > size {
			last := i - 1
			groups = append(groups, [2]int{first, last})
			// Overlap window: trailing sentences of the chunk just closed.
			w := last + 1
			for j := last; j > first; j-- {
				if strict {
					if span(j, last) > overlap {
						break
					}
				} else if w <= last && span(w, last) >= overlap {
					break
				}
				w = j
			}
			if overlap == 0 {
				w = last + 1
			}
			if strict {
				for w <= last && span(w, i) > size {
					w++
				}
			}
			if w <= last {
				first = w
			} else {
				first = i
			}
			continue
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		groups = append(groups, [2]int{first, len(units) - 1})
	}

	chunks := make([]Chunk, 0, len(groups))
	for _, g := range groups {
		s, e := units[g[0]].start, units[g[1]].end
		t := text[s:e]
		chunks = append(chunks, Chunk{
			DocumentID: doc.ID,
			Index:      len(chunks),
			Text:       t,
			Start:      s,
			End:        e,
			Tokens:     EstimateTokens(t),
		})
	}
	return chunks
}

// splitUnits returns the sentences of text, cutting any longer than size
// runes into pieces.
func splitUnits(text string, size int) []unit {
	var out []unit
	for _, sp := range Sentences(text) {
		n := utf8.RuneCountInString(text[sp.Start:sp.End])
		if n <= size {
			out = append(out, unit{sp.Start, sp.End, n})
			continue
		}
		out = cutLong(text, sp, size, out)
	}
	return out
}

// cutLong cuts one long sentence into pieces of at most size runes,
// preferring the last white space in the second half of each piece.
func cutLong(text string, sp Span, size int, out []unit) []unit {
	s := sp.Start
	for s < sp.End {
		s, _ = trimSpan(text, s, sp.End)
		if s >= sp.End {
			break
		}
		// Find the byte offset after size runes.
		e, n := s, 0
		lastSpace := -1
		for e < sp.End && n < size {
			r, w := utf8.DecodeRuneInString(text[e:sp.End])
			if unicode.IsSpace(r) && n >= size/2 {
				lastSpace = e
			}
			e += w
			n++
		}
		if r, _ := utf8.DecodeRuneInString(text[e:sp.End]); e < sp.End && !unicode.IsSpace(r) && lastSpace > s {
			e = lastSpace
		}
		ps, pe := trimSpan(text, s, e)
		if ps < pe {
			out = append(out, unit{ps, pe, utf8.RuneCountInString(text[ps:pe])})
		}
		s = e
	}
	return out
}

// EstimateTokens estimates the model tokens of a text: one per CJK
// character (Han, Hiragana, Katakana, Hangul) plus one per four other
// non-space characters, rounded up.
func EstimateTokens(text string) int {
	cjk, other := 0, 0
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			cjk++
		case unicode.IsSpace(r):
		default:
			other++
		}
	}
	return cjk + (other+3)/4
}

// IsCJK reports whether most letters of text are CJK characters.
func IsCJK(text string) bool {
	cjk, letters := 0, 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			letters++
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
				cjk++
			}
		}
	}
	return letters > 0 && cjk*2 >= letters
}
