package nlp

import (
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// TestExtractor_SampleDefects pins defects once seen in the graph of the
// bundled Christmas Carol sample, each on a small inline text.
func TestExtractor_SampleDefects(t *testing.T) {
	e := mustNew(t, Options{})
	tests := []struct {
		name      string
		text      string
		wantNodes map[string]string // key -> type ("" for any type)
		noNodes   []string          // keys that must not appear
		noLabels  []string          // edge labels that must not appear
	}{
		{
			name: "RepeatedNameIsNoFullName",
			text: "Scrooge never painted out Old Marley's name. Sometimes people new to the business called\n" +
				"Scrooge Scrooge, and sometimes Marley, but he answered to both names. Scrooge was a tight-fisted hand.",
			wantNodes: map[string]string{"scrooge": ""},
			noNodes:   []string{"scrooge scrooge"},
		},
		{
			name:      "NameAcrossLineBreak",
			text:      "Scrooge and he were partners for many years. The clerk knew that Scrooge\nScrooge was a miser, and Scrooge\nwas his sole executor.",
			wantNodes: map[string]string{"scrooge": ""},
			noNodes:   []string{"scrooge scrooge"},
		},
		{
			name:      "ItalicsUnderscores",
			text:      "He ran home to Camden Town to play at blindman's-buff, in honour of its being _Christmas Eve_.",
			wantNodes: map[string]string{"christmas eve": "Concept", "camden town": "Location"},
			noNodes:   []string{"christmas eve_", "_christmas eve_"},
		},
		{
			name:      "BoldAsterisks",
			text:      "The letter was signed by *Jacob Marley* himself, said the clerk.",
			wantNodes: map[string]string{"jacob marley": ""},
			noNodes:   []string{"jacob marley*", "*jacob marley*"},
		},
		{
			name:      "SaintPossessivePlace",
			text:      "Hamlet's father walked out after dark in a breezy spot, say St. Paul's Churchyard, for instance.",
			wantNodes: map[string]string{"st. paul's churchyard": "Location"},
			noNodes:   []string{"paul", "paul's churchyard"},
		},
		{
			name:      "GreetingIsNoPerson",
			text:      "'Merry Christmas, uncle!' cried a cheerful voice. Every idiot who goes about with \"Merry Christmas\" on his lips should be boiled.",
			wantNodes: map[string]string{"merry christmas": "Concept"},
		},
		{
			name: "SentenceInitialWords",
			text: "Oh! But he was a tight-fisted hand at the grindstone, Scrooge! Hard and sharp as flint, from which no steel had struck out fire. " +
				"External heat and cold had little influence on Scrooge. Foggier yet, and colder! " +
				"Mine occupies me constantly, said the gentleman. It is hard to say what they want. " +
				"We choose this time, because it is a time, of all others, when Want is keenly felt.",
			wantNodes: map[string]string{"scrooge": ""},
			noNodes:   []string{"hard", "external", "foggier", "mine", "want"},
		},
		{
			name:      "ContractionInLabel",
			text:      "'Let me hear another sound from you,' said Scrooge, 'and you'll keep your Christmas by losing your situation!'",
			wantNodes: map[string]string{"scrooge": ""},
			noLabels:  []string{"'ll keep", "’ll keep"},
		},
		{
			// One-word plurals listed together name classes of things,
			// and so does a plural before "of" and a name: no places.
			name: "ListedPluralsAreNoPlaces",
			text: "There were Cains and Abels, Pharaoh's daughters, Queens of Sheba,\nAngelic messengers descending through the air on clouds like\n" +
				"feather-beds, Abrahams, Belshazzars, Apostles putting off to sea in\nbutter-boats, hundreds of figures to attract his thoughts.",
			wantNodes: map[string]string{"abels": "Concept", "queens": "Concept", "abrahams": "Concept", "belshazzars": "Concept", "apostles": "Concept"},
		},
		{
			// Romance names in -as are no English plurals.
			name:      "ListedRomancePlaceStaysPlace",
			text:      "The airport is located in Madrid, Paracuellos de Jarama, San Sebastián de los Reyes and Alcobendas. It is operated by ENAIRE.",
			wantNodes: map[string]string{"alcobendas": "Location", "madrid": "Location"},
		},
		{
			name:      "LordMayorIsOneName",
			text:      "The Lord\nMayor, in the stronghold of the mighty Mansion House, gave orders to his fifty cooks to keep Christmas as a Lord Mayor's household should.",
			wantNodes: map[string]string{"lord mayor": "Person"},
			noNodes:   []string{"mayor"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.ReadDocument("d.txt", []byte(tt.text), 0)
			if err != nil {
				t.Fatal(err)
			}
			doc.ID = 5
			g := extractDoc(t, e, doc)
			checkMentions(t, doc, g)
			for key, typ := range tt.wantNodes {
				n := nodeByKey(g, key)
				if n == nil {
					t.Errorf("node %q missing; nodes: %v", key, keys(g))
					continue
				}
				if typ != "" && n.Type != typ {
					t.Errorf("node %q type = %q, want %q", key, n.Type, typ)
				}
			}
			for _, key := range tt.noNodes {
				if nodeByKey(g, key) != nil {
					t.Errorf("unwanted node %q; nodes: %v", key, keys(g))
				}
			}
			for _, ed := range g.Edges {
				for _, l := range tt.noLabels {
					if ed.Label == l {
						t.Errorf("unwanted edge label %q: %s -> %s", l, ed.Source, ed.Target)
					}
				}
				if strings.ContainsAny(ed.Label, "'’") {
					t.Errorf("edge label %q keeps a clitic", ed.Label)
				}
			}
		})
	}
}

// TestExtractor_AliasRule checks which full name a short form stands for
// when several full names share its last word.
func TestExtractor_AliasRule(t *testing.T) {
	filler := "\n\n" + strings.Repeat("Nothing else of note happened that day. ", 3) + "\n\n"
	tests := []struct {
		name     string
		text     string
		wantNode string // the node holding the short form's mention
		wantMore []string
	}{
		{
			name: "DominantFullNameWins",
			text: "Abraham Lincoln was elected in 1860. Abraham Lincoln spoke at Gettysburg. " +
				"Abraham Lincoln was shot in 1865. His wife Mary Todd Lincoln survived him." + filler +
				"Historians admire Lincoln.",
			wantNode: "abraham lincoln",
			wantMore: []string{"mary todd lincoln"},
		},
		{
			name: "TieStaysAmbiguous",
			text: "Abraham Lincoln married Mary Todd Lincoln in 1842." + filler +
				"Historians admire Lincoln.",
			wantNode: "lincoln",
			wantMore: []string{"abraham lincoln", "mary todd lincoln"},
		},
		{
			name:     "SingleFullName",
			text:     "Abraham Lincoln was elected in 1860." + filler + "Historians admire Lincoln.",
			wantNode: "abraham lincoln",
		},
	}
	e := mustNew(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.ReadDocument("l.txt", []byte(tt.text), 0)
			if err != nil {
				t.Fatal(err)
			}
			doc.ID = 9
			g := extractDoc(t, e, doc)
			short := strings.LastIndex(tt.text, "Lincoln")
			n := nodeByKey(g, tt.wantNode)
			if n == nil {
				t.Fatalf("node %q missing; nodes: %v", tt.wantNode, keys(g))
			}
			hit := false
			for _, m := range n.Mentions {
				hit = hit || m.Start == short
			}
			if !hit {
				t.Errorf("the short form at %d is not a mention of %q (%+v)", short, tt.wantNode, n.Mentions)
			}
			for _, k := range tt.wantMore {
				if nodeByKey(g, k) == nil {
					t.Errorf("node %q missing; nodes: %v", k, keys(g))
				}
			}
		})
	}
}

func TestMaskMarkup(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"Italics", "being _Christmas\nEve_]", "being  Christmas\nEve ]"},
		{"Bold", "*Marley*!", " Marley !"},
		{"InnerUnderscoreStays", "snake_case and a*b", "snake_case and a*b"},
		{"Dash", "Eve--old Scrooge", "Eve  old Scrooge"},
		{"SingleHyphenStays", "counting-house", "counting-house"},
		{"Empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := maskMarkup(tt.in)
			if got != tt.want {
				t.Errorf("maskMarkup(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(got) != len(tt.in) {
				t.Errorf("length changed: %d -> %d", len(tt.in), len(got))
			}
		})
	}
}

// TestExtractor_ContentsAreNoDescription: the entries of a table of
// contents or a list of illustrations ("Title ...... page") give no node
// a description; prose after them does.
func TestExtractor_ContentsAreNoDescription(t *testing.T) {
	e := mustNew(t, Options{})
	text := "  LIST OF ILLUSTRATIONS\n\n" +
		"  Then old Fezziwig stood out to\n    dance with Mrs. Fezziwig                                          54\n\n" +
		"  Tailpiece                                                           vi\n" +
		"  Heading to Stave One                                                 3\n" +
		"  On the wings of the wind                                         28-29\n" +
		"  Chapter Two: Camden Town .......................... 37\n" +
		"  Tailpiece to Stave Five                                            147\n\n" +
		"Old Fezziwig laid down his pen, and looked up at the clock. Bob Cratchit ran home to Camden Town as hard as he could pelt.\n"
	doc, err := extract.ReadDocument("d.txt", []byte(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	g := extractDoc(t, e, doc)
	checkMentions(t, doc, g)
	for _, n := range g.Nodes {
		for _, junk := range []string{"Tailpiece", "Heading to", "  ", "28-29", "....", " 54", " vi"} {
			if strings.Contains(n.Description, junk) {
				t.Errorf("node %q: description holds contents entries (%q):\n%s", n.Name, junk, n.Description)
			}
		}
	}
	for key, want := range map[string]string{"fezziwig": "Old Fezziwig laid down his pen", "camden town": "ran home to Camden Town"} {
		n := nodeByKey(g, key)
		if n == nil {
			t.Fatalf("node %q missing; nodes: %v", key, keys(g))
		}
		if !strings.Contains(n.Description, want) {
			t.Errorf("node %q: description %q lacks the prose %q", key, n.Description, want)
		}
	}
}

func TestPageLines(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"  Heading to Stave One                                                 3", true},
		{"  Tailpiece                                                           vi", true},
		{"  On the wings of the wind                                         28-29", true},
		{"    want with me?\"                                           _Frontispiece_", true},
		{"Chapter Two .......... 37", true},
		{"  STAVE ONE--MARLEY'S GHOST                                             3", true},
		{"He was born in 1843 and died in 1870", false},
		{"The year was  1843", true}, // a gap of two spaces reads as a leader
		{"                                                                    12", false},
		{"It cost 12", false},
		{"It was chapter  IV", false},
	} {
		got := len(pageLines(c.line+"\n")) == 1
		if got != c.want {
			t.Errorf("pageLines(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}
