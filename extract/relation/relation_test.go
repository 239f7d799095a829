package relation

import "testing"

// Phrases between two mentions read as standard relations by the
// object's kind, in the right direction; phrases with no reading do not.
func TestPhrase(t *testing.T) {
	for _, c := range []struct {
		phrase  string
		object  Kind
		want    string
		reverse bool
	}{
		{"was born in", Place, "place of birth", false},
		{"was born in", Date, "date of birth", false},
		{"died in", Date, "date of death", false},
		{"moved to", Place, "residence", false},
		{"is capital of", Place, "capital of", false},
		{"founded", Org, "founded by", true},
		{"was founded in", Date, "inception", false},
		{"co-founded", Org, "founded by", true},
		{"married", Person, "spouse", false},
		{"starred in", Work, "cast member", true},
		{"studied at", Org, "educated at", false},
		{"wrote", Work, "notable work", false},
		{"is also located in", Place, "located in the administrative territorial entity", false},
	} {
		r, reverse, ok := Phrase(c.phrase, c.object)
		if !ok || r.Name != c.want || reverse != c.reverse {
			t.Errorf("%q (object %d): %+v reverse %t ok %t, want %q reverse %t", c.phrase, c.object, r, reverse, ok, c.want, c.reverse)
		}
	}
	for _, p := range []string{"said", "was born in", "loved", ""} {
		if p == "was born in" {
			if _, _, ok := Phrase(p, Person); ok {
				t.Errorf("%q with a person for object has a reading", p)
			}
			continue
		}
		if r, _, ok := Phrase(p, Any); ok {
			t.Errorf("%q read as %v", p, r)
		}
	}
}

// Every alias names a standard relation, and every standard relation has
// its id once.
func TestVocabulary(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Standard {
		if seen[r.ID] || r.Name == "" {
			t.Errorf("relation %+v repeated or unnamed", r)
		}
		seen[r.ID] = true
	}
	for phrase, as := range aliases {
		for _, a := range as {
			if _, ok := ByID(a.id); !ok {
				t.Errorf("alias %q names %s, no standard relation", phrase, a.id)
			}
		}
	}
	if r, ok := ByID("p17"); !ok || r.Name != "country" {
		t.Errorf("ByID(p17) = %+v, %t", r, ok)
	}
}

// Long names read short on an edge; the rest are their names.
func TestLabel(t *testing.T) {
	for id, want := range map[string]string{"P131": "located in", "P17": "country", "P19": "place of birth"} {
		if r, ok := ByID(id); !ok || r.Label() != want || Labels()[id] != want {
			t.Errorf("%s: label %q, want %q", id, r.Label(), want)
		}
	}
}
