// Package relation is the vocabulary of standard relations the offline
// extractor labels edges with, and the table that maps the verb phrases
// of a sentence to them. The relations are Wikidata properties (their ids
// and English labels, the 96 that DocRED annotates), so a graph's labels
// can be compared with any gold set that uses them; the aliases are
// English phrases for them, as Wikidata lists aliases for its
// properties ("born in" for place of birth), lemmatised.
package relation

import (
	"strings"
	"sync"
)

// Relation is a standard relation: a Wikidata property.
type Relation struct {
	ID   string // "P19"
	Name string // "place of birth"
}

// Label is what an edge of the relation is labelled: its name, or a
// shorter form of a long one ("located in" for "located in the
// administrative territorial entity"), so a graph reads well and its
// labels add no words that say nothing to what a question matches.
func (r Relation) Label() string {
	if l, ok := shortLabels[r.ID]; ok {
		return l
	}
	return r.Name
}

// shortLabels shorten the long names.
var shortLabels = map[string]string{
	"P131":  "located in",
	"P150":  "contains",
	"P206":  "located next to water",
	"P576":  "dissolved",
	"P1412": "languages spoken",
	"P1001": "jurisdiction",
}

// Standard lists the standard relations, by property number.
var Standard = []Relation{
	{"P6", "head of government"},
	{"P17", "country"},
	{"P19", "place of birth"},
	{"P20", "place of death"},
	{"P22", "father"},
	{"P25", "mother"},
	{"P26", "spouse"},
	{"P27", "country of citizenship"},
	{"P30", "continent"},
	{"P31", "instance of"},
	{"P35", "head of state"},
	{"P36", "capital"},
	{"P37", "official language"},
	{"P39", "position held"},
	{"P40", "child"},
	{"P50", "author"},
	{"P54", "member of sports team"},
	{"P57", "director"},
	{"P58", "screenwriter"},
	{"P69", "educated at"},
	{"P86", "composer"},
	{"P102", "member of political party"},
	{"P108", "employer"},
	{"P112", "founded by"},
	{"P118", "league"},
	{"P123", "publisher"},
	{"P127", "owned by"},
	{"P131", "located in the administrative territorial entity"},
	{"P136", "genre"},
	{"P137", "operator"},
	{"P140", "religion"},
	{"P150", "contains administrative territorial entity"},
	{"P155", "follows"},
	{"P156", "followed by"},
	{"P159", "headquarters location"},
	{"P161", "cast member"},
	{"P162", "producer"},
	{"P166", "award received"},
	{"P170", "creator"},
	{"P171", "parent taxon"},
	{"P172", "ethnic group"},
	{"P175", "performer"},
	{"P176", "manufacturer"},
	{"P178", "developer"},
	{"P179", "series"},
	{"P190", "sister city"},
	{"P194", "legislative body"},
	{"P205", "basin country"},
	{"P206", "located in or next to body of water"},
	{"P241", "military branch"},
	{"P264", "record label"},
	{"P272", "production company"},
	{"P276", "location"},
	{"P279", "subclass of"},
	{"P355", "subsidiary"},
	{"P361", "part of"},
	{"P364", "original language of work"},
	{"P400", "platform"},
	{"P403", "mouth of the watercourse"},
	{"P449", "original network"},
	{"P463", "member of"},
	{"P488", "chairperson"},
	{"P495", "country of origin"},
	{"P527", "has part"},
	{"P551", "residence"},
	{"P569", "date of birth"},
	{"P570", "date of death"},
	{"P571", "inception"},
	{"P576", "dissolved, abolished or demolished"},
	{"P577", "publication date"},
	{"P580", "start time"},
	{"P582", "end time"},
	{"P585", "point in time"},
	{"P607", "conflict"},
	{"P674", "characters"},
	{"P676", "lyrics by"},
	{"P706", "located on terrain feature"},
	{"P710", "participant"},
	{"P737", "influenced by"},
	{"P740", "location of formation"},
	{"P749", "parent organization"},
	{"P800", "notable work"},
	{"P807", "separated from"},
	{"P840", "narrative location"},
	{"P937", "work location"},
	{"P1001", "applies to jurisdiction"},
	{"P1056", "product or material produced"},
	{"P1198", "unemployment rate"},
	{"P1336", "territory claimed by"},
	{"P1344", "participant of"},
	{"P1365", "replaces"},
	{"P1366", "replaced by"},
	{"P1376", "capital of"},
	{"P1412", "languages spoken, written or signed"},
	{"P1441", "present in work"},
	{"P3373", "sibling"},
}

var byID = sync.OnceValue(func() map[string]Relation {
	m := make(map[string]Relation, len(Standard))
	for _, r := range Standard {
		m[r.ID] = r
	}
	return m
})

// ByID returns the standard relation of a property id ("P17").
func ByID(id string) (Relation, bool) {
	r, ok := byID()[strings.ToUpper(strings.TrimSpace(id))]
	return r, ok
}

// Labels maps every standard relation's id to its edge label (see
// Relation.Label).
func Labels() map[string]string {
	m := make(map[string]string, len(Standard))
	for _, r := range Standard {
		m[r.ID] = r.Label()
	}
	return m
}
