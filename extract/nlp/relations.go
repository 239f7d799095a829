package nlp

import (
	"strings"

	"github.com/kgstudio/kgstudio/extract/relation"
)

// relationKind is what an entity is for choosing a standard relation.
func relationKind(e entity) relation.Kind {
	switch e.cat {
	case catPerson:
		return relation.Person
	case catOrg:
		return relation.Org
	case catLocation:
		return relation.Place
	case catDate:
		return relation.Date
	case catWork:
		return relation.Work
	default: // catMisc, catEvent, catNumber
		return relation.Any
	}
}

// isCountry reports whether a place's name is a country's.
func isCountry(name string) bool {
	name = placeName(name)
	return countries[name] || countryCodes[name]
}

// pairRelation reads a standard relation from two entities of a sentence
// that no verb joins, by what they are and what stands between them
// (ents[a] before ents[b]; reverse: the edge runs from b to a):
//   - a place, organisation or other thing and a country (or its
//     nationality) of the same sentence ("Ulm, Germany"; "the Canadian
//     province of Alberta"): country;
//   - a place or organisation and a region (a state, a province) of the
//     same sentence, or a place or organisation and then a place with a
//     comma or "in" between ("Springfield, Illinois"; "the school in
//     Toronto"): located in the administrative territorial entity;
//   - a person, then a date in the parentheses after the name ("Ada
//     Lovelace (born 10 December 1815)", "(1815–1852)"): date of birth
//     for the first date, date of death for a second after a dash;
//   - a nationality, then a person with no verb between ("the German
//     physicist Max Born"): the person's country of citizenship.
func pairRelation(text string, ents []entity, a, b int) (r relation.Relation, reverse, ok bool) {
	ea, eb := ents[a], ents[b]
	gap := strings.TrimSpace(text[ea.end:eb.start])
	switch {
	case b == a+1 && ea.cat == catLocation && demonyms[ea.name] && eb.cat == catPerson && nounsOnly(gap):
		return mustRelation("P27"), true, true
	case ea.cat == catPerson && nation(eb) && !isCountry(eb.name) && copulaOnly(text, ents, a, b):
		return mustRelation("P27"), false, true
	case ea.cat == catPerson && eb.cat == catDate:
		if id := lifeDate(text, ents, a, b); id != "" {
			return mustRelation(id), false, true
		}
		return relation.Relation{}, false, false
	case nation(ea) && located(eb):
		return mustRelation("P17"), true, true
	case located(ea) && nation(eb):
		return mustRelation("P17"), false, true
	case region(ea) && located(eb) && !region(eb):
		return mustRelation("P131"), true, true
	case located(ea) && region(eb) && !region(ea):
		return mustRelation("P131"), false, true
	case b == a+1 && located(ea) && eb.cat == catLocation && !nation(eb) && (gap == "," || gap == "in" || gap == ", in"):
		return mustRelation("P131"), false, true
	}
	return relation.Relation{}, false, false
}

// nation reports a country or a nationality.
func nation(e entity) bool {
	return e.cat == catLocation && (isCountry(e.name) || demonyms[e.name] || multiDemonyms[e.name])
}

// region reports a state, province or other region below a country.
func region(e entity) bool { return e.cat == catLocation && regions[placeName(e.name)] }

// located reports an entity that lies somewhere: a place that is no
// country, an organisation, or another named thing that is not a person.
func located(e entity) bool {
	switch e.cat {
	case catLocation:
		return !nation(e)
	case catOrg, catMisc, catWork, catEvent:
		return true
	default: // people, dates, numbers
		return false
	}
}

// placeName is a place's name without a leading article ("the United
// States").
func placeName(name string) string {
	if rest, ok := strings.CutPrefix(name, "the "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(name, "The "); ok {
		return rest
	}
	return name
}

func mustRelation(id string) relation.Relation {
	r, _ := relation.ByID(id)
	return r
}

// lifeDate reads a date after a person's name: "P569" (date of birth)
// for "NAME (born DATE" or "NAME (DATE –", "P570" (date of death) for
// the second date of "NAME (DATE – DATE)" or "died DATE"; "" otherwise.
func lifeDate(text string, ents []entity, a, b int) string {
	gap := strings.ToLower(strings.TrimSpace(text[ents[a].end:ents[b].start]))
	switch {
	case b == a+1 && (gap == "(" || gap == "( born" || gap == "(born" || gap == ", born" || gap == "born"):
		return "P569"
	case b == a+2 && ents[a+1].cat == catDate && strings.HasPrefix(gap, "("):
		mid := strings.TrimSpace(text[ents[a+1].end:ents[b].start])
		if mid == "–" || mid == "-" || mid == "—" || mid == "to" || mid == "; died" || mid == ", died" {
			return "P570"
		}
	}
	return ""
}

// copulaOnly reports whether only "is a", "was an" (and the dates of a
// parenthesis after the name) stand between ents[a] and ents[b]: "Paul
// Desmarais Jr. (born July 3, 1954) is a Canadian businessman".
func copulaOnly(text string, ents []entity, a, b int) bool {
	var gap strings.Builder
	for k := a; k < b; k++ {
		if k > a && ents[k].cat != catDate {
			return false
		}
		gap.WriteString(text[ents[k].end:ents[k+1].start])
		gap.WriteByte(' ')
	}
	g := strings.ToLower(gap.String())
	for _, cut := range []string{"(", ")", ",", "–", "-", "born", "died"} {
		g = strings.ReplaceAll(g, cut, " ")
	}
	switch strings.Join(strings.Fields(g), " ") {
	case "is a", "was a", "is an", "was an", "a", "an":
		return true
	}
	return false
}

// nounsOnly reports whether a gap holds only a few lower-case words or
// hyphenated ones (a nationality's noun: "physicist", "-born singer").
func nounsOnly(gap string) bool {
	words := strings.Fields(gap)
	if len(words) > 3 {
		return false
	}
	for _, w := range words {
		for _, r := range w {
			if !(r >= 'a' && r <= 'z' || r == '-') {
				return false
			}
		}
	}
	return true
}
