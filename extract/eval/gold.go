// Package eval reads gold-annotated extraction data (WebNLG text-to-RDF,
// DocRED / Re-DocRED) and scores extracted graphs against it: entity
// precision, recall and F1 with recall per gold type, and relation scores
// both unlabelled and labelled.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// Entry is one gold document: its text and the entities and relations an
// extractor should find in it.
type Entry struct {
	ID        string         `json:"id"`
	Text      string         `json:"text"`
	Entities  []GoldEntity   `json:"entities"`
	Relations []GoldRelation `json:"relations"`
}

// GoldEntity is one entity with all the names it is mentioned by. Type is
// the gold file's own type (DocRED: PER, ORG, LOC, TIME, NUM, MISC;
// WebNLG: ENTITY or LITERAL, see ReadWebNLG).
type GoldEntity struct {
	Names []string `json:"names"`
	Type  string   `json:"type"`
}

// GoldRelation is a directed relation between two entities of the same
// entry, given by their indexes in Entry.Entities.
type GoldRelation struct {
	Head  int    `json:"head"`
	Tail  int    `json:"tail"`
	Label string `json:"label"`
}

// WebNLG entity types. The corpus has no entity types; ReadWebNLG calls an
// object a literal when it was quoted or starts with a digit or sign.
const (
	WebNLGEntity  = "ENTITY"
	WebNLGLiteral = "LITERAL"
)

// DocREDTypes maps the DocRED entity types onto kgstudio's built-in entity
// types (extract/nlp and extract/tuple DefaultEntityTypes, which hold Data
// for dates and numbers and Concept for everything else). Copy it to adapt
// to a schema.
var DocREDTypes = map[string]string{
	"PER":  "Person",
	"ORG":  "Organization",
	"LOC":  "Location",
	"TIME": "Data",
	"NUM":  "Data",
	"MISC": "Concept",
}

// webnlgFile mirrors the parts of a WebNLG benchmark file that are read.
type webnlgFile struct {
	Entries []struct {
		EID      string   `xml:"eid,attr"`
		Category string   `xml:"category,attr"`
		Triples  []string `xml:"modifiedtripleset>mtriple"`
		Lex      []string `xml:"lex"`
	} `xml:"entries>entry"`
}

// ReadWebNLG reads a WebNLG text-to-RDF benchmark file. Each entry's text is
// its first lex; its entities are the distinct subjects and objects of the
// modified triples, with underscores read as spaces and surrounding quotes
// stripped; its relations are the triples, labelled with the predicate.
// Broken XML, an entry without text or a triple that does not have three
// parts is a KindInvalid error naming the entry.
func ReadWebNLG(r io.Reader) ([]Entry, error) {
	var f webnlgFile
	dec := xml.NewDecoder(skipBOM(r))
	if err := dec.Decode(&f); err != nil {
		return nil, extract.Wrap(extract.KindInvalid, err, "read webnlg: not a WebNLG XML file")
	}
	if len(f.Entries) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "read webnlg: no <entry> elements")
	}
	entries := make([]Entry, 0, len(f.Entries))
	for i, fe := range f.Entries {
		id := fe.EID
		if id == "" {
			id = fmt.Sprintf("entry-%d", i+1)
		}
		e := Entry{ID: id, Entities: []GoldEntity{}, Relations: []GoldRelation{}}
		if len(fe.Lex) == 0 || strings.TrimSpace(fe.Lex[0]) == "" {
			return nil, extract.Errorf(extract.KindInvalid, "read webnlg: entry %s has no text (lex)", id)
		}
		e.Text = strings.TrimSpace(fe.Lex[0])
		index := map[string]int{}
		entity := func(raw string, subject bool) int {
			name, literal := webnlgName(raw)
			key := extract.NormalizeName(name)
			if i, ok := index[key]; ok {
				return i
			}
			typ := WebNLGEntity
			if literal && !subject {
				typ = WebNLGLiteral
			}
			index[key] = len(e.Entities)
			e.Entities = append(e.Entities, GoldEntity{Names: []string{name}, Type: typ})
			return len(e.Entities) - 1
		}
		for _, t := range fe.Triples {
			parts := strings.Split(t, " | ")
			if len(parts) != 3 || strings.TrimSpace(parts[0]) == "" || strings.TrimSpace(parts[2]) == "" {
				return nil, extract.Errorf(extract.KindInvalid, "read webnlg: entry %s: triple %q is not \"subject | predicate | object\"", id, t)
			}
			h := entity(parts[0], true)
			tl := entity(parts[2], false)
			e.Relations = append(e.Relations, GoldRelation{Head: h, Tail: tl, Label: strings.TrimSpace(parts[1])})
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// webnlgName turns a DBpedia-style subject or object into a surface name:
// underscores become spaces, surrounding quotes go. literal reports whether
// it looks like a literal value (quoted, or starting with a digit or sign).
func webnlgName(raw string) (name string, literal bool) {
	s := strings.TrimSpace(raw)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
		literal = true
	}
	s = strings.TrimSpace(strings.ReplaceAll(s, "_", " "))
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsDigit(r) || r == '-' || r == '+' {
		literal = true
	}
	return s, literal
}

// docredDoc mirrors one DocRED document.
type docredDoc struct {
	Title     string     `json:"title"`
	Sents     [][]string `json:"sents"`
	VertexSet [][]struct {
		Name   string `json:"name"`
		Pos    []int  `json:"pos"`
		SentID int    `json:"sent_id"`
		Type   string `json:"type"`
	} `json:"vertexSet"`
	Labels []struct {
		H int    `json:"h"`
		T int    `json:"t"`
		R string `json:"r"`
	} `json:"labels"`
}

// ReadDocRED reads a DocRED or Re-DocRED file (a JSON array of documents).
// The text is the detokenised sentences; each vertexSet entry is an entity
// whose names are its distinct mention names (plus each mention's
// detokenised tokens when they differ), typed by its first mention; the
// relations are the labels, labelled with the relation code (P17, ...);
// NameRelations turns the codes into names. Broken JSON or an index out
// of range is a KindInvalid error naming the document.
func ReadDocRED(r io.Reader) ([]Entry, error) {
	var docs []docredDoc
	dec := json.NewDecoder(skipBOM(r))
	if err := dec.Decode(&docs); err != nil {
		return nil, extract.Wrap(extract.KindInvalid, err, "read docred: not a DocRED JSON array")
	}
	if len(docs) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "read docred: no documents")
	}
	entries := make([]Entry, 0, len(docs))
	for i, d := range docs {
		id := d.Title
		if id == "" {
			id = fmt.Sprintf("doc-%d", i+1)
		}
		e := Entry{ID: id, Entities: make([]GoldEntity, 0, len(d.VertexSet)), Relations: make([]GoldRelation, 0, len(d.Labels))}
		sents := make([]string, len(d.Sents))
		for j, s := range d.Sents {
			sents[j] = Detokenize(s)
		}
		e.Text = strings.Join(sents, " ")
		if strings.TrimSpace(e.Text) == "" {
			return nil, extract.Errorf(extract.KindInvalid, "read docred: document %q has no text", id)
		}
		for j, v := range d.VertexSet {
			if len(v) == 0 {
				return nil, extract.Errorf(extract.KindInvalid, "read docred: document %q: entity %d has no mentions", id, j)
			}
			ge := GoldEntity{Type: v[0].Type}
			seen := map[string]bool{}
			add := func(name string) {
				k := extract.NormalizeName(name)
				if k == "" || seen[k] {
					return
				}
				seen[k] = true
				ge.Names = append(ge.Names, name)
			}
			for _, m := range v {
				add(m.Name)
				if len(m.Pos) == 2 && m.SentID >= 0 && m.SentID < len(d.Sents) {
					toks := d.Sents[m.SentID]
					if m.Pos[0] >= 0 && m.Pos[0] < m.Pos[1] && m.Pos[1] <= len(toks) {
						add(Detokenize(toks[m.Pos[0]:m.Pos[1]]))
					}
				}
			}
			if len(ge.Names) == 0 {
				return nil, extract.Errorf(extract.KindInvalid, "read docred: document %q: entity %d has no usable name", id, j)
			}
			e.Entities = append(e.Entities, ge)
		}
		for _, l := range d.Labels {
			if l.H < 0 || l.H >= len(e.Entities) || l.T < 0 || l.T >= len(e.Entities) {
				return nil, extract.Errorf(extract.KindInvalid, "read docred: document %q: relation %s refers to entity %d or %d of %d", id, l.R, l.H, l.T, len(e.Entities))
			}
			e.Relations = append(e.Relations, GoldRelation{Head: l.H, Tail: l.T, Label: l.R})
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// ReadRelationNames reads a DocRED rel_info.json object mapping relation
// codes to names ({"P17": "country", ...}).
func ReadRelationNames(r io.Reader) (map[string]string, error) {
	var m map[string]string
	if err := json.NewDecoder(skipBOM(r)).Decode(&m); err != nil {
		return nil, extract.Wrap(extract.KindInvalid, err, "read relation names: not a JSON object of code -> name")
	}
	return m, nil
}

// NameRelations replaces relation codes by their names in place; codes
// without a name are kept.
func NameRelations(entries []Entry, names map[string]string) {
	for i := range entries {
		for j := range entries[i].Relations {
			if n, ok := names[entries[i].Relations[j].Label]; ok && n != "" {
				entries[i].Relations[j].Label = n
			}
		}
	}
}

// Detokenize joins tokens into text the way they were written: no space
// before closing punctuation, clitics ('s, n't) and after opening
// brackets; straight double quotes alternate between opening and closing.
func Detokenize(tokens []string) string {
	var b strings.Builder
	noSpaceNext := true
	openQuote := false
	for _, t := range tokens {
		if t == "" {
			continue
		}
		space := !noSpaceNext
		noSpaceNext = false
		switch {
		case t == `"`:
			if openQuote {
				space = false
			} else {
				noSpaceNext = true
			}
			openQuote = !openQuote
		case isClosing(t):
			space = false
		case t == "'s" || t == "'" || t == "n't" || t == "'re" || t == "'ve" || t == "'ll" || t == "'d" || t == "'m":
			space = false
		case t == "(" || t == "[" || t == "{" || t == "$":
			noSpaceNext = true
		}
		if space {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// isClosing reports whether a token is closing punctuation that attaches
// to the word before it.
func isClosing(t string) bool {
	r, size := utf8.DecodeRuneInString(t)
	if strings.ContainsRune("。，、；：！？）」』】》", r) {
		return true
	}
	return size == 1 && strings.ContainsRune(",.;:!?)]}%", r) && len(t) <= 3
}

// skipBOM drops a UTF-8 byte-order mark at the start of r.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	return br
}
