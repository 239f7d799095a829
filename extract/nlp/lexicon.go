package nlp

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The word lists below are general knowledge about English names: cue
// words that head organisation, place and event names, person titles and
// ranks, given names, and a gazetteer of countries, their adjectives,
// states, provinces and large cities. None is drawn from an evaluation
// file.

// wordsOf splits a space-separated list into a set.
func wordsOf(s string) map[string]bool { return setOf(strings.Fields(s)...) }

// linesOf splits a "|"-separated list (entries may hold spaces) into a set.
func linesOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Split(s, "|") {
		if w = strings.Join(strings.Fields(w), " "); w != "" {
			m[w] = true
		}
	}
	return m
}

// titles mark the following name as a person; they are not part of the
// name but go to the node's "title" property.
var titles = wordsOf(`Mr. Mrs. Ms. Dr. Mr Mrs Ms Dr Miss Mister Prof. Professor Sir Dame Lady Lord Madam Madame Mme. Mlle.
	St. Saint King Queen Prince Princess Emperor Empress Pope Uncle Aunt President Captain Capt. General Gen. Colonel Col.
	Father Mother Brother Sister Master Senator Sen. Governor Gov. Rev. Reverend Judge Justice Chancellor Premier Minister
	Admiral Commander Lieutenant Lt. Sergeant Sgt. Major Marshal Officer Inspector Detective Chief Chairman Chairwoman
	Bishop Archbishop Cardinal Rabbi Imam Deacon Pastor Abbot Duke Duchess Count Countess Baron Baroness Earl Sultan
	Emir Shah Tsar Czar Kaiser Pharaoh Coach Representative Rep. Congressman Congresswoman Ambassador Mayor Secretary
	Vice Deputy Rear Grandmaster Sheriff Consul Viceroy Regent Councillor Councilor Alderman Professor Doctor`)

// rankWords extend a title to the left or right ("Prime Minister", "Vice
// Admiral", "Head Coach", "Chief Executive"); a run of them before a name
// is one title.
var rankWords = wordsOf(`Prime Vice Rear Deputy Head Chief Executive Grand Lord High Acting Former Assistant Associate
	Senior Junior General Attorney Foreign Home Supreme Field Air Staff State Crown Opposition Leader Managing First Second`)

// personTitles are the titles that make a person (all but "St.", which
// also opens places).
var personTitles = func() map[string]bool {
	m := map[string]bool{}
	for t := range titles {
		if !saints[t] {
			m[t] = true
		}
	}
	return m
}()

// femaleTitles keep a woman apart from a man of the same surname ("Mrs.
// Cratchit" is not "Bob Cratchit").
var femaleTitles = wordsOf(`Mrs. Mrs Ms. Ms Miss Madam Madame Mme. Mlle. Lady Dame Queen Princess Empress Duchess Countess
	Baroness Aunt Sister Mother`)

// offices follow a title to form one name ("Lord Mayor", "Lord
// Chancellor"): the title then stays part of the name.
var offices = wordsOf(`Mayor Mayoress Chancellor Chamberlain Bishop Justice Protector Admiral Lieutenant Chief Provost
	Steward Keeper Marshal Advocate Speaker Treasurer`)

// orgHeads make an organisation when they end a name or head its "of"
// part ("Bank of England", "House of Representatives").
var orgHeads = wordsOf(`Inc Inc. Corp Corp. Corporation Company Co. Ltd Ltd. LLC PLC plc GmbH AG SA S.A. N.V. Group Holdings
	University College School Institute Institution Academy Conservatory Seminary Polytechnic
	Association Society Party Army Navy Corps Force Forces Guard Guards Brigade Regiment Division Battalion Squadron Fleet
	Church Diocese Archdiocese Parish Council Committee Commission Board Bureau Agency Authority Administration Office
	Ministry Department Directorate Secretariat Service Services Bank Fund Trust Exchange Club Team Band Orchestra Choir
	Ensemble Quartet Trio Records Recordings Films Pictures Studios Studio Productions Entertainment Media Press Publishing
	Publishers Network Networks Channel Broadcasting Radio Television TV Airlines Airways Railway Railways Railroad Motors
	Industries Industrial Enterprises Systems Technologies Technology Software Labs Laboratories Pharmaceuticals Foods
	Union League Federation Confederation Alliance Coalition Congress Parliament Senate Assembly Legislature Cabinet
	Government Court Tribunal Police Gendarmerie Foundation Museum Library Hospital Clinic Centre Center Orchestra
	Theatre Theater Opera Ballet Company FC AFC SC CF United Rovers Wanderers Athletic Athletics Hotspur Olympique
	Organization Organisation Institute Consortium Cooperative Syndicate Guild Order Brotherhood Sisterhood Movement
	Front Mission Monastery Abbey Convent Newspaper Magazine Times Post Journal Herald Gazette Tribune Chronicle Daily
	Weekly Review Observer Telegraph Standard Courier Sun Mirror Express Bulletin Patrol Unit Units Command Philharmonic
	Annalen Annals Proceedings Transactions Zeitschrift Revue Rivista Revista Zeitung Journaal
	Symphony Fotball Fotbal Fußball Futebol Fútbol Calcio Sport Sports Athletic Olympic Dynamo Sporting Club Clube
	Brothers Sisters Singers Players Partners Associates Holdings Capital Ventures Solutions Group Groupe Gruppe
	Democrats Republicans Socialists Liberals Conservatives Greens Interactive Communications Telecom Telecommunications
	Electronics Computers Microsystems Semiconductor Semiconductors Instruments Robotics Wireless Digital Insurance Financial
	Logistics Shipping Manufacturing Construction Engineering Consulting Brewery Brewing Distillery Books Transit Artists
	Fraternity Sorority
	Escuela Universidad Université Universität Università Instituto Institut Istituto Banco Banque Banca Bankası Teatr
	Teatro Théâtre Comédie Museo Musée Museu Academia Akademie Académie Colegio Collège Hochschule Gymnasium Liceo Lycée
	Partido Parti Partei Partito Compañía Compagnie Gesellschaft Verein Sociedad Société Società Orquesta Orchestre
	Orchester Liga Ligue Lega Filharmonia Philharmonie Radiotelevisione Televisión Eishockey Fútbol`)

// roleWords are occupations and offices: alone or with titles they name
// no one ("Producer", "Head Writer").
var roleWords = wordsOf(`Producer Director Writer Editor Candidate Chairman Chairwoman Chair CEO President Secretary
	Treasurer Manager Coach Founder Member Leader Host Presenter Narrator Author Publisher Composer Conductor Executive
	Officer Spokesman Spokeswoman Correspondent Columnist Commentator Reporter Anchor Designer Engineer Advisor Adviser
	Consultant Analyst Administrator Commissioner Inspector Superintendent Principal Dean Provost Rector Registrar
	Curator Librarian Archivist Trustee Governor Deputy Assistant Associate Vice Co`)

// institutions are organisations named by one word ("Parliament",
// "Riksdag", "Wehrmacht").
var institutions = wordsOf(`Parliament Congress Senate Legislature Commission Cabinet Government Riksdag Bundestag Bundesrat
	Duma Knesset Storting Folketing Sejm Eduskunta Oireachtas Dáil Wehrmacht
	Luftwaffe Kriegsmarine Reichstag Politburo Interpol Europol Comintern Gestapo Stasi KGB Bundeswehr Admiralty Curia`)

// placeHeads make a place when they end a name or head its "of" part
// ("Gulf of Mexico", "Isle of Man").
var placeHeads = wordsOf(`River Lake Lakes Mountain Mountains Mount Mt. Peak Peaks Range Ridge Glacier Volcano Island Islands
	Isle Isles Archipelago Atoll Reef Cape Peninsula Coast Beach Bay Gulf Sea Ocean Strait Channel Sound Fjord Canal
	Creek Brook Falls Spring Springs Valley Canyon Gorge Desert Plain Plains Plateau Forest Wood Woods Wilderness Park
	Reserve Preserve Monument Garden Gardens Zoo Aquarium City Town Village Township Borough County Parish District Region
	Province State Territory Prefecture Municipality Commune Voivodeship Oblast Krai Canton Department Shire Governorate
	Emirate Kingdom Republic Empire Principality Duchy Commonwealth Federation Confederation Colony Protectorate Land Lands
	Street St Road Rd. Avenue Ave. Boulevard Lane Drive Way Highway Motorway Freeway Expressway Route Square Plaza Place
	Terrace Crescent Court Row Bridge Tunnel Dam Reservoir Harbour Harbor Port Station Airport Castle Palace Cathedral
	Abbey Chapel Church Churchyard Temple Mosque Synagogue Tower Hall Hill Hills Heights Market Stadium Arena Field Fields
	Quarter Suburb Oasis Basin Delta Marsh Swamp Moor Heath Common Green Cemetery Mine Pass Point Head Headland Lighthouse
	Area Zone Regions Provinces Districts Counties States Territories Wall Gate Base Camp Trail Coastline Shore Cove`)

// miscHeads make a named event, work, law, award or product ("Treaty of
// Paris", "2002 Winter Olympics", "Nobel Prize").
var miscHeads = wordsOf(`War Wars Battle Siege Revolution Rebellion Uprising Crisis Treaty Agreement Accord Accords Pact
	Convention Act Bill Law Charter Constitution Declaration Doctrine Plan Award Awards Prize Medal Cup Trophy Championship
	Championships Tournament Open Grand Prix Olympics Olympiad Games Festival Fair Expo Exhibition Tour Season Series
	Election Elections Referendum Summit Conference Congress Marathon Rally Race League Chart Charts Album Single Song
	Symphony Concerto Sonata Opera Novel Trilogy Saga Manifesto Campaign Project Program Programme Operation Mission
	Movement Massacre Disaster Earthquake Hurricane Storm Flood Fire Plague Pandemic Epidemic Dynasty Era Age Period
	Syndrome Disease Theorem Equation Principle Effect Method Language Languages Calendar Bible Gospel Code Edition
	Register Registry Encyclopedia Dictionary Index`)

// eventNouns can follow a year in an event's name ("2002 Winter
// Olympics", "2010 FIFA World Cup").
var eventNouns = wordsOf(`Olympics Olympiad Games Cup Championship Championships Tournament Open Festival Tour Season Series
	Election Elections Referendum Summit Conference Marathon Rally Expo Exhibition Fair Awards Prix Final Finals
	Playoffs Draft Congress Convention Contest Classic Invitational Grand`)

// placeLeads open place names ("West Vancouver", "New Mexico", "North
// Sea"); a name they open is no person.
var placeLeads = wordsOf(`North South East West Northern Southern Eastern Western Central Upper Lower Greater Little Great
	New Old Mount Mt. Lake Port Fort Saint San Santa Los Las El La Le Sankt Bad Cape Isle Gulf Bay Glen Ben Loch`)

// nameAdjectives are adjectives that may open a capitalised run without
// belonging to the name ("Poor Bob", "Old Marley", "Legendary Dolly
// Parton"): before a person's name they are dropped.
var nameAdjectives = wordsOf(`Poor Old Young Little Dear Good Bad Great Late Legendary Famous Former Honest Brave Merry Happy
	Sweet Kind Wicked Mad Dead Blessed Holy Sainted Beloved Lovely Pretty Fair Noble Wise Jolly
	Gentle Lonely Fellow Wretched Miserable Unhappy Up Down Then Now Here There Yes No Alas Oh Ah Ha Hallo Hello Why
	Well Pooh Bah Nonsense Welcome Goodbye Farewell Thanks Thank Ahoy Hey Hi`)

// givenNames are common given names in English-language text. A name
// that opens with one is a person.
var givenNames = wordsOf(`Aaron Abraham Adam Adrian Agnes Alan Albert Alec Alex Alexander Alexandra Alexis Alfred Alice
	Alicia Alison Allan Allen Alvin Amanda Amber Amelia Amy Andrea Andrew Andy Angela Angelo Ann Anna Anne Annie Anthony
	Antoine Anton Antonio Archie Arnold Arthur Ashley Audrey Barbara Barry Bart Beatrice Ben Benjamin Bernard Bert Beth
	Betty Bill Billy Bob Bobby Bonnie Boris Brad Bradley Brandon Brenda Brian Bruce Bruno Bryan Caleb Calvin Cameron Carl
	Carla Carlos Carmen Carol Caroline Carolyn Catherine Cecil Cecilia Charles Charlie Charlotte Chester Chloe Chris
	Christian Christina Christine Christopher Cindy Claire Clara Clarence Claude Claudia Clifford Clint Colin Connor Craig
	Cynthia Daisy Dale Dan Daniel Danielle Danny Darren David Dean Deborah Debra Denis Dennis Derek Diana Diane Dick Dmitri
	Dolly Dominic Don Donald Donna Doris Dorothy Doug Douglas Duncan Dylan Earl Ed Eddie Edgar Edith Edmund Edna Edward
	Edwin Eileen Elaine Eleanor Elena Eli Elijah Elizabeth Ella Ellen Elliot Elsie Emil Emile Emily Emma Eric Erik Erin
	Ernest Esther Ethan Eugene Eva Evan Eve Evelyn Ezra Felix Florence Frances Francesca Francis Francisco Frank Frankie
	Franz Fred Freddie Frederick Friedrich Gabriel Gail Gareth Gary Gavin Gene George Georges Gerald Gerard Gerhard Gilbert
	Giovanni Giuseppe Gladys Glen Glenn Gloria Gordon Grace Graham Grant Greg Gregory Gustav Guy Hank Hannah Hans Harold
	Harriet Harry Harvey Hazel Heather Heinrich Helen Helena Henri Henrietta Henry Herbert Herman Hilda Howard Hugh Hugo Ian
	Igor Irene Iris Isaac Isabel Isabella Ivan Jack Jackie Jacob Jacqueline Jacques Jake James Jamie Jan Jane Janet Janice
	Jason Jean Jeff Jeffrey Jennifer Jenny Jeremy Jerome Jerry Jesse Jessica Jim Jimmy Joan Joanna Joe Joel Johann Johannes
	John Johnny Jon Jonathan Jordan Jorge Jose José Joseph Josephine Joshua Joyce Juan Judith Judy Julia Julian Julie
	Juliet Justin Karen Karl Kate Katherine Kathleen Kathryn Katie Keith Kelly Ken Kenneth Kevin Kim Kirk Kurt Kyle Larry
	Laura Lauren Lawrence Leah Lee Leo Leon Leonard Leslie Lewis Lilian Lillian Lily Linda Lisa Lloyd Logan Lois Lorenzo
	Lorraine Louis Louisa Louise Lucas Lucia Lucius Lucy Luis Luke Lydia Lynn Mabel Madeleine Maggie Malcolm Manuel Marc
	Marcel Marcus Margaret Maria Marian Marie Marilyn Mario Marion Mark Martha Martin Marvin Mary Matthew Maurice Max
	Maxwell Megan Melissa Michael Michel Michelle Miguel Mike Mildred Miles Milton Miriam Mitchell Molly Monica Morris
	Muriel Nancy Naomi Nathan Nathaniel Neil Nellie Nicholas Nick Nicola Nicolas Nicole Nigel Nikolai Nina Noah Norma
	Norman Oliver Olivia Oscar Otto Owen Pamela Pat Patricia Patrick Paul Paula Pauline Pedro Peggy Penelope Percy Peter
	Phil Philip Phillip Phyllis Pierre Rachel Ralph Randy Ray Raymond Rebecca Reginald Rene René Richard Rick Rita Rob
	Robert Roberto Robin Rodney Roger Roland Ron Ronald Rosa Rose Ross Roy Ruby Rudolf Russell Ruth Ryan Sally Sam
	Samantha Samuel Sandra Sara Sarah Scott Sean Sebastian Sergei Seth Sharon Sheila Shirley Sidney Simon Sophia Sophie
	Stanley Stella Stephan Stephanie Stephen Steve Steven Stuart Susan Suzanne Sydney Sylvia Ted Teresa Terry Theodore
	Thomas Tim Timothy Tina Toby Todd Tom Tommy Tony Tracy Trevor Ulrich Valerie Vanessa Vera Victor Victoria Vincent
	Viola Violet Virginia Vivian Walter Wanda Warren Wayne Wendy Wilhelm Will William Willie Wilson Winston Wolfgang Yvonne
	Zachary Zoe Ahmed Ali Amir Hassan Hussein Ibrahim Khalid Mahmoud Mohamed Mohammed Muhammad Omar Yusuf Hiroshi Kenji
	Takashi Yuki Wei Li Chen Raj Rahul Ravi Sanjay Vijay Olga Natalia Tatiana Svetlana Vladimir Alexei Andrei Mikhail
	Pavel Piotr Jan Jana Lars Sven Nils Erik Ingrid Astrid Anders Bjorn Björn Knut Magnus Fernando Francesco Giulia Luca
	Marco Matteo Pablo Rafael Ramon Ramón Sergio Diego Alejandro Javier Carlo Paolo Stefano Andrea Ebenezer Jeremiah Josiah
	Ezekiel Silas Solomon Tobias Abel Cain Elias Hector Horace Ignatius Julius Marius Rufus Ada Augusta Ethel Emmy Hedwig
	Lise Rosalind Mileva Irène Fritz Ernst Niels Enrico Werner Erwin Albrecht Dietrich Heinz Klaus Jürgen Günter Helmut
	Hermann Gottfried Philipp Gustave Émile Jules Auguste Étienne Guillaume Giacomo Galileo Amedeo Guglielmo Alessandro
	Vittorio Niccolò Søren Tycho Kristian Aleksandr Nikola Lev Yuri Wilbur Orville Linus Alonzo Leó Edmond Gaston`)

// religions are faiths and their adjectives, organisations in the
// Re-DocRED sense.
var religions = wordsOf(`Christian Christians Christianity Catholic Catholics Catholicism Protestant Protestants
	Protestantism Orthodox Anglican Anglicans Anglicanism Lutheran Lutherans Lutheranism Methodist Methodists Methodism
	Baptist Baptists Presbyterian Presbyterians Presbyterianism Evangelical Evangelicals Evangelicalism Calvinist Calvinism
	Mormon Mormons Quaker Quakers Pentecostal Jewish Jews Judaism Muslim Muslims Islam Islamic Sunni Shia Shiite Hindu Hindus
	Hinduism Buddhist Buddhists Buddhism Sikh Sikhs Sikhism Jain Jainism Taoism Taoist Shinto Zoroastrian Zoroastrianism`)

// partyAdjectives name a political party when a party's noun follows
// ("the Democratic nomination", "a Labour candidate").
var partyAdjectives = wordsOf(`Democratic Republican Labour Labor Conservative Liberal Socialist Communist`)

// partyNouns follow a party's name in politics.
var partyNouns = wordsOf(`nomination nominee nominees primary primaries candidate candidates caucus ticket senator
	congressman congresswoman representative governor leader leadership member members government administration`)

// clubPrefixes are the initials that open sports clubs' names ("FC",
// football club; "FK", fudbalski klub; "SV", Sportverein).
var clubPrefixes = wordsOf(`FC FK AFC CF SC AC SK IF BK KV NK HNK SV VfB VfL TSV RC CD SD UD SE GD KF`)

// placeFirst open place names of two or more words ("Mount Everest",
// "Lake Tahoe", "Fort Worth").
var placeFirst = wordsOf(`Mount Mt. Lake Fort Port Cape Isle Gulf Bay Glen Loch Ben River Piazza Via Rue Avenida Calle Rio Río
	Monte Lago Isla Sierra Cerro Punta Playa Plaza Pont Col Interstate Highway Autobahn Autoroute`)

// commonAcronyms are abbreviations of common nouns, no organisations
// ("TV", "CEO", "DVD", "PhD").
var commonAcronyms = wordsOf(`TV DVD CD CDs DVDs LP EP LPs EPs MW GW KW CEO CEOs CFO COO CTO MBA BA MA BSc MSc PhD Ph.D
	Ph.D. HMS USS RMS SS AM FM GPS PC PCs ID OK DJ MC VIP AIDS HIV DNA RNA GDP IT AI HQ UFO NGO PR BC AD BCE CE PM MP MPs
	TBA ASAP FAQ URL HTML PDF USB LCD LED CPU RAM ROM UK-based U-boat SUV SUVs ATM EU-wide OBE MBE CBE KBE RN RAF`)

// religionsMulti are faiths named by two words.
var religionsMulti = linesOf(`Roman Catholic|Roman Catholics|Eastern Orthodox|Greek Orthodox|Russian Orthodox|Serbian
	Orthodox|Coptic Orthodox|Church of England|Latter Day Saints`)

// holyPersons are religious figures named alone.
var holyPersons = wordsOf(`God Jesus Christ Allah Buddha Muhammad Mohammed Moses Abraham Isaac Jacob Noah Adam Eve Mary Joseph
	Yahweh Jehovah Krishna Vishnu Shiva Zeus Apollo Odin Thor`)

// partyWords name political groups by their members ("Democrat",
// "Whigs"): organisations.
var partyWords = wordsOf(`Democrat Democrats Republican Republicans Socialist Socialists Communist Communists Liberal
	Liberals Conservative Conservatives Tory Tories Whig Whigs Labour Greens Federalist Federalists Nazi Nazis Bolshevik
	Bolsheviks Jacobin Jacobins Unionist Unionists Nationalist Nationalists`)

// countries are sovereign states and a few common alternative names.
var countries = linesOf(`Afghanistan|Albania|Algeria|Andorra|Angola|Antigua and Barbuda|Argentina|Armenia|Australia|
	Austria|Azerbaijan|Bahamas|Bahrain|Bangladesh|Barbados|Belarus|Belgium|Belize|Benin|Bhutan|Bolivia|Bosnia and
	Herzegovina|Bosnia|Herzegovina|Botswana|Brazil|Brunei|Bulgaria|Burkina Faso|Burundi|Cambodia|Cameroon|Canada|Cape
	Verde|Central African Republic|Chad|Chile|China|Colombia|Comoros|Congo|Costa Rica|Croatia|Cuba|Cyprus|Czech
	Republic|Czechia|Denmark|Djibouti|Dominica|Dominican Republic|East Timor|Ecuador|Egypt|El Salvador|Equatorial
	Guinea|Eritrea|Estonia|Eswatini|Ethiopia|Fiji|Finland|France|Gabon|Gambia|Georgia|Germany|Ghana|Greece|Grenada|
	Guatemala|Guinea|Guinea-Bissau|Guyana|Haiti|Honduras|Hungary|Iceland|India|Indonesia|Iran|Iraq|Ireland|Israel|Italy|
	Ivory Coast|Jamaica|Japan|Jordan|Kazakhstan|Kenya|Kiribati|Kosovo|Kuwait|Kyrgyzstan|Laos|Latvia|Lebanon|Lesotho|
	Liberia|Libya|Liechtenstein|Lithuania|Luxembourg|Madagascar|Malawi|Malaysia|Maldives|Mali|Malta|Marshall Islands|
	Mauritania|Mauritius|Mexico|Micronesia|Moldova|Monaco|Mongolia|Montenegro|Morocco|Mozambique|Myanmar|Burma|Namibia|
	Nauru|Nepal|Netherlands|Holland|New Zealand|Nicaragua|Niger|Nigeria|North Korea|North Macedonia|Macedonia|Norway|Oman|
	Pakistan|Palau|Palestine|Panama|Papua New Guinea|Paraguay|Peru|Philippines|Poland|Portugal|Qatar|Romania|Russia|
	Rwanda|Saint Lucia|Samoa|San Marino|Saudi Arabia|Senegal|Serbia|Seychelles|Sierra Leone|Singapore|Slovakia|Slovenia|
	Solomon Islands|Somalia|South Africa|South Korea|Korea|South Sudan|Spain|Sri Lanka|Sudan|Suriname|Sweden|Switzerland|
	Syria|Taiwan|Tajikistan|Tanzania|Thailand|Togo|Tonga|Trinidad and Tobago|Tunisia|Turkey|Turkmenistan|Tuvalu|Uganda|
	Ukraine|United Arab Emirates|United Kingdom|United States|United States of America|America|Uruguay|Uzbekistan|Vanuatu|
	Vatican City|Venezuela|Vietnam|Yemen|Zambia|Zimbabwe|England|Scotland|Wales|Northern Ireland|Great Britain|Britain|
	Soviet Union|Russian Federation|English Channel|Yugoslavia|Czechoslovakia|Prussia|Persia|Ottoman Empire|Roman Empire|Holy Roman Empire|
	Byzantine Empire|Austria-Hungary|East Germany|West Germany|Siam|Ceylon|Rhodesia|Zaire|Hong Kong|Macau|Puerto Rico|
	Greenland|Tibet|Catalonia|Basque Country|Bavaria|Flanders|Wallonia|Kurdistan|Palestine|Gaza|West Bank|Crimea`)

// countryCodes are abbreviations that name places, not organisations.
var countryCodes = wordsOf(`US U.S. USA U.S.A. UK U.K. UAE U.A.E. USSR PRC ROC DPRK GDR FRG DRC NYC LA DC D.C. SSR`)

// regions are continents, oceans, US states, Canadian provinces,
// Australian states and other large regions.
var regions = linesOf(`Africa|Asia|Europe|North America|South America|Latin America|Central America|Antarctica|Oceania|
	Americas|Levant|Maghreb|Sahel|Iberia|Benelux|Mesoamerica|Polynesia|Melanesia|Indochina|Horn of Africa|
	Australasia|Eurasia|Middle East|Near East|Far East|Scandinavia|Balkans|Caribbean|Mediterranean|Siberia|Caucasus|
	Sahara|Arctic|Antarctic|Atlantic|Pacific|Indian Ocean|Atlantic Ocean|Pacific Ocean|Arctic Ocean|Baltic|Baltic Sea|
	North Sea|Black Sea|Red Sea|Caspian Sea|Persian Gulf|Alps|Andes|Himalayas|Rocky Mountains|Amazon|Nile|Danube|Rhine|
	Thames|Mississippi|Yangtze|Ganges|Volga|Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|
	Florida|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|
	Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North
	Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|
	Virginia|Washington|West Virginia|Wisconsin|Wyoming|Ontario|Quebec|Québec|British Columbia|Alberta|Manitoba|
	Saskatchewan|Nova Scotia|New Brunswick|Newfoundland|Yukon|Nunavut|Queensland|New South Wales|Victoria|Tasmania|
	Western Australia|South Australia|Northern Territory|Transylvania|Silesia|Lombardy|Tuscany|Sicily|Sardinia|
	Corsica|Normandy|Brittany|Provence|Andalusia|Galicia|Saxony|Bohemia|Moravia|Lapland|Yorkshire|Lancashire|Kent|Essex|
	Sussex|Cornwall|Devon|Surrey|Midlands|Punjab|Bengal|Kashmir|Manchuria|Mongolia|Anatolia|Mesopotamia|Arabia|Patagonia|
	Amazonia|Kurdistan|Lincolnshire|Oxfordshire|Hampshire|Norfolk|Suffolk|Middlesex|Ulster|Munster|Leinster|Connacht`)

// homes are large cities, capitals and the regions below a country,
// grouped by the country they lie in; a group's key lists the names the
// country goes by ("United Kingdom/England": a chunk that names England
// or the United Kingdom names London's country).
var homes = homesOf(map[string]string{
	"United Kingdom/England/Britain/Great Britain": `London|Manchester|Liverpool|Birmingham|Leeds|Bristol|Oxford|
		Cambridge|Yorkshire|Lancashire|Kent|Essex|Sussex|Cornwall|Devon|Surrey|Midlands|Lincolnshire|Oxfordshire|
		Hampshire|Norfolk|Suffolk|Middlesex`,
	"United Kingdom/Scotland/Britain/Great Britain":         `Edinburgh|Glasgow`,
	"United Kingdom/Wales/Britain/Great Britain":            `Cardiff`,
	"United Kingdom/Northern Ireland/Britain/Great Britain": `Belfast`,
	"Ireland": `Dublin|Munster|Leinster|Connacht`,
	"France":  `Paris|Marseille|Lyon|Toulouse|Nice|Bordeaux|Strasbourg|Normandy|Brittany|Provence|Corsica`,
	"Germany/West Germany/East Germany/Prussia": `Berlin|Munich|Hamburg|Frankfurt|Cologne|Stuttgart|Dresden|Leipzig|
		Bonn|Saxony|Bavaria`,
	"Spain":                                  `Madrid|Barcelona|Valencia|Seville|Andalusia|Galicia|Catalonia`,
	"Italy":                                  `Rome|Milan|Naples|Turin|Florence|Venice|Genoa|Bologna|Palermo|Lombardy|Tuscany|Sicily|Sardinia`,
	"Austria":                                `Vienna`,
	"Czech Republic/Czechia/Czechoslovakia":  `Prague|Bohemia|Moravia`,
	"Hungary":                                `Budapest`,
	"Poland":                                 `Warsaw|Krakow|Kraków|Gdansk|Gdańsk|Silesia`,
	"Russia/Soviet Union/Russian Federation": `Moscow|Saint Petersburg|St. Petersburg|Siberia`,
	"Ukraine/Soviet Union":                   `Kiev|Kyiv`,
	"Belarus/Soviet Union":                   `Minsk`,
	"Sweden":                                 `Stockholm|Gothenburg`,
	"Norway":                                 `Oslo|Bergen`,
	"Denmark":                                `Copenhagen`,
	"Finland":                                `Helsinki|Lapland`,
	"Iceland":                                `Reykjavik`,
	"Netherlands/Holland":                    `Amsterdam|Rotterdam|The Hague`,
	"Belgium":                                `Brussels|Antwerp|Flanders|Wallonia`,
	"Luxembourg":                             `Luxembourg`,
	"Switzerland":                            `Zurich|Zürich|Geneva|Bern|Basel`,
	"Portugal":                               `Lisbon|Porto`,
	"Greece":                                 `Athens|Thessaloniki`,
	"Turkey/Ottoman Empire":                  `Istanbul|Ankara|Anatolia`,
	"Romania":                                `Bucharest|Transylvania`,
	"Bulgaria":                               `Sofia`,
	"Serbia/Yugoslavia":                      `Belgrade`,
	"Croatia/Yugoslavia":                     `Zagreb`,
	"Slovenia/Yugoslavia":                    `Ljubljana`,
	"Bosnia and Herzegovina/Bosnia/Yugoslavia": `Sarajevo`,
	"Slovakia/Czechoslovakia":                  `Bratislava`,
	"Estonia":                                  `Tallinn`,
	"Latvia":                                   `Riga`,
	"Lithuania":                                `Vilnius`,
	"United States/United States of America/America": `New York City|Los Angeles|Chicago|Houston|Phoenix|
		Philadelphia|San Antonio|San Diego|Dallas|San Jose|Austin|Detroit|Boston|Seattle|Denver|Baltimore|Atlanta|
		Miami|Pittsburgh|Cleveland|Cincinnati|St. Louis|Minneapolis|New Orleans|Nashville|Memphis|Las Vegas|Reno|
		San Francisco|Sacramento|Oakland|Honolulu|Salt Lake City|Kansas City|Milwaukee|Indianapolis|Buffalo|Columbus|Portland|
		Hollywood|Brooklyn|Manhattan|Queens|Bronx|Harlem|Alabama|Alaska|Arizona|Arkansas|California|Colorado|
		Connecticut|Delaware|Florida|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|
		Massachusetts|Michigan|Minnesota|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|
		New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|
		South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|West Virginia|Wisconsin|Wyoming`,
	"Canada": `Toronto|Montreal|Montréal|Vancouver|Ottawa|Calgary|Edmonton|Winnipeg|Quebec City|Halifax|Ontario|
		Quebec|Québec|British Columbia|Alberta|Manitoba|Saskatchewan|Nova Scotia|New Brunswick|Newfoundland|Yukon|
		Nunavut`,
	"Mexico":               `Mexico City|Guadalajara`,
	"Cuba":                 `Havana`,
	"Colombia":             `Bogotá|Bogota`,
	"Venezuela":            `Caracas`,
	"Peru":                 `Lima`,
	"Ecuador":              `Quito`,
	"Argentina":            `Buenos Aires|Patagonia`,
	"Uruguay":              `Montevideo`,
	"Paraguay":             `Asunción`,
	"Bolivia":              `La Paz`,
	"Brazil":               `Rio de Janeiro|São Paulo|Sao Paulo|Brasília|Brasilia|Recife|Salvador`,
	"Japan":                `Tokyo|Osaka|Kyoto|Yokohama|Nagoya`,
	"South Korea/Korea":    `Seoul|Busan`,
	"North Korea/Korea":    `Pyongyang`,
	"China":                `Beijing|Peking|Shanghai|Guangzhou|Shenzhen|Nanjing|Wuhan|Chongqing|Tianjin|Hangzhou|Xi'an|Manchuria`,
	"Taiwan":               `Taipei`,
	"Philippines":          `Manila`,
	"Indonesia":            `Jakarta`,
	"Thailand/Siam":        `Bangkok`,
	"Vietnam":              `Hanoi|Ho Chi Minh City|Saigon`,
	"Cambodia":             `Phnom Penh`,
	"Malaysia":             `Kuala Lumpur`,
	"Myanmar/Burma":        `Yangon|Rangoon`,
	"Bangladesh":           `Dhaka`,
	"India":                `Kolkata|Calcutta|Mumbai|Bombay|Delhi|New Delhi|Chennai|Madras|Bangalore|Hyderabad|Bengal`,
	"Pakistan":             `Karachi|Lahore|Islamabad`,
	"Afghanistan":          `Kabul`,
	"Iran/Persia":          `Tehran`,
	"Iraq":                 `Baghdad`,
	"Syria":                `Damascus`,
	"Lebanon":              `Beirut`,
	"Israel":               `Tel Aviv`,
	"Jordan":               `Amman`,
	"Saudi Arabia":         `Riyadh|Mecca|Medina`,
	"United Arab Emirates": `Dubai|Abu Dhabi`,
	"Qatar":                `Doha`,
	"Kuwait":               `Kuwait City`,
	"Oman":                 `Muscat`,
	"Egypt":                `Cairo|Alexandria`,
	"Libya":                `Tripoli`,
	"Tunisia":              `Tunis`,
	"Algeria":              `Algiers`,
	"Morocco":              `Casablanca|Rabat|Marrakesh`,
	"Nigeria":              `Lagos|Abuja`,
	"Ghana":                `Accra`,
	"Senegal":              `Dakar`,
	"Kenya":                `Nairobi`,
	"Ethiopia":             `Addis Ababa`,
	"Sudan":                `Khartoum`,
	"Uganda":               `Kampala`,
	"Tanzania":             `Dar es Salaam`,
	"Congo":                `Kinshasa`,
	// Cities that are states of their own, or whose name more than one
	// country's city bears, lie in no one country here.
	"":                  `Hong Kong|Singapore|Jerusalem|Kingston|Santiago`,
	"Angola":            `Luanda`,
	"South Africa":      `Johannesburg|Cape Town|Durban|Pretoria`,
	"Zimbabwe/Rhodesia": `Harare`,
	"Zambia":            `Lusaka`,
	"Australia": `Sydney|Melbourne|Brisbane|Perth|Adelaide|Canberra|Queensland|New South Wales|Victoria|Tasmania|
		Western Australia|South Australia|Northern Territory`,
	"New Zealand": `Auckland|Wellington|Christchurch`,
})

// continentOf maps each country to its continent, and a continent's
// names and adjectives to it ("European" -> Europe, "the Americas" to
// both of theirs).
var continentOf = func() map[string][]string {
	m := map[string][]string{}
	for continent, members := range map[string]string{
		"Europe": `Albania|Andorra|Austria|Belarus|Belgium|Bosnia and Herzegovina|Bosnia|Herzegovina|Bulgaria|Croatia|
			Cyprus|Czech Republic|Czechia|Denmark|Estonia|Finland|France|Germany|Greece|Hungary|Iceland|Ireland|Italy|
			Kosovo|Latvia|Liechtenstein|Lithuania|Luxembourg|Malta|Moldova|Monaco|Montenegro|Netherlands|Holland|
			North Macedonia|Macedonia|Norway|Poland|Portugal|Romania|Russia|San Marino|Serbia|Slovakia|Slovenia|Spain|
			Sweden|Switzerland|Ukraine|United Kingdom|England|Scotland|Wales|Northern Ireland|Great Britain|Britain|
			Vatican City|Soviet Union|Russian Federation|Yugoslavia|Czechoslovakia|Prussia|Austria-Hungary|
			East Germany|West Germany|Holy Roman Empire|Scandinavia|Balkans|European|Europeans`,
		"Asia": `Afghanistan|Armenia|Azerbaijan|Bahrain|Bangladesh|Bhutan|Brunei|Cambodia|China|Georgia|India|
			Indonesia|Iran|Iraq|Israel|Japan|Jordan|Kazakhstan|Kuwait|Kyrgyzstan|Laos|Lebanon|Malaysia|Maldives|Mongolia|
			Myanmar|Burma|Nepal|North Korea|Oman|Pakistan|Palestine|Philippines|Qatar|Saudi Arabia|Singapore|South Korea|
			Korea|Sri Lanka|Syria|Taiwan|Tajikistan|Thailand|Turkey|Turkmenistan|United Arab Emirates|Uzbekistan|Vietnam|
			Yemen|East Timor|Persia|Siam|Ceylon|Hong Kong|Macau|Tibet|Asian|Asians`,
		"Africa": `Algeria|Angola|Benin|Botswana|Burkina Faso|Burundi|Cameroon|Cape Verde|Central African Republic|Chad|
			Comoros|Congo|Djibouti|Egypt|Equatorial Guinea|Eritrea|Eswatini|Ethiopia|Gabon|Gambia|Ghana|Guinea|
			Guinea-Bissau|Ivory Coast|Kenya|Lesotho|Liberia|Libya|Madagascar|Malawi|Mali|Mauritania|Mauritius|Morocco|
			Mozambique|Namibia|Niger|Nigeria|Rwanda|Senegal|Seychelles|Sierra Leone|Somalia|South Africa|South Sudan|
			Sudan|Tanzania|Togo|Tunisia|Uganda|Zambia|Zimbabwe|Rhodesia|Zaire|African|Africans`,
		"North America": `Antigua and Barbuda|Bahamas|Barbados|Belize|Canada|Costa Rica|Cuba|Dominica|Dominican Republic|
			El Salvador|Grenada|Guatemala|Haiti|Honduras|Jamaica|Mexico|Nicaragua|Panama|Saint Lucia|
			Trinidad and Tobago|United States|United States of America|America|Greenland|Puerto Rico|North American|
			Americas`,
		"South America": `Argentina|Bolivia|Brazil|Chile|Colombia|Ecuador|Guyana|Paraguay|Peru|Suriname|Uruguay|
			Venezuela|South American|Americas`,
		"Oceania": `Australia|Fiji|Kiribati|Marshall Islands|Micronesia|Nauru|New Zealand|Palau|Papua New Guinea|Samoa|
			Solomon Islands|Tonga|Tuvalu|Vanuatu|Australasia`,
		"Antarctica": `Antarctic`,
	} {
		m[continent] = append(m[continent], continent)
		for name := range linesOf(members) {
			m[name] = append(m[name], continent)
		}
	}
	return m
}()

// cities are large cities and capitals: the places of homes that are
// no region.
var cities = func() map[string]bool {
	m := map[string]bool{}
	for name := range homes {
		if !regions[name] {
			m[name] = true
		}
	}
	return m
}()

// homesOf reads homes: each place's countries, in the order its group
// names them.
func homesOf(groups map[string]string) map[string][]string {
	m := map[string][]string{}
	for countries, places := range groups {
		var cs []string
		if countries != "" {
			cs = strings.Split(countries, "/")
		}
		for place := range linesOf(places) {
			m[place] = cs
		}
	}
	return m
}

// demonyms are nationality and regional adjectives ("German", "Canadian")
// and plural peoples; Re-DocRED marks them as places.
var demonyms = wordsOf(`Afghan Albanian Algerian American Americans Andorran Angolan Argentine Argentinian Armenian
	Australian Australians Austrian Azerbaijani Bahraini Bangladeshi Belarusian Belgian Bolivian Bosnian Brazilian
	British Briton Britons Bulgarian Burmese Cambodian Cameroonian Canadian Canadians Chilean Chinese Colombian Congolese
	Croatian Cuban Cypriot Czech Danish Dane Danes Dutch Dutchman Ecuadorian Egyptian Egyptians English Englishman
	Englishmen Eritrean Estonian Ethiopian Fijian Filipino Finnish Finn Finns French Frenchman Georgian German Germans
	Ghanaian Greek Greeks Guatemalan Haitian Honduran Hungarian Icelandic Indian Indians Indonesian Iranian Iraqi Irish
	Irishman Israeli Italian Italians Jamaican Japanese Jordanian Kazakh Kenyan Korean Koreans Kosovar Kuwaiti Kyrgyz
	Lao Latvian Lebanese Liberian Libyan Lithuanian Luxembourgish Macedonian Malagasy Malaysian Maltese Mexican Mexicans
	Moldovan Mongolian Montenegrin Moroccan Mozambican Namibian Nepali Nepalese Nicaraguan Nigerian Norwegian Norwegians
	Omani Pakistani Palestinian Panamanian Paraguayan Persian Peruvian Polish Pole Poles Portuguese Qatari Romanian
	Russian Russians Rwandan Saudi Scottish Scot Scots Scotsman Senegalese Serbian Serb Serbs Singaporean Slovak Slovakian
	Slovenian Somali South-African Spanish Spaniard Spaniards Sri-Lankan Sudanese Swedish Swede Swedes Swiss Syrian
	Taiwanese Tajik Tanzanian Thai Tibetan Tunisian Turkish Turk Turks Turkmen Ugandan Ukrainian Uruguayan Uzbek
	Venezuelan Vietnamese Welsh Welshman Yemeni Zambian Zimbabwean Soviet Yugoslav Prussian Bavarian Roman Romans
	Byzantine Ottoman Hellenic Latin Anglo-Saxon Celtic Nordic Scandinavian Balkan Arab Arabs Arabic African Africans Asian
	Asians European Europeans Caribbean Latino Hispanic Slavic Californian Texan Floridian Minnesotan Bostonian
	Londoner Parisian Venetian Florentine Neapolitan Sicilian Catalan Basque Flemish Walloon Corsican Cornish Kurdish
	Basque Quebecois Hawaiian Alaskan Siberian Caucasian Iberian Hindustani Punjabi Bengali Tamil Sindhi Gujarati`)

// multiDemonyms are nationality adjectives of more than one word.
var multiDemonyms = linesOf(`South Korean|North Korean|South African|New Zealander|Sri Lankan|Saudi Arabian|Puerto Rican|
	Costa Rican|Latin American|North American|South American|Central American|Native American|Native Americans|
	African American|African Americans|Italian American|Irish American|Anglo-American|Greek Cypriot|Turkish Cypriot`)

// monthNames are month names (and "May" is no person).
var monthWords = wordsOf(`January February March April May June July August September October November December
	Jan. Feb. Mar. Apr. Jun. Jul. Aug. Sep. Sept. Oct. Nov. Dec.`)

// weekdays name days of the week.
var weekdays = wordsOf(`Monday Tuesday Wednesday Thursday Friday Saturday Sunday`)

// abbreviations end in a period that does not end a sentence.
var abbreviations = wordsOf(`Mr. Mrs. Ms. Dr. Prof. St. Mt. Ft. Jr. Sr. Inc. Co. Corp. Ltd. Bros. No. Nos. Vol. vol. pp.
	p. Gen. Col. Capt. Lt. Sgt. Maj. Adm. Cmdr. Rev. Hon. Gov. Sen. Rep. Pres. Mme. Mlle. Messrs. Jan. Feb. Mar. Apr.
	Jun. Jul. Aug. Sep. Sept. Oct. Nov. Dec. vs. etc. e.g. i.e. cf. approx. ca. c. Ave. Rd. Blvd. Dept. Univ. Assn. Est.
	Fig. fig. op. Op. Ch. ch.`)

// nameSuffixes end a person's name ("Jr.", "III").
var nameSuffixes = wordsOf(`Jr. Jr Sr. Sr II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI`)

// headCat types a name by its head word (its last word, or the word
// before "of"). Organisation heads win over place heads, event and work
// heads over both, except where listed below.
var headCat = func() map[string]category {
	m := map[string]category{}
	for w := range placeHeads {
		m[w] = catLocation
	}
	for w := range orgHeads {
		m[w] = catOrg
	}
	for w := range miscHeads {
		m[w] = catMisc
	}
	// Buildings that house an institution are places, as Wikidata-based
	// gold types them ("the Smart Museum of Art", "Gallery 400").
	for _, w := range strings.Fields("Hall Abbey Cathedral Chapel Temple Mosque Synagogue Airport Station Tower Diocese " +
		"Archdiocese Parish Channel Stadium Arena Museum Museo Musée Museu Gallery Galleries Theatre Theater Teatro " +
		"Théâtre Teatr Restaurant Building Monastery") {
		m[w] = catLocation
	}
	for _, w := range strings.Fields("Church Court Congress Order Movement Federation Confederation League Party Department " +
		"Mission Press Times") {
		m[w] = catOrg
	}
	return m
}()

// gazetteerHas reports whether a name is in the gazetteer.
func gazetteerHas(name string) bool {
	_, ok := gazetteer(name)
	return ok
}

// Noun classes: a name that "is a ..." one of these ("Roketsan is a
// Turkish weapons manufacturer", "X is a village in ...") or that one of
// them introduces ("the band Naked Eyes", "singer Dolly Parton") has its
// category.
var (
	orgNouns = wordsOf(`company companies corporation manufacturer manufacturers firm business brand label publisher
		developer studio service band outfit outfits group duo trio quartet quintet orchestra choir ensemble club team franchise party
		organization organisation agency institution university college school academy newspaper magazine
		channel network broadcaster retailer chain airline bank union association society league federation council
		committee charity foundation movement militia army navy regiment unit division subsidiary conglomerate
		operator carrier contractor distributor supplier producer-distributor insurer consultancy website-operator
		dynasty government ministry department court parliament legislature tribe people`)
	personNouns = wordsOf(`racer singer songwriter singer-songwriter actor actress politician player footballer author
		writer novelist poet painter artist musician composer director filmmaker journalist businessman
		businesswoman entrepreneur scientist physicist chemist biologist mathematician engineer architect lawyer
		judge soldier officer priest bishop saint king queen emperor empress prince princess president minister
		monarch philosopher historian professor teacher coach manager athlete swimmer runner sprinter cyclist
		skier skater boxer wrestler guitarist bassist drummer pianist violinist rapper dancer model comedian
		presenter economist diplomat activist explorer inventor designer photographer editor critic sculptor
		goalkeeper striker midfielder defender forward pitcher quarterback chef surgeon physician nurse admiral
		commander pilot astronaut cardinal pope character protagonist daughter son wife husband brother sister
		father mother founder co-founder ruler pharaoh sultan chieftain emir noblewoman nobleman aristocrat
		courtier jurist statesman general lieutenant colonel captain sergeant bandleader conductor producer
		screenwriter playwright translator illustrator cartoonist animator broadcaster archaeologist professor
		theologian missionary monk nun rabbi imam scholar linguist psychologist sociologist anthropologist
		astronomer geologist botanist zoologist physician pharmacist veterinarian investor banker publisher
		socialite heiress mistress consort regent viceroy governor senator congressman mayor councillor
		lawmaker legislator prosecutor detective spy agent criminal murderer outlaw pirate warrior knight
		ballerina vocalist frontman lyricist sportsman sportswoman jockey golfer tennis-player cricketer
		batsman bowler rugby-player referee umpire mountaineer sailor navigator explorer martyr prophet deity god
		goddess`)
	placeNouns = wordsOf(`village town city municipality commune county district region province state country island
		river lake mountain peak glacier valley neighborhood neighbourhood suburb settlement hamlet capital port
		territory borough prefecture canton oblast raion voivodeship gmina park forest desert sea bay street road
		highway motorway freeway route bridge castle palace station airport stadium arena cemetery dam reservoir
		reserve monument site square locality townland parish census-designated community area archipelago
		peninsula strait canal creek stream waterfall volcano plateau island-nation nation republic kingdom
		empire principality emirate sultanate duchy colony quarter ward constituency`)
	miscNouns = wordsOf(`film movie album song single novel book series game opera play musical poem painting
		sculpture show sitcom programme program episode award prize treaty war battle election festival
		tournament championship event language dialect species genus disease ship aircraft car software
		website tour concert campaign law act agreement name surname documentary soundtrack compilation EP
		anthology comic manga anime franchise-film sequel remake video-game title trophy medal cup race
		competition mission operation project plan project-name satellite spacecraft rocket missile locomotive
		brand-name product device console phone smartphone magazine-issue hymn anthem ballad track record`)
)

// nounClass returns the category of a class noun.
func nounClass(w string) (category, bool) {
	switch {
	case personNouns[w]:
		return catPerson, true
	case placeNouns[w]:
		return catLocation, true
	case orgNouns[w]:
		return catOrg, true
	case miscNouns[w]:
		return catMisc, true
	}
	return catMisc, false
}

// gazetteer types a whole name from the lists above.
func gazetteer(name string) (category, bool) {
	switch {
	case countries[name], regions[name], cities[name], countryCodes[name], demonyms[name], multiDemonyms[name]:
		return catLocation, true
	case religions[name], religionsMulti[name], partyWords[name], institutions[name]:
		return catOrg, true
	case holyPersons[name]:
		return catPerson, true
	}
	return catMisc, false
}

// isGivenName reports a given name, its accents aside ("Leó" is "Leo",
// "José" is "Jose").
func isGivenName(w string) bool {
	if givenNames[w] {
		return true
	}
	// "Jean-Baptiste", "Anne-Marie": a given name and a capitalised
	// word joined by a hyphen.
	if first, rest, ok := strings.Cut(w, "-"); ok && isCap(rest) && isGivenName(first) {
		return true
	}
	folded := foldAccents(w)
	return folded != w && givenNames[folded]
}

// foldAccents drops a word's combining marks: "Szilárd" is "Szilard".
func foldAccents(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// demonymCountry maps a nationality adjective (or people) to its
// country's name, so "Canadian" and "Canada" in one text are one country.
// Regional adjectives ("African", "Texan", "Catalan") are not in it: they
// name no country.
var demonymCountry = pairsOf(`Afghan=Afghanistan Albanian=Albania Algerian=Algeria American=United_States
	Americans=United_States Andorran=Andorra Angolan=Angola Argentine=Argentina Argentinian=Argentina
	Armenian=Armenia Australian=Australia Australians=Australia Austrian=Austria Azerbaijani=Azerbaijan
	Bahraini=Bahrain Bangladeshi=Bangladesh Belarusian=Belarus Belgian=Belgium Bolivian=Bolivia Bosnian=Bosnia
	Brazilian=Brazil British=United_Kingdom Briton=United_Kingdom Britons=United_Kingdom Bulgarian=Bulgaria
	Burmese=Myanmar Cambodian=Cambodia Cameroonian=Cameroon Canadian=Canada Canadians=Canada Chilean=Chile
	Chinese=China Colombian=Colombia Congolese=Congo Croatian=Croatia Cuban=Cuba Cypriot=Cyprus Czech=Czech_Republic
	Danish=Denmark Dane=Denmark Danes=Denmark Dutch=Netherlands Dutchman=Netherlands Ecuadorian=Ecuador
	Egyptian=Egypt Egyptians=Egypt English=England Englishman=England Englishmen=England Eritrean=Eritrea
	Estonian=Estonia Ethiopian=Ethiopia Fijian=Fiji Filipino=Philippines Finnish=Finland Finn=Finland Finns=Finland
	French=France Frenchman=France Georgian=Georgia German=Germany Germans=Germany Ghanaian=Ghana Greek=Greece
	Greeks=Greece Guatemalan=Guatemala Haitian=Haiti Honduran=Honduras Hungarian=Hungary Icelandic=Iceland
	Indian=India Indians=India Indonesian=Indonesia Iranian=Iran Iraqi=Iraq Irish=Ireland Irishman=Ireland
	Israeli=Israel Italian=Italy Italians=Italy Jamaican=Jamaica Japanese=Japan Jordanian=Jordan Kazakh=Kazakhstan
	Kenyan=Kenya Korean=Korea Koreans=Korea Kosovar=Kosovo Kuwaiti=Kuwait Kyrgyz=Kyrgyzstan Lao=Laos
	Latvian=Latvia Lebanese=Lebanon Liberian=Liberia Libyan=Libya Lithuanian=Lithuania Luxembourgish=Luxembourg
	Macedonian=Macedonia Malagasy=Madagascar Malaysian=Malaysia Maltese=Malta Mexican=Mexico Mexicans=Mexico
	Moldovan=Moldova Mongolian=Mongolia Montenegrin=Montenegro Moroccan=Morocco Mozambican=Mozambique
	Namibian=Namibia Nepali=Nepal Nepalese=Nepal Nicaraguan=Nicaragua Nigerian=Nigeria Norwegian=Norway
	Norwegians=Norway Omani=Oman Pakistani=Pakistan Palestinian=Palestine Panamanian=Panama Paraguayan=Paraguay
	Persian=Persia Peruvian=Peru Polish=Poland Pole=Poland Poles=Poland Portuguese=Portugal Qatari=Qatar
	Romanian=Romania Russian=Russia Russians=Russia Rwandan=Rwanda Saudi=Saudi_Arabia Scottish=Scotland
	Scot=Scotland Scots=Scotland Scotsman=Scotland Senegalese=Senegal Serbian=Serbia Serb=Serbia Serbs=Serbia
	Singaporean=Singapore Slovak=Slovakia Slovakian=Slovakia Slovenian=Slovenia Somali=Somalia
	South-African=South_Africa Spanish=Spain Spaniard=Spain Spaniards=Spain Sri-Lankan=Sri_Lanka Sudanese=Sudan
	Swedish=Sweden Swede=Sweden Swedes=Sweden Swiss=Switzerland Syrian=Syria Taiwanese=Taiwan Tajik=Tajikistan
	Tanzanian=Tanzania Thai=Thailand Tibetan=Tibet Tunisian=Tunisia Turkish=Turkey Turk=Turkey Turks=Turkey
	Turkmen=Turkmenistan Ugandan=Uganda Ukrainian=Ukraine Uruguayan=Uruguay Uzbek=Uzbekistan Venezuelan=Venezuela
	Vietnamese=Vietnam Welsh=Wales Welshman=Wales Yemeni=Yemen Zambian=Zambia Zimbabwean=Zimbabwe
	Soviet=Soviet_Union Yugoslav=Yugoslavia Prussian=Prussia South_Korean=South_Korea North_Korean=North_Korea
	South_African=South_Africa New_Zealander=New_Zealand Sri_Lankan=Sri_Lanka Saudi_Arabian=Saudi_Arabia
	Puerto_Rican=Puerto_Rico Costa_Rican=Costa_Rica Greek_Cypriot=Cyprus Turkish_Cypriot=Cyprus`)

// countryAliases name one country by another of its names, so "the U.S."
// and "the United States" in one text are one country.
var countryAliases = pairsOf(`US=United_States U.S.=United_States USA=United_States U.S.A.=United_States
	America=United_States United_States_of_America=United_States UK=United_Kingdom U.K.=United_Kingdom
	Britain=United_Kingdom Great_Britain=United_Kingdom USSR=Soviet_Union PRC=China
	People's_Republic_of_China=China Russian_Federation=Russia Holland=Netherlands`)

// wideRegions are continents, oceans, seas, mountain ranges, rivers and
// regions that cross borders: they lie in no one country.
var wideRegions = linesOf(`Africa|Asia|Europe|North America|South America|Latin America|Central America|Antarctica|
	Americas|Levant|Maghreb|Sahel|Iberia|Benelux|Mesoamerica|Polynesia|Melanesia|Indochina|Horn of Africa|
	Oceania|Australasia|Eurasia|Middle East|Near East|Far East|Scandinavia|Balkans|Caribbean|Mediterranean|Caucasus|
	Sahara|Arctic|Antarctic|Atlantic|Pacific|Indian Ocean|Atlantic Ocean|Pacific Ocean|Arctic Ocean|Baltic|Baltic Sea|
	North Sea|Black Sea|Red Sea|Caspian Sea|Persian Gulf|Alps|Andes|Himalayas|Amazon|Nile|Danube|Rhine|Western Europe|
	Eastern Europe|Southern Europe|Northern Europe|Central Europe|Southeast Asia|South Asia|East Asia|Central Asia|
	West Africa|East Africa|North Africa|Southern Africa|Sub-Saharan Africa|World|Earth`)

// pairsOf reads "key=value" words into a map; underscores stand for
// spaces.
func pairsOf(s string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(s) {
		k, v, _ := strings.Cut(f, "=")
		m[strings.ReplaceAll(k, "_", " ")] = strings.ReplaceAll(v, "_", " ")
	}
	return m
}
