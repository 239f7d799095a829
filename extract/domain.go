package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DomainEntity is a node of a run's domain graph (Config.Reference) as an
// extractor sees it: its name, its type and its other names. KAG's
// extractor gives the external graph's names to its NER step
// (external_graph.ner), so a domain entity a text names is recognised with
// the domain's type.
type DomainEntity struct {
	Name    string
	Type    string
	Aliases []string
}

// DomainAware is an extractor that can be given a domain graph's entities:
// WithDomain returns an extractor that recognises them (the receiver is
// left as it was).
type DomainAware interface {
	WithDomain(d *Domain) Extractor
}

// Domain finds the entities of a domain graph in text. A nil *Domain finds
// none.
type Domain struct {
	entities []DomainEntity
	surfaces []surface // longest first
}

// surface is one name or alias of entity, as it is looked for.
type surface struct {
	text   string
	entity int
	han    bool // holds a Han, kana or Hangul letter: found anywhere
}

// MaxDomainList bounds the domain entities a prompt lists for one chunk.
const MaxDomainList = 30

// NewDomain indexes entities by their names and aliases; names of fewer
// than two letters are left out (they would be found everywhere). It
// returns nil when no entity has a usable name.
func NewDomain(entities []DomainEntity) *Domain {
	d := &Domain{}
	seen := map[string]bool{}
	for _, e := range entities {
		e.Name = strings.TrimSpace(e.Name)
		if e.Name == "" {
			continue
		}
		i := len(d.entities)
		added := false
		for _, name := range append([]string{e.Name}, e.Aliases...) {
			name = strings.TrimSpace(name)
			if utf8.RuneCountInString(name) < 2 || seen[name] {
				continue
			}
			seen[name] = true
			added = true
			d.surfaces = append(d.surfaces, surface{text: name, entity: i, han: hasHanLetter(name)})
		}
		if added {
			d.entities = append(d.entities, e)
		}
	}
	if len(d.entities) == 0 {
		return nil
	}
	slices.SortStableFunc(d.surfaces, func(a, b surface) int { return len(b.text) - len(a.text) })
	return d
}

// DomainMatch is one place where text names a domain entity.
type DomainMatch struct {
	Start, End int // bytes of the text
	Entity     DomainEntity
}

// Find returns where text names d's entities, in text order, without
// overlaps: at one place the longest name wins. A name with a Han, kana or
// Hangul letter is found anywhere (those scripts have no word breaks);
// another only as a whole word, as written or with its first letter in
// upper case (a sentence may open with it).
func (d *Domain) Find(text string) []DomainMatch {
	if d == nil || text == "" {
		return nil
	}
	var all []DomainMatch
	for _, s := range d.surfaces {
		forms := []string{s.text}
		if !s.han {
			if r, n := utf8.DecodeRuneInString(s.text); unicode.IsLower(r) {
				forms = append(forms, string(unicode.ToUpper(r))+s.text[n:])
			}
		}
		for _, f := range forms {
			for off := 0; off < len(text); {
				j := strings.Index(text[off:], f)
				if j < 0 {
					break
				}
				start, end := off+j, off+j+len(f)
				if s.han || wordBounded(text, start, end) {
					all = append(all, DomainMatch{Start: start, End: end, Entity: d.entities[s.entity]})
				}
				_, n := utf8.DecodeRuneInString(text[start:])
				off = start + n
			}
		}
	}
	slices.SortStableFunc(all, func(a, b DomainMatch) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return (b.End - b.Start) - (a.End - a.Start)
	})
	out := all[:0]
	last := 0
	for _, m := range all {
		if m.Start < last {
			continue
		}
		out = append(out, m)
		last = m.End
	}
	return out
}

// In returns the distinct entities text names, in the order of their first
// mention, at most limit of them (all when limit <= 0).
func (d *Domain) In(text string, limit int) []DomainEntity {
	var out []DomainEntity
	seen := map[string]bool{}
	for _, m := range d.Find(text) {
		k := m.Entity.Type + "\x00" + m.Entity.Name
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, m.Entity)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// wordBounded reports whether text[start:end] stands as a word: no letter
// or digit touches it on either side.
func wordBounded(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	word := func(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }
	return !word(before) && !word(after)
}

// hasHanLetter reports a Han, kana or Hangul letter in s.
func hasHanLetter(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
	}) >= 0
}
