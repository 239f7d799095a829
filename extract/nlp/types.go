package nlp

import "strings"

// DefaultEntityTypes are the built-in entity types used when no schema is
// chosen.
var DefaultEntityTypes = []string{
	"Person", "Creature", "Organization", "Location", "Event", "Concept",
	"Method", "Content", "Data", "Artifact", "NaturalObject",
}

// category is the strategy's own coarse entity class, mapped onto schema
// types by a typeMapper.
type category int

const (
	catMisc category = iota
	catPerson
	catOrg
	catLocation
	catDate
	catNumber
	// catEvent and catWork come only from the CJK passes (festivals and
	// ceremonies; titles in 《》).
	catEvent
	catWork
)

// String names the category as DocRED-like label, used in properties.
func (c category) String() string {
	switch c {
	case catPerson:
		return "PER"
	case catOrg:
		return "ORG"
	case catLocation:
		return "LOC"
	case catDate:
		return "TIME"
	case catNumber:
		return "NUM"
	case catEvent:
		return "EVENT"
	case catWork:
		return "WORK"
	case catMisc:
	}
	return "MISC"
}

// preferences lists, per category, the schema type names that can hold it,
// best first. Dates and years become a Date (or Time) type when the schema
// has one and Data otherwise; plain numbers become Number/Quantity or Data.
var preferences = map[category][]string{
	catPerson:   {"Person", "People", "Human", "Character", "Creature"},
	catOrg:      {"Organization", "Organisation", "Company", "Institution", "Group"},
	catLocation: {"Location", "Place", "GeographicLocation", "GeoLocation", "Country", "City", "NaturalObject"},
	catDate:     {"Date", "Time", "DateTime", "Year", "Data"},
	catNumber:   {"Number", "Quantity", "Amount", "Data"},
	catEvent:    {"Event", "Concept", "Thing", "Entity"},
	catWork:     {"Content", "Work", "CreativeWork", "Artifact", "Concept"},
	catMisc:     {"Concept", "Thing", "Entity", "Others", "Other", "Misc", "Artifact"},
}

// fallback names a category when the schema has none of its preferences.
var fallback = map[category]string{
	catPerson: "Person", catOrg: "Organization", catLocation: "Location",
	catDate: "Date", catNumber: "Number", catMisc: "Concept",
	catEvent: "Event", catWork: "Content",
}

// typeMapper maps categories to the available type names.
type typeMapper struct {
	names map[category]string
}

// newTypeMapper resolves each category against the available types
// (case-insensitive); overrides (category label such as "PER" or a prose
// label such as "PERSON" -> type name) win.
func newTypeMapper(available []string, overrides map[string]string) typeMapper {
	if len(available) == 0 {
		available = DefaultEntityTypes
	}
	byLower := make(map[string]string, len(available))
	for _, t := range available {
		byLower[strings.ToLower(strings.TrimSpace(t))] = strings.TrimSpace(t)
	}
	m := typeMapper{names: map[category]string{}}
	for c, prefs := range preferences {
		m.names[c] = fallback[c]
		for _, p := range prefs {
			if t, ok := byLower[strings.ToLower(p)]; ok {
				m.names[c] = t
				break
			}
		}
	}
	for label, typ := range overrides {
		if c, ok := labelCategory(label); ok && typ != "" {
			m.names[c] = typ
		}
	}
	return m
}

// name returns the type name of a category.
func (m typeMapper) name(c category) string { return m.names[c] }

// labelCategory maps a prose NER label or a DocRED-like label to a category.
func labelCategory(label string) (category, bool) {
	switch strings.ToUpper(label) {
	case "PERSON", "PER":
		return catPerson, true
	case "ORG", "ORGANIZATION":
		return catOrg, true
	case "GPE", "LOC", "LOCATION", "FAC", "NORP":
		return catLocation, true
	case "DATE", "TIME":
		return catDate, true
	case "NUM", "NUMBER", "CARDINAL", "MONEY", "PERCENT", "QUANTITY":
		return catNumber, true
	case "MISC":
		return catMisc, true
	}
	return catMisc, false
}
