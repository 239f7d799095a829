package nlp

import (
	"slices"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// ruleCase is one inline text with the nodes it must and must not give.
type ruleCase struct {
	name      string
	text      string
	wantNodes map[string]string // key -> type ("" for any type)
	noNodes   []string
	wantProps map[string][2]string // key -> property, value
	// mentionsOf maps a node key to the surface texts its mentions must
	// cover (each at least once).
	mentionsOf map[string][]string
}

// runRules extracts each case as its own document and checks it.
func runRules(t *testing.T, tests []ruleCase) {
	t.Helper()
	e := mustNew(t, Options{})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := extract.ReadDocument(tt.name+".txt", []byte(tt.text), 0)
			if err != nil {
				t.Fatal(err)
			}
			doc.ID = 100 + i
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
			for key, kv := range tt.wantProps {
				n := nodeByKey(g, key)
				if n == nil {
					t.Errorf("node %q missing; nodes: %v", key, keys(g))
					continue
				}
				if got, _ := n.Properties[kv[0]].(string); got != kv[1] {
					t.Errorf("node %q property %s = %v, want %q", key, kv[0], n.Properties[kv[0]], kv[1])
				}
			}
			for key, texts := range tt.mentionsOf {
				n := nodeByKey(g, key)
				if n == nil {
					t.Errorf("node %q missing; nodes: %v", key, keys(g))
					continue
				}
				for _, want := range texts {
					hit := false
					for _, m := range n.Mentions {
						hit = hit || m.Text == want
					}
					if !hit {
						t.Errorf("node %q has no mention %q (%v)", key, want, n.Mentions)
					}
				}
			}
		})
	}
}

// filler keeps two parts of a text in different sentences and paragraphs.
var filler = "\n\n" + strings.Repeat("Nothing else of note happened that day. ", 2) + "\n\n"

// TestExtractor_MergingRules: only person short forms fold into person
// full names, never across a woman's title; adjective-led runs are no full
// names; common nouns and places are not folded.
func TestExtractor_MergingRules(t *testing.T) {
	runRules(t, []ruleCase{
		{
			name:       "SurnameAndGivenNameFold",
			text:       "Jacob Marley was Scrooge's partner." + filler + "Marley was dead. 'Jacob!' cried Scrooge. Then Marley left.",
			wantNodes:  map[string]string{"jacob marley": "Person"},
			noNodes:    []string{"marley", "jacob"},
			mentionsOf: map[string][]string{"jacob marley": {"Marley", "Jacob"}},
		},
		{
			name:       "NotAcrossMrsTitle",
			text:       "Bob Cratchit was the clerk of Scrooge." + filler + "Mrs. Cratchit laughed. Then Cratchit came home and kissed Mrs. Cratchit.",
			wantNodes:  map[string]string{"bob cratchit": "Person", "mrs. cratchit": "Person"},
			noNodes:    []string{"cratchit"},
			mentionsOf: map[string][]string{"bob cratchit": {"Cratchit"}, "mrs. cratchit": {"Cratchit"}},
		},
		{
			name:      "AdjectiveLedRunIsNoFullName",
			text:      "Bob Cratchit worked hard for Mr. Marley." + filler + "Poor Bob was cold. Then Old Marley came, and Marley was a ghost.",
			wantNodes: map[string]string{"bob cratchit": "Person", "marley": ""},
			noNodes:   []string{"poor bob", "old marley"},
		},
		{
			name: "CommonNounNotFolded",
			text: "Every one of them wore chains like Marley's Ghost." + filler +
				"Then the Ghost sat down. The Ghost raised a cry. Jacob Marley had been dead for years.",
			noNodes:   []string{"marley's ghost"},
			wantNodes: map[string]string{"ghost": "", "jacob marley": "Person"},
		},
		{
			name:      "PlacesNotFolded",
			text:      "She grew up in West Vancouver, British Columbia." + filler + "Later she moved to Vancouver.",
			wantNodes: map[string]string{"west vancouver": "Location", "vancouver": "Location"},
		},
	})
}

// TestExtractor_BoundaryRules: initials belong to names, titles and ranks
// go to properties, "&" stays inside a name, and no name crosses "X of Y"
// or a sentence break.
func TestExtractor_BoundaryRules(t *testing.T) {
	runRules(t, []ruleCase{
		{
			name:      "Initials",
			text:      "His descendant, William P. Carey, funded the Alan B. Miller Hall in Williamsburg.",
			wantNodes: map[string]string{"william p. carey": "Person", "alan b. miller hall": "Location"},
			noNodes:   []string{"william p", "carey", "miller hall"},
		},
		{
			name:      "TitlesToProperties",
			text:      "Support came from the country's Prime Minister Sheikh Hasina. Mr. Fezziwig laughed, said Vice Admiral Robert L. Ghormley.",
			wantNodes: map[string]string{"sheikh hasina": "Person", "fezziwig": "Person", "robert l. ghormley": "Person"},
			noNodes:   []string{"prime minister sheikh hasina", "prime minister", "vice admiral robert l. ghormley"},
			wantProps: map[string][2]string{"sheikh hasina": {"title", "Prime Minister"}, "fezziwig": {"title", "Mr."},
				"robert l. ghormley": {"title", "Vice Admiral"}},
		},
		{
			name:      "AmpersandInside",
			text:      "The rifle was made by Smith & Wesson in Springfield.",
			wantNodes: map[string]string{"smith & wesson": "Organization"},
			noNodes:   []string{"smith", "wesson"},
		},
		{
			name: "OfOnlyAfterAHead",
			text: "The Soviet grandmaster Kiril Marichkov of Bulgaria studied at the University of Sofia with Tony Day of Cape Town.",
			wantNodes: map[string]string{"kiril marichkov": "", "bulgaria": "Location", "university of sofia": "Organization",
				"tony day": "", "cape town": "Location"},
			noNodes: []string{"kiril marichkov of bulgaria", "tony day of cape town"},
		},
		{
			name:      "PossessiveEndsAName",
			text:      "The convention of Ghana's Convention People's Party met in Accra.",
			noNodes:   []string{"ghana's convention people", "ghana's convention people's party"},
			wantNodes: map[string]string{"ghana": "Location", "accra": "Location"},
		},
		{
			name:      "SentenceBreak",
			text:      "Support came from Sheikh Hasina and Khaleda Zia. Khalidi said Khalidi had been awarded a prize.",
			wantNodes: map[string]string{"khaleda zia": "Person", "khalidi": ""},
			noNodes:   []string{"khaleda zia. khalidi", "khaleda zia khalidi", "zia."},
		},
		{
			name:      "Nickname",
			text:      "Wilfried \"Willi\" Schneider (born 13 March 1963) is a German skeleton racer. Schneider later became a coach.",
			wantNodes: map[string]string{"wilfried \"willi\" schneider": "Person", "german": "Location"},
			noNodes:   []string{"willi", "schneider"},
		},
		{
			name:      "NationalityBeforeTitle",
			text:      "He met the Malaysian Prime Minister Dr. Mahathir bin Mohamad in Kuala Lumpur.",
			wantNodes: map[string]string{"malaysian": "Location", "mahathir bin mohamad": "Person", "kuala lumpur": "Location"},
		},
	})
}

// TestExtractor_TypeRules: organisation cues, acronyms, titles in quotes,
// the per-document vote, and Concept rather than a weak guess.
func TestExtractor_TypeRules(t *testing.T) {
	runRules(t, []ruleCase{
		{
			name: "OrganisationCues",
			text: "The House of Representatives asked the Federal Bureau of Investigation and the Communist Party of China. " +
				"She signed with Capitol Records and studied at Loyola University Chicago and the Circuit Court of Cook County.",
			wantNodes: map[string]string{"house of representatives": "Organization", "federal bureau of investigation": "Organization",
				"communist party of china": "Organization", "capitol records": "Organization",
				"loyola university chicago": "Organization", "circuit court of cook county": "Organization"},
		},
		{
			name: "ClubsLabelsParties",
			text: "In 2009 he joined FK Teleoptik, a club owned by FK Partizan. The team lost 5–1 against Rosenborg in the final. " +
				"Ray Charles released the single in 1955 on the Atlantic label. Finnegan sought the Democratic nomination for judge. " +
				"Square Enix is a Japanese video game development and publishing company.",
			wantNodes: map[string]string{"fk teleoptik": "Organization", "fk partizan": "Organization", "rosenborg": "Organization",
				"atlantic": "Organization", "democratic": "Organization", "square enix": "Organization"},
		},
		{
			name:      "Acronyms",
			text:      "The mission was run by NASA with help from the ESA, far from the UK.",
			wantNodes: map[string]string{"nasa": "Organization", "esa": "Organization", "uk": "Location"},
		},
		{
			name:      "TeamsNamedAfterPlaces",
			text:      "He played for the Los Angeles Lakers and later for Atlético Madrid.",
			wantNodes: map[string]string{"los angeles lakers": "Organization", "atlético madrid": "Organization"},
		},
		{
			name:      "TitleInQuotes",
			text:      "Her first hit was \"Take a Letter Miss Smith\", recorded in London.",
			wantNodes: map[string]string{"take a letter miss smith": "Concept", "london": "Location"},
			noNodes:   []string{"letter miss smith", "smith"},
		},
		{
			name: "DocumentVote",
			text: "Roketsan is a major Turkish weapons manufacturer based in Ankara." + filler +
				"Later, Roketsan built a satellite launching center.",
			wantNodes: map[string]string{"roketsan": "Organization", "turkish": "Location", "ankara": "Location"},
		},
		{
			name:      "ReligionsAndParties",
			text:      "The Roman Catholic Church and the Whigs opposed the Lutheran reforms.",
			wantNodes: map[string]string{"roman catholic church": "Organization", "whigs": "Organization", "lutheran": "Organization"},
			noNodes:   []string{"roman", "catholic church"},
		},
		{
			// The head of "video game developer" is developer; a place
			// word opening a name ("Square") does not make it a place.
			name:      "CompoundClassNouns",
			text:      "Square Enix is a Japanese video game developer. Bob Crewe is an American film director.",
			wantNodes: map[string]string{"square enix": "Organization", "bob crewe": "Person"},
		},
		{
			name: "LowerCaseQualifiers",
			text: "Velocifero is an album by English electronic music band Ladytron. Paul joined the political party Vlaams Belang. " +
				"It came out on the Polydor label.",
			wantNodes: map[string]string{"ladytron": "Organization", "vlaams belang": "Organization", "polydor": "Organization"},
		},
		{
			// Places by how a text places them; people by kinship, reign,
			// a role, "X, who" or "X king of", and the other name of a
			// pair one of them types.
			name: "PlaceAndPersonCues",
			text: "The zone is bordered on the south by Misraq Gojjam, on the southwest by Mirab Gojjam and Bahir Dar. " +
				"He studied in the Lazio region and the regional capital Olsztyn. " +
				"Aspren lived during the reigns of Trajan and Hadrian. Robeson played as Zinga. " +
				"The chiefs surrendered Red Bird, who officials believed to be the ringleader. Thranduil king of northern Mirkwood ruled.",
			wantNodes: map[string]string{"misraq gojjam": "Location", "mirab gojjam": "Location", "bahir dar": "Location",
				"lazio": "Location", "olsztyn": "Location", "trajan": "Person", "hadrian": "Person", "zinga": "Person",
				"red bird": "Person", "thranduil": "Person"},
		},
		{
			name: "OrganisationPairsAndPossessives",
			text: "He joined Ghana's Convention People's Party. It was one half of the pop outfits Naked Eyes and Climie Fisher. " +
				"A former Oreja Azul member sang it. In 1990 Enasa was sold to Iveco. Iowa Telecom bought Zumatel Communications.",
			wantNodes: map[string]string{"convention people's party": "Organization", "naked eyes": "Organization",
				"climie fisher": "Organization", "oreja azul": "Organization", "iveco": "Organization",
				"zumatel communications": "Organization"},
		},
		{
			name:      "BodiesNamedForWhatTheyAreFor",
			text:      "Einstein joined the Institute for Advanced Study in Princeton. Later he worked for Siemens.",
			wantNodes: map[string]string{"institute for advanced study": "Organization", "siemens": "Organization"},
			noNodes:   []string{"advanced study"},
		},
		{
			name:      "ModifiedPlaces",
			text:      "Han was born and raised in Hohhot, Inner Mongolia. Lecca was an agent of influence for Nazi Germany.",
			wantNodes: map[string]string{"inner mongolia": "Location", "nazi germany": "Location"},
		},
		{
			name:      "RegionsAndRoads",
			text:      "The plants are native to the Americas and the Levant. Interstate 680 runs through the valley.",
			wantNodes: map[string]string{"americas": "Location", "levant": "Location", "interstate 680": "Location"},
		},
		{
			name: "AcronymsInParentheses",
			text: "The Overseas Private Investment Corporation (OPIC) lent the money. OPIC was founded in 1971. " +
				"He joined the Labour Party (UK) in 1990.",
			wantNodes: map[string]string{"overseas private investment corporation": "Organization", "labour party": "Organization", "uk": "Location"},
			noNodes:   []string{"opic"},
		},
		{
			name: "OfficeBeforeAName",
			text: "Director Anurag Kashyap had revealed it twice. The memo went through then National Security Advisor James L. Jones. " +
				"She edited the Art Director Magazine.",
			wantNodes: map[string]string{"anurag kashyap": "Person", "james l. jones": "Person"},
			noNodes:   []string{"director anurag kashyap", "national security advisor james l. jones", "magazine"},
		},
		{
			name:      "HyphenatedGivenNames",
			text:      "In Paris he attended the lectures of Jean-Baptiste Dumas at the Sorbonne.",
			wantNodes: map[string]string{"jean-baptiste dumas": "Person", "paris": "Location"},
		},
		{
			name: "AndInsideABodysName",
			text: "He worked for the Baltimore and Ohio Railroad Company and later for the Ministry of Education and Research. " +
				"She studied at the University of Chicago and Northwestern University.",
			wantNodes: map[string]string{"baltimore and ohio railroad company": "Organization",
				"ministry of education and research": "Organization", "university of chicago": "Organization",
				"northwestern university": "Organization"},
			noNodes: []string{"ohio railroad company", "research"},
		},
		{
			name:      "ConceptRatherThanGuess",
			text:      "He went out into the night. Then the Ghost sat down beside him and spoke of Abundance and Happiness.",
			wantNodes: map[string]string{"ghost": "Concept", "abundance": "Concept"},
		},
	})
}

// TestExtractor_JunkRules: all-capital runs, boilerplate, page and list
// numbers and clitics are no nodes; worthwhile numbers stay.
func TestExtractor_JunkRules(t *testing.T) {
	header := "The Project Gutenberg eBook of A Tale\n\nThis ebook is for the use of anyone anywhere in the United States.\n\n" +
		"Title: A Tale\n\nAuthor: Jane Austen\n\n*** START OF THE PROJECT GUTENBERG EBOOK A TALE ***\n\n" +
		"Produced by Janet Blenkinship and the Online Distributed Proofreading Team\n\n"
	footer := "\n\n*** END OF THE PROJECT GUTENBERG EBOOK A TALE ***\n\nUpdated editions will replace the previous one. " +
		"The Project Gutenberg Literary Archive Foundation is a non-profit in Mississippi.\n"
	runRules(t, []ruleCase{
		{
			name:      "AllCapitals",
			text:      "STAVE ONE\n\nMARLEY'S GHOST\n\nThen Marley was dead. PLEASE READ THIS BEFORE YOU GO. It was known to Scrooge.",
			wantNodes: map[string]string{"marley": "", "scrooge": ""},
			noNodes:   []string{"stave one", "marley's ghost", "please read", "please read this", "stave", "ghost"},
		},
		{
			name:      "GutenbergBoilerplate",
			text:      header + "Emma Woodhouse lived in Highbury with her father." + footer,
			wantNodes: map[string]string{"emma woodhouse": "Person", "highbury": ""},
			noNodes: []string{"project gutenberg", "jane austen", "the united states", "janet blenkinship",
				"project gutenberg literary archive foundation", "mississippi", "online distributed proofreading team"},
		},
		{
			name: "PageAndListNumbers",
			text: "See Chapter 12 on page 45 and item 3 of the list.\n\n17\n\nThe firm had 500 employees, " +
				"two offices and $3 billion in sales during the 1950s; the war lasted three weeks and cost 4,231 lives. " +
				"The airport lies 53.4\u00a0km from the capital.",
			wantNodes: map[string]string{"500": "Data", "two": "Data", "$3 billion": "Data", "the 1950s": "Data",
				"three weeks": "Data", "4,231": "Data", "53.4 km": "Data"},
			noNodes: []string{"12", "45", "3", "17", "chapter 12", "chapter"},
		},
		{
			name:      "Clitics",
			text:      "'I'd like that,' said Scrooge. 'One.' It was One. Then he said, 'You'll see.'",
			wantNodes: map[string]string{"scrooge": ""},
			noNodes:   []string{"i'd", "one.", "one", "you'll"},
		},
	})
}

// edgeRules extracts the texts of TestExtractor_EdgeRules' subtests with one shared extractor.
type edgeRules struct{ e *Extractor }

// extractText extracts text as one document and checks its mentions.
func (x edgeRules) extractText(t *testing.T, text string) extract.Graph {
	doc, err := extract.ReadDocument("e.txt", []byte(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	doc.ID = 42
	g := extractDoc(t, x.e, doc)
	checkMentions(t, doc, g)
	return g
}

// edgeBetween returns the edge between a and b in either direction, or nil.
func edgeBetween(g extract.Graph, a, b string) *extract.Edge {
	for i, ed := range g.Edges {
		if ed.Source == a && ed.Target == b || ed.Source == b && ed.Target == a {
			return &g.Edges[i]
		}
	}
	return nil
}

// TestExtractor_EdgeRules: a verb labels an edge only when the first
// entity is its subject and the second its object in one clause; links
// beyond a sentence weigh less; numbers are not linked.
func TestExtractor_EdgeRules(t *testing.T) {
	x := edgeRules{e: mustNew(t, Options{})}
	for _, st := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"SubjectVerbObject", x.subjectVerbObject},
		{"NoVerbAcrossClauses", x.noVerbAcrossClauses},
		{"DateNeedsPreposition", x.dateNeedsPreposition},
		{"NumbersUnlinked", x.numbersUnlinked},
		{"MainEntityLowerWeight", x.mainEntityLowerWeight},
		{"SubjectBeforeVerb", x.subjectBeforeVerb},
		{"VerbGroupNouns", x.verbGroupNouns},
		{"BiographyPronouns", x.biographyPronouns},
		{"SurnameAfterEventName", x.surnameAfterEventName},
		{"VerbAcrossDate", x.verbAcrossDate},
		{"PrizeOfPerson", x.prizeOfPerson},
		{"PronounSentenceLowerWeight", x.pronounSentenceLowerWeight},
		{"Countries", x.countries},
		{"QuotedTitleTakesTheVerb", x.quotedTitleTakesTheVerb},
		{"PlaceOfBirthInParentheses", x.placeOfBirthInParentheses},
		{"Kinship", x.kinship},
		{"ListsShareTheVerb", x.listsShareTheVerb},
		{"Works", x.works},
		{"SubjectCooccurrence", x.subjectCooccurrence},
		{"RelatedToHasOneDirection", x.relatedToHasOneDirection},
	} {
		t.Run(st.name, st.run)
	}
}

// subjectVerbObject checks a clause's verb labels its edge, by a standard name with the phrase as keywords.
func (x edgeRules) subjectVerbObject(t *testing.T) {
	g := x.extractText(t, "Abraham Lincoln moved to Illinois. London is the capital of England.")
	// Phrases with a standard reading take its name; the phrase
	// stays as the edge's keywords.
	if !hasEdge(g, [3]string{"abraham lincoln", "residence", "illinois"}) {
		t.Errorf("edge residence (moved to) missing; edges: %v", edgeList(g))
	} else if ed := edgeBetween(g, "abraham lincoln", "illinois"); ed.Keywords != "moved to" {
		t.Errorf("residence edge keywords %q, want the phrase", ed.Keywords)
	}
	if !hasEdge(g, [3]string{"london", "capital of", "england"}) {
		t.Errorf("edge capital of missing; edges: %v", edgeList(g))
	}
}

// noVerbAcrossClauses checks that no verb labels an edge between entities of different clauses.
func (x edgeRules) noVerbAcrossClauses(t *testing.T) {
	g := x.extractText(t, "In Paris, Marie Curie, who loved Warsaw, worked hard. "+
		"The apostles of Rome putting off to sea in Marley's boat were lost. "+
		"Christmas Eve came, and then ran home to Camden Town.")
	for _, ed := range g.Edges {
		if ed.Label != "related_to" {
			t.Errorf("verb edge %s -%s-> %s", ed.Source, ed.Label, ed.Target)
		}
	}
}

// dateNeedsPreposition checks that a verb reaches a date only through a preposition.
func (x edgeRules) dateNeedsPreposition(t *testing.T) {
	g := x.extractText(t, "Marley has been dead these seven years. Jacob Marley was born in 1760.")
	if ed := edgeBetween(g, "jacob marley", "seven years"); ed != nil && ed.Label != "related_to" {
		t.Errorf("verb edge to a duration: %s", ed.Label)
	}
	if !hasEdge(g, [3]string{"jacob marley", "date of birth", "1760"}) {
		t.Errorf("edge date of birth (was born in) missing; edges: %v", edgeList(g))
	}
}

// numbersUnlinked checks that numbers get no edges while the named entities around them stay linked.
func (x edgeRules) numbersUnlinked(t *testing.T) {
	g := x.extractText(t, "In 2001 Microsoft hired 500 employees and two managers in Seattle.")
	for _, ed := range g.Edges {
		if ed.Source == "500" || ed.Target == "500" || ed.Source == "two" || ed.Target == "two" {
			t.Errorf("edge to a number: %s -%s-> %s", ed.Source, ed.Label, ed.Target)
		}
	}
	if edgeBetween(g, "microsoft", "seattle") == nil {
		t.Errorf("microsoft - seattle missing; edges: %v", edgeList(g))
	}
}

// mainEntityLowerWeight checks that links made through the main entity weigh less than same-sentence links.
func (x edgeRules) mainEntityLowerWeight(t *testing.T) {
	g := x.extractText(t, "Wilfried Schneider is a German skeleton racer. He won two medals at the FIBT World Championships. "+
		"After retiring, the Canadian team hired him in Turin.")
	ed := edgeBetween(g, "wilfried schneider", "fibt world championships")
	if ed == nil {
		t.Fatalf("main entity link missing; edges: %v", edgeList(g))
	}
	if ed.Weight >= 1 {
		t.Errorf("main entity link weight %v, want below 1", ed.Weight)
	}
	if in := edgeBetween(g, "wilfried schneider", "german"); in == nil || in.Weight < 1 {
		t.Errorf("same-sentence link %+v, want weight 1", in)
	}
	// Turin's sentence has no named subject ("the Canadian team hired
	// him"): the biography's subject links it, at the lower weight,
	// and a nationality links nothing by co-occurrence.
	if ed := edgeBetween(g, "wilfried schneider", "turin"); ed == nil || ed.Weight >= 1 {
		t.Errorf("turin: want the main entity's link below weight 1; edges: %v", edgeList(g))
	}
	if edgeBetween(g, "canadian", "turin") != nil {
		t.Errorf("a nationality linked by co-occurrence; edges: %v", edgeList(g))
	}
}

// subjectBeforeVerb checks the subject is the name before the first finite verb and after no preposition.
func (x edgeRules) subjectBeforeVerb(t *testing.T) {
	long := strings.Repeat("Nothing else of note happened that day in the quiet town. ", 220)
	// The subject stands before the first finite verb and after no
	// preposition: Meitner, not Christmas.
	g := x.extractText(t, long+"\n\nOver the Christmas holiday Lise Meitner discussed the puzzle near Kungälv.")
	if edgeBetween(g, "lise meitner", "kungälv") == nil {
		t.Errorf("subject link missing; edges: %v", edgeList(g))
	}
	if edgeBetween(g, "christmas", "kungälv") != nil {
		t.Errorf("a name after a preposition taken for the subject; edges: %v", edgeList(g))
	}
	// No named subject before the verb: nothing co-occurs.
	g = x.extractText(t, long+"\n\nIn 1881, at Pouilly-le-Fort near Melun, the team tested a vaccine with Charles Chamberland.")
	for _, ed := range g.Edges {
		if ed.Label == "related_to" {
			t.Errorf("co-occurrence in a sentence without a named subject: %v", edgeList(g))
			break
		}
	}
	// A nationality is no subject and links nothing by co-occurrence.
	g = x.extractText(t, long+"\n\nIn 1923 the German rocket pioneer Hermann Oberth described a telescope in orbit around Earth.")
	if edgeBetween(g, "german", "earth") != nil {
		t.Errorf("a nationality linked by co-occurrence; edges: %v", edgeList(g))
	}
	if edgeBetween(g, "hermann oberth", "earth") == nil {
		t.Errorf("the subject after a nationality not linked; edges: %v", edgeList(g))
	}
}

// verbGroupNouns checks verb + noun + preposition labels and reduced relatives.
func (x edgeRules) verbGroupNouns(t *testing.T) {
	g := x.extractText(t, "Ross Perot ran as candidate for the Reform Party. Rush 2 is a racing video game developed by Atari Games.")
	if !hasEdge(g, [3]string{"ross perot", "ran as candidate for", "reform party"}) {
		t.Errorf("verb + noun + preposition label missing; edges: %v", edgeList(g))
	}
	if !hasEdge(g, [3]string{"rush 2", "developer", "atari games"}) {
		t.Errorf("reduced relative (developed by) missing; edges: %v", edgeList(g))
	}
}

// biographyPronouns checks that a biography's pronouns stand for its subject and that its surname folds into it.
func (x edgeRules) biographyPronouns(t *testing.T) {
	// "He" and "she" of a biography stand for its subject, after an
	// opening phrase too, and "son of X" makes X a parent.
	g := x.extractText(t, "Grace Hopper\n\nGrace Brewster Murray Hopper was an American computer scientist. "+
		"She was the eldest child of Walter Fletcher Murray. In 1930 she married Vincent Foster Hopper. "+
		"There she met Howard Aiken. Hopper joined the Navy.")
	for _, want := range [][3]string{
		{"grace hopper", "spouse", "vincent foster hopper"},
		{"walter fletcher murray", "child", "grace hopper"},
		{"grace hopper", "met", "howard aiken"},
	} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
	for _, k := range []string{"hopper", "grace brewster murray hopper"} {
		if nodeByKey(g, k) != nil {
			t.Errorf("%q not folded into the title's person; nodes: %v", k, keys(g))
		}
	}
}

// surnameAfterEventName checks that a surname after an event name folds into the full name.
func (x edgeRules) surnameAfterEventName(t *testing.T) {
	// "First World War Fleming" is a war, then Fleming: not a second
	// full name that would leave "Fleming" ambiguous.
	g := x.extractText(t, "The discovery of penicillin\n\nThe observation was made by Alexander Fleming in 1928. "+
		"During the First World War Fleming served in the army. Later Fleming identified the mould.")
	if nodeByKey(g, "fleming") != nil {
		t.Errorf("surname not folded; nodes: %v", keys(g))
	}
}

// verbAcrossDate checks that a verb reaches its place and date across a date phrase.
func (x edgeRules) verbAcrossDate(t *testing.T) {
	g := x.extractText(t, "Lise Meitner was an Austrian physicist. Meitner was born on 7 November 1878 in Vienna. "+
		"She died on 27 October 1968 in Cambridge. In 1907 Meitner moved to Berlin in the autumn. "+
		"Ada Lovelace was born in London on 10 December 1815.")
	for _, want := range [][3]string{
		{"lise meitner", "place of birth", "vienna"},
		{"lise meitner", "place of death", "cambridge"},
		{"lise meitner", "date of birth", "7 november 1878"},
		{"ada lovelace", "place of birth", "london"},
		{"ada lovelace", "date of birth", "10 december 1815"},
	} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
}

// prizeOfPerson checks that a prize a person received gives an award received edge.
func (x edgeRules) prizeOfPerson(t *testing.T) {
	g := x.extractText(t, "Among the honours Louis Pasteur received was the Rumford Medal of the Royal Society.")
	if !hasEdge(g, [3]string{"louis pasteur", "award received", "rumford medal of the royal society"}) {
		t.Errorf("award received missing; edges: %v", edgeList(g))
	}
}

// pronounSentenceLowerWeight checks a pronoun links to the previous subject at a lower weight, or by its verb.
func (x edgeRules) pronounSentenceLowerWeight(t *testing.T) {
	// A long document has no main entity; a sentence opening with a
	// pronoun links to the previous sentence's subject.
	long := strings.Repeat("Nothing else of note happened that day in the quiet town. ", 220)
	g := x.extractText(t, long+"\n\nEbenezer Scrooge kept a counting-house. He walked every morning past Cornhill.")
	ed := edgeBetween(g, "ebenezer scrooge", "cornhill")
	if ed == nil {
		t.Fatalf("pronoun link missing; edges: %v", edgeList(g))
	}
	if ed.Weight >= 1 {
		t.Errorf("pronoun link weight %v, want below 1", ed.Weight)
	}
	// A verb right after the pronoun names the link: the pronoun
	// stands for the previous sentence's subject.
	g = x.extractText(t, long+"\n\nEbenezer Scrooge kept a counting-house. He walked to Cornhill and visited Camden Town.")
	for _, want := range [][3]string{{"ebenezer scrooge", "walked to", "cornhill"}, {"ebenezer scrooge", "visited", "camden town"}} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
}

// countries checks which entities a nationality or a country places in a country.
func (x edgeRules) countries(t *testing.T) {
	// A nationality names the country of what it qualifies, not of
	// everything in its sentence; a place lies in the chunk's one
	// country, or in the country of what it lies in.
	g := x.extractText(t, "Roketsan is a major Turkish weapons manufacturer based in the central province of Ankara.")
	if !hasEdge(g, [3]string{"roketsan", "country", "turkish"}) {
		t.Errorf("roketsan -country-> turkish missing; edges: %v", edgeList(g))
	}
	if !hasEdge(g, [3]string{"ankara", "country", "turkish"}) {
		t.Errorf("ankara -country-> turkish (the chunk's one country) missing; edges: %v", edgeList(g))
	}
	// A place or organisation in a country is located in it too.
	for _, src := range []string{"roketsan", "ankara"} {
		if !hasEdge(g, [3]string{src, "located in", "turkish"}) {
			t.Errorf("%s -located in-> turkish missing; edges: %v", src, edgeList(g))
		}
	}
	g = x.extractText(t, "Wilfried Schneider was born in Mediaș, Transylvania. Schneider is a German skeleton racer.")
	if !hasEdge(g, [3]string{"wilfried schneider", "country of citizenship", "german"}) {
		t.Errorf("wilfried schneider -country of citizenship-> german missing; edges: %v", edgeList(g))
	}
	for _, ed := range g.Edges {
		if (ed.Label == "country" || ed.Label == "located in") && (ed.Source == "mediaș" || ed.Source == "transylvania") && ed.Target == "german" {
			t.Errorf("%s -%s-> %s: the nationality is the racer's", ed.Source, ed.Label, ed.Target)
		}
	}
	g = x.extractText(t, "The monument stands in Phnom Penh, capital of Cambodia, and honours an alliance with Vietnam. "+
		"Students come from Africa and Asia. The Capistrano offices are in Westmere, Albany County, in the United States.")
	if !hasEdge(g, [3]string{"phnom penh", "country", "cambodia"}) || hasEdge(g, [3]string{"phnom penh", "country", "vietnam"}) {
		t.Errorf("phnom penh's country is the nearest one, cambodia; edges: %v", edgeList(g))
	}
	for _, ed := range g.Edges {
		if ed.Label == "country" && (ed.Source == "africa" || ed.Source == "asia") {
			t.Errorf("%s -country-> %s: a continent lies in no country", ed.Source, ed.Target)
		}
	}
	// A person's nationality is the chunk's country too; with two
	// countries a place nothing else places lies in the first, and a
	// known city in its own.
	g = x.extractText(t, "Sara Black is an American artist. She taught at the Hyde Park Art Center and studied in Munich. "+
		"Her work was shown at the Eyebeam gallery and in Germany.")
	for _, want := range [][3]string{{"hyde park art center", "country", "american"}, {"munich", "country", "germany"}} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
	// The people the article names are of its country unless a
	// sentence says otherwise.
	g2 := x.extractText(t, "Sara Black is an American artist. She works with the painter Jillian Soto and the German sculptor Otto Brenner.")
	if !hasEdge(g2, [3]string{"jillian soto", "country of citizenship", "american"}) || hasEdge(g2, [3]string{"otto brenner", "country of citizenship", "american"}) {
		t.Errorf("jillian soto is American, otto brenner German; edges: %v", edgeList(g2))
	}
	if hasEdge(g, [3]string{"munich", "country", "american"}) {
		t.Errorf("munich -country-> american: Munich lies in Germany; edges: %v", edgeList(g))
	}
	// A place nothing places lies in the chunk's one region; a known
	// city in its own.
	g4 := x.extractText(t, "Jonathan Joss grew up in Texas. He studied at San Antonio College and later worked in Chicago.")
	if !hasEdge(g4, [3]string{"san antonio college", "located in", "texas"}) || hasEdge(g4, [3]string{"chicago", "located in", "texas"}) {
		t.Errorf("san antonio college, not chicago, lies in texas; edges: %v", edgeList(g4))
	}
	// Only a document's first chunk gives its people the article's
	// country: a later chapter on a stay abroad names others.
	filler := strings.Repeat("The work went on for many years and filled many notebooks. ", 30)
	g5 := x.extractText(t, "Lena Ortiz is an American chemist. She worked with Jillian Soto. "+filler+
		"\n\nIn the winter she lectured in Germany, where she met Otto Brenner.")
	if !hasEdge(g5, [3]string{"jillian soto", "country of citizenship", "american"}) {
		t.Errorf("jillian soto -country of citizenship-> american missing; edges: %v", edgeList(g5))
	}
	for _, ed := range g5.Edges {
		if ed.Source == "otto brenner" && ed.Label == "country of citizenship" {
			t.Errorf("otto brenner -%s-> %s from a later chunk", ed.Label, ed.Target)
		}
	}
	// A country, and a place in one, lie in the continent the chunk names.
	g3 := x.extractText(t, "The Great Belt Fixed Link joins Zealand and Funen in Denmark. It is one of the longest bridges in Europe. Stockholm is far away.")
	if !hasEdge(g3, [3]string{"denmark", "continent", "europe"}) || !hasEdge(g3, [3]string{"stockholm", "continent", "europe"}) {
		t.Errorf("denmark and stockholm -continent-> europe missing; edges: %v", edgeList(g3))
	}
	g = x.extractText(t, "Lena Ortiz is a German racer. She won the race in Turin and lives in Vienna.")
	for _, src := range []string{"turin", "vienna"} {
		if hasEdge(g, [3]string{src, "country", "german"}) {
			t.Errorf("%s -country-> german: a known city lies in its own country; edges: %v", src, edgeList(g))
		}
	}
}

// quotedTitleTakesTheVerb checks that a quoted title is the subject of its verb.
func (x edgeRules) quotedTitleTakesTheVerb(t *testing.T) {
	// A title in quotes takes the date its sentence names after it.
	g0 := x.extractText(t, `The second single, "Maybe", was released on 20 April 2008 and reached the charts in 2009.`)
	if !hasEdge(g0, [3]string{"maybe", "publication date", "20 april 2008"}) || hasEdge(g0, [3]string{"maybe", "publication date", "2009"}) {
		t.Errorf("maybe -publication date-> 20 april 2008 (only); edges: %v", edgeList(g0))
	}
	g := x.extractText(t, `The song "Mess of Blues" was written by Doc Pomus. "Hound Dog" was recorded by Elvis Presley.`)
	for _, want := range [][3]string{{"mess of blues", "author", "doc pomus"}, {"hound dog", "performer", "elvis presley"}} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
}

// placeOfBirthInParentheses checks that a birthplace in parentheses after a name gives a place of birth edge.
func (x edgeRules) placeOfBirthInParentheses(t *testing.T) {
	g := x.extractText(t, "Wilfried Schneider (born 13 March 1963 in Mediaș, Transylvania) is a racer. Ada Lovelace (born in London) was a mathematician.")
	for _, want := range [][3]string{{"wilfried schneider", "place of birth", "mediaș"}, {"ada lovelace", "place of birth", "london"}} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
}

// kinship checks that a possessive and a relative before a person give a family tie.
func (x edgeRules) kinship(t *testing.T) {
	// A possessive and a relative before a person name a family tie.
	g := x.extractText(t, "Ross Patterson Alger (1920 – 1992) was a politician. His brother was Harry Alger. "+
		"Alger's wife, Mary Alger, lived in Calgary.")
	for _, want := range [][3]string{{"ross patterson alger", "sibling", "harry alger"}, {"ross patterson alger", "spouse", "mary alger"}} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
}

// listsShareTheVerb checks a verb reaches every member of a list and no member is placed in another.
func (x edgeRules) listsShareTheVerb(t *testing.T) {
	// The verb that reaches a list's first member reaches the others;
	// a list of places does not place one in the next.
	g := x.extractText(t, "Marie Curie visited Paris, Lyon and Nice.")
	for _, city := range []string{"paris", "lyon", "nice"} {
		if !hasEdge(g, [3]string{"marie curie", "visited", city}) {
			t.Errorf("marie curie -visited-> %s missing; edges: %v", city, edgeList(g))
		}
	}
	if hasEdge(g, [3]string{"paris", "located in", "lyon"}) {
		t.Errorf("paris -located in-> lyon from a list; edges: %v", edgeList(g))
	}
}

// works checks the performer and publication date of works.
func (x edgeRules) works(t *testing.T) {
	g := x.extractText(t, "Mess of Blues is an album by Jeff Healey. Song of Freedom is a 1936 British film directed by J. Elder Wills.")
	for _, want := range [][3]string{
		{"mess of blues", "performer", "jeff healey"},
		{"song of freedom", "publication date", "1936"},
	} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
	// An article's subject takes the record labels its chunk names.
	g = x.extractText(t, "Odessa is the sixth studio album by the Bee Gees. It was released on Atco Records in the United States and by Polydor Records elsewhere.")
	for _, want := range [][3]string{{"odessa", "record label", "atco records"}, {"odessa", "record label", "polydor records"}} {
		if !hasEdge(g, want) {
			t.Errorf("edge %v missing; edges: %v", want, edgeList(g))
		}
	}
}

// subjectCooccurrence checks that co-occurrence links only the subject with the other names of its sentence.
func (x edgeRules) subjectCooccurrence(t *testing.T) {
	// Co-occurrence links the subject with what its sentence names,
	// never two of those with each other.
	g := x.extractText(t, "In 1974, Ross Alger ran for mayor of Calgary against Rod Sykes.")
	if edgeBetween(g, "calgary", "rod sykes") != nil {
		t.Errorf("calgary - rod sykes linked; edges: %v", edgeList(g))
	}
	if edgeBetween(g, "ross alger", "rod sykes") == nil || edgeBetween(g, "ross alger", "calgary") == nil {
		t.Errorf("the subject's links missing; edges: %v", edgeList(g))
	}
}

// relatedToHasOneDirection checks that two entities get one related_to edge whatever their order.
func (x edgeRules) relatedToHasOneDirection(t *testing.T) {
	g := x.extractText(t, "Scrooge and Marley were partners. Marley and Scrooge were friends.")
	n := 0
	for _, ed := range g.Edges {
		if ed.Label == "related_to" && edgeBetween(extract.Graph{Edges: []extract.Edge{ed}}, "scrooge", "marley") != nil {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d related_to edges between scrooge and marley, want 1; edges: %v", n, edgeList(g))
	}
}

// A title line the text does not name again ("Double Helix" over a text
// on DNA, as a .docx or a web page has one) is no hub: it is not the
// document's main entity, linked to everything, and its degree is at
// most the median of the document's people; a title the first sentence
// names is the article's subject.
func TestExtractor_LoneTitle(t *testing.T) {
	e := mustNew(t, Options{})
	run := func(text string) extract.Graph {
		doc, err := extract.ReadDocument("helix.docx", []byte(text), 0)
		if err != nil {
			t.Fatal(err)
		}
		doc.ID = 7
		return extractDoc(t, e, doc)
	}
	degree := func(g extract.Graph, key string) int {
		d := 0
		for _, ed := range g.Edges {
			if ed.Source == key || ed.Target == key {
				d++
			}
		}
		return d
	}
	body := "The structure of DNA was described by James Watson and Francis Crick in 1953. Rosalind Franklin took the photograph in London. " +
		"Watson later worked at Harvard University. Crick moved to the Salk Institute in California. Maurice Wilkins shared the prize."
	g := run("Double Helix\n\n" + body)
	var people []int
	for _, n := range g.Nodes {
		if n.Type == "Person" {
			people = append(people, degree(g, n.Key))
		}
	}
	slices.Sort(people)
	if len(people) < 3 {
		t.Fatalf("people %v", people)
	}
	for _, n := range g.Nodes {
		if strings.Contains(n.Key, "helix") && degree(g, n.Key) > people[len(people)/2] {
			t.Errorf("the lone title %q has degree %d, the people's median %d", n.Key, degree(g, n.Key), people[len(people)/2])
		}
	}
	g = run("Rosalind Franklin\n\nRosalind Franklin was a chemist. " + body)
	// The main entity links what nothing else links (Wilkins, alone in
	// his sentence).
	linked := false
	for _, ed := range g.Edges {
		if ed.Source == "rosalind franklin" && ed.Target == "maurice wilkins" || ed.Target == "rosalind franklin" && ed.Source == "maurice wilkins" {
			linked = true
		}
	}
	if !linked {
		t.Errorf("a title the lead sentence names is no longer the main entity: edges %v", edgeList(g))
	}
}

// A prize named by its field is one name: "Nobel Prize in Physics" is
// neither a prize and a place nor two prizes of one name.
func TestExtractor_PrizeNames(t *testing.T) {
	e := mustNew(t, Options{})
	doc, err := extract.ReadDocument("curie.txt", []byte("Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911."), 0)
	if err != nil {
		t.Fatal(err)
	}
	doc.ID = 9
	g := extractDoc(t, e, doc)
	for _, key := range []string{"nobel prize in physics", "nobel prize in chemistry"} {
		if nodeByKey(g, key) == nil {
			t.Errorf("no node %q: %v", key, keys(g))
		}
	}
	for _, key := range []string{"physics", "chemistry"} {
		if n := nodeByKey(g, key); n != nil {
			t.Errorf("the field %q is a node of its own (%s)", key, n.Type)
		}
	}
}

// A given name written with its accents is a given name: "Leó Szilárd"
// and "José Martí" are people; an institution named with a possessive is
// one name, not a king and a college ("King's College London").
func TestExtractor_AccentedGivenNames(t *testing.T) {
	doc, err := extract.ReadDocument("e.txt", []byte("Leó Szilárd moved to the United States in 1938. José Martí wrote poems in New York. James Watson studied at King's College London."), 0)
	if err != nil {
		t.Fatal(err)
	}
	doc.ID = 42
	g := extractDoc(t, mustNew(t, Options{}), doc)
	for who, typ := range map[string]string{"Leó Szilárd": "Person", "José Martí": "Person", "King's College London": "Organization"} {
		found := false
		for _, n := range g.Nodes {
			if n.Name == who {
				found = true
				if n.Type != typ {
					t.Errorf("%s typed %s, want %s", who, n.Type, typ)
				}
			}
		}
		if !found {
			t.Errorf("%s not found: %v", who, g.Nodes)
		}
	}
}
