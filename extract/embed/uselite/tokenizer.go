package uselite

import (
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer is the one TensorFlow.js runs for this model, reproduced
// step for step (its quirks included, so that token ids match): NFKC,
// "▁" before the text and for every space, then a unigram segmentation
// over the vocabulary from id reservedPieces upward, chosen by a Viterbi
// pass in which a character no piece starts with becomes the unknown id 0
// (score 0), and consecutive unknowns merge into one id. Pieces are
// case-sensitive. One departure: tabs, line breaks and other Unicode
// white space count as spaces (TensorFlow.js leaves them as unknown
// characters, which would put id 0 in the middle of every paragraph).

const (
	separator      = '▁'
	reservedPieces = 6 // <unk>-like and control pieces never matched
	unknownID      = 0
)

type piece struct {
	text  string
	score float64
	units int // length in UTF-16 code units, as the backward pass counts
}

type trieNode struct {
	children map[rune]*trieNode
	end      bool
	score    float64
	id       int32
}

type tokenizer struct {
	pieces []piece
	root   trieNode
}

func newTokenizer(vocab []byte) (*tokenizer, error) {
	pieces, err := parseVocab(vocab)
	if err != nil {
		return nil, err
	}
	t := &tokenizer{pieces: pieces}
	for id := reservedPieces; id < len(pieces); id++ {
		n := &t.root
		for _, r := range pieces[id].text {
			c := n.children[r]
			if c == nil {
				if n.children == nil {
					n.children = map[rune]*trieNode{}
				}
				c = &trieNode{}
				n.children[r] = c
			}
			n = c
		}
		// A piece listed twice keeps its last id and score.
		n.end, n.score, n.id = true, pieces[id].score, int32(id)
	}
	return t, nil
}

// candidate is a piece of the lattice: symbols [start, end) as id.
type candidate struct {
	start, end int32
	id         int32
	score      float64
}

// symbols returns the text as the tokenizer sees it: normalised, white
// space turned into separators, a separator in front; nil for a text
// that normalises to nothing.
func symbols(text string) []rune {
	s := norm.NFKC.String(text)
	if s == "" {
		return nil
	}
	syms := make([]rune, 1, len(s)+1)
	syms[0] = separator
	for _, r := range s {
		if r == ' ' || unicode.IsSpace(r) {
			r = separator
		}
		syms = append(syms, r)
	}
	return syms
}

// encode returns the token ids of text, how many of its symbols are
// unknown to the vocabulary and how many are not separators.
func (t *tokenizer) encode(text string) (ids []int32, unknown, chars int) {
	syms := symbols(text)
	n := len(syms)
	if n == 0 {
		return nil, 0, 0
	}
	for _, r := range syms {
		if r != separator {
			chars++
		}
	}

	// The lattice: every piece starting at every position, or the
	// unknown piece where none does, bucketed by end position with
	// starts ascending (the order the Viterbi pass visits them in).
	var cands []candidate
	for i := range syms {
		found := false
		node := t.root.children[syms[i]]
		for j := i; node != nil; j++ {
			if node.end {
				cands = append(cands, candidate{int32(i), int32(j + 1), node.id, node.score})
				found = true
			}
			if j+1 == n {
				break
			}
			node = node.children[syms[j+1]]
		}
		if !found {
			cands = append(cands, candidate{int32(i), int32(i + 1), unknownID, 0})
		}
	}
	first := make([]int32, n+2)
	for _, c := range cands {
		first[c.end+1]++
	}
	for e := 1; e < len(first); e++ {
		first[e] += first[e-1]
	}
	sorted := make([]candidate, len(cands))
	next := append([]int32(nil), first...)
	for _, c := range cands { // stable: starts stay ascending
		sorted[next[c.end]] = c
		next[c.end]++
	}

	// Viterbi, forward: 0 in best means "not reached yet", and a later
	// candidate wins ties.
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for e := 1; e <= n; e++ {
		for _, c := range sorted[first[e]:first[e+1]] {
			score := c.score + best[c.start]
			if best[e] == 0 || score >= best[e] {
				best[e] = score
				words[e] = c.id
			}
		}
	}

	// Backward, stepping by each chosen piece's length in UTF-16 units
	// (the same as symbols for this vocabulary); then merge runs of
	// unknowns.
	var rev []int32
	for it := n; it > 0; it -= t.pieces[words[it]].units {
		rev = append(rev, words[it])
	}
	ids = make([]int32, 0, len(rev))
	prevUnknown := false
	for i := len(rev) - 1; i >= 0; i-- {
		id := rev[i]
		if id == unknownID {
			unknown++
		}
		if !(prevUnknown && id == unknownID) {
			ids = append(ids, id)
		}
		prevUnknown = id == unknownID
	}
	return ids, unknown, chars
}
