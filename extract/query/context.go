package query

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// Entity is a ranked node of the context.
type Entity struct {
	Ref         string  `json:"ref"`
	Key         string  `json:"key"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Description string  `json:"description,omitempty"`
	Score       float64 `json:"score"`
	Mentions    int     `json:"mentions"`
}

// Relation is a ranked edge of the context; Source and Target are node
// names.
type Relation struct {
	Ref         string  `json:"ref"`
	SourceKey   string  `json:"source_key"`
	TargetKey   string  `json:"target_key"`
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Label       string  `json:"label"`
	Keywords    string  `json:"keywords,omitempty"`
	Description string  `json:"description,omitempty"`
	Score       float64 `json:"score"`
}

// ChunkHit is a ranked document chunk of the context. Entities and
// Relations list the references of the chosen items it mentions.
type ChunkHit struct {
	Ref        string `json:"ref"`
	DocumentID int    `json:"document_id"`
	// Document is the document's title, when the caller knows it.
	Document  string   `json:"document,omitempty"`
	Index     int      `json:"index"`
	Text      string   `json:"text"`
	Score     float64  `json:"score"`
	Entities  []string `json:"entities,omitempty"`
	Relations []string `json:"relations,omitempty"`
}

// Context is what a question is answered from.
type Context struct {
	Entities  []Entity   `json:"entities"`
	Relations []Relation `json:"relations"`
	Chunks    []ChunkHit `json:"chunks"`
}

// Empty reports whether nothing was retrieved.
func (c Context) Empty() bool {
	return len(c.Entities) == 0 && len(c.Relations) == 0 && len(c.Chunks) == 0
}

// Name-match weights: an exact normalised name beats token overlap, which
// beats a substring; descriptions count least.
const (
	wExact       = 10.0
	wOverlap     = 6.0
	wSubstring   = 3.0
	wDescription = 1.0
	wEdgeLabel   = 4.0
	wEndpoint    = 0.5
	wNeighbour   = 0.5
)

type keyword struct {
	norm   string
	tokens []string
	// latin reports that the keyword has no Han, kana or Hangul: it is
	// matched by whole tokens, not as a substring.
	latin bool
}

func prepare(words []string) []keyword {
	var out []keyword
	seen := map[string]bool{}
	for _, w := range words {
		n := extract.NormalizeName(w)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, keyword{norm: n, tokens: tokens(n), latin: isLatin(n)})
	}
	return out
}

// tokens splits normalised text into words (Han characters one by one are
// not tokens: they are matched as substrings).
func tokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// nameScore is the best match of a keyword on a normalised name.
func nameScore(kw keyword, name string, nameTokens []string) float64 {
	if name == kw.norm {
		return wExact
	}
	if len(kw.tokens) > 0 && len(nameTokens) > 0 {
		hit := 0
		for _, t := range kw.tokens {
			if slices.Contains(nameTokens, t) {
				hit++
			}
		}
		if hit > 0 {
			// Share of the keyword found, scaled down by extra name words.
			return wOverlap * float64(hit) / float64(max(len(kw.tokens), len(nameTokens)))
		}
	}
	if len([]rune(kw.norm)) >= 2 && strings.Contains(name, kw.norm) ||
		len([]rune(name)) >= 2 && strings.Contains(kw.norm, name) {
		return wSubstring
	}
	return 0
}

func isLatin(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			return false
		}
	}
	return true
}

// compareRefs orders "E2" before "E10".
func compareRefs(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

func round(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }
