package nlp

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

const monthNames = `(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan\.|Feb\.|Mar\.|Apr\.|Jun\.|Jul\.|Aug\.|Sep\.|Sept\.|Oct\.|Nov\.|Dec\.)`

// cardinalWords are the spelled-out numbers kept as nodes ("one" is left
// out: it is mostly a pronoun).
const cardinalWords = `(?:[Tt]wo|[Tt]hree|[Ff]our|[Ff]ive|[Ss]ix|[Ss]even|[Ee]ight|[Nn]ine|[Tt]en|[Ee]leven|[Tt]welve|[Tt]hirteen|[Ff]ourteen|[Ff]ifteen|[Ss]ixteen|[Ss]eventeen|[Ee]ighteen|[Nn]ineteen|[Tt]wenty|[Tt]hirty|[Ff]orty|[Ff]ifty|[Ss]ixty|[Ss]eventy|[Ee]ighty|[Nn]inety|[Hh]undred|[Tt]housand)`

// unitWords follow a number in a duration.
const durationUnits = `(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|decades?|centuries|nights?)`

// measureUnits follow a number in a quantity ("800 m", "1600 MW").
const measureUnits = `(?:%|percent|per cent|km2|km²|sq\.? ?(?:km|mi)|square (?:kilometers|kilometres|miles|metres|meters|feet)|km|kilometers|kilometres|metres|meters|m|cm|mm|miles|mi|feet|ft|kg|kilograms|grams|g|tons|tonnes|lb|lbs|MW|GW|kW|mph|km/h|hectares|ha|acres|litres|liters|(?:people|inhabitants|residents)(?:\s+per\s+(?:square\s+)?\w+))`

// scaleWords follow a number ("130 million").
const scaleWords = `(?:thousand|million|billion|trillion|bn|m)`

// numberRE matches, anchored at a candidate position, a date (group 1), a
// duration (group 2), a quantity (group 3) or a year (group 4). Money,
// measures, decades, centuries, spelled-out cardinals and durations are
// kept; bare integers (page and list numbers, counts) are not matched.
var numberRE = regexp.MustCompile(`^(?:` +
	// 1: dates, decades, centuries, year ranges.
	`((?:mid-)?\d{1,2}(?:st|nd|rd|th)(?:\s*-\s*|\s)century(?:\s+(?:BCE|BC|AD|CE))?` +
	`|(?:mid-)?1[0-9]{2}0s|(?:mid-)?20[0-9]0s` +
	`|\d{1,2}(?:st|nd|rd|th)?\s+` + monthNames + `\s?,?\s+\d{3,4}\b` +
	`|` + monthNames + `\s+\d{1,2}(?:st|nd|rd|th)?\s?,?\s+\d{3,4}\b` +
	`|\d{1,2}(?:st|nd|rd|th)?\s+` + monthNames + `\b` +
	`|` + monthNames + `\s+\d{1,2}(?:st|nd|rd|th)?\b` +
	`|` + monthNames + `\s+\d{4}\b` +
	`|\d{4}-\d{2}-\d{2}\b` +
	`|(?:1[0-9]{3}|20[0-9]{2})(?:[-–]\d{1,2}|\s-\s\d{1,2}|/(?:\d{2}|1[0-9]{3}|20[0-9]{2}))\b)` +
	// 2: durations ("23 years", "two weeks", "two - year").
	`|((?:\d+|` + cardinalWords + `)(?:\s*-\s*|\s+)` + durationUnits + `\b)` +
	// 3: quantities: money, measures, scaled, grouped or decimal numbers,
	// number-noun compounds, spelled-out cardinals.
	`|((?:US|A|C|NZ|HK|R)?[$€£¥]\s*\d[\d,]*(?:\.\d+)?(?:\s*` + scaleWords + `\b)?` +
	`|\d[\d,]*(?:\.\d+)?\s*(?:` + scaleWords + `\s+)?(?:dollars|euros|pounds|yen|cents|rupees|francs|marks|yuan|rubles)\b` +
	`|\d[\d,]*(?:\.\d+)?\s*` + measureUnits + `(?:\b|$|[^\w])` +
	`|\d[\d,]*(?:\.\d+)?\s+` + scaleWords + `\b` +
	`|\d{1,3}(?:,\d{3})+(?:\.\d+)?` +
	`|\d+\.\d+` +
	`|\d+-[a-z]+\b` +
	`|` + cardinalWords + `(?:(?:\s*-\s*|\s)(?:one|two|three|four|five|six|seven|eight|nine))?(?:\s+(?:hundred|thousand|million|billion))?(?:\s+(?:halves|thirds|fourths|quarters|fifths))?\b)` +
	// 4: years.
	`|((?:1[0-9]{3}|20[0-9]{2})s?\b)` +
	`)`)

// isNumberStart reports whether a token may open a date or number: it
// holds a digit, is a month, a currency sign or a spelled-out number.
func isNumberStart(t tok) bool {
	if t.text == "" {
		return false
	}
	c := t.text[0]
	switch {
	case c >= '0' && c <= '9', c == '$', monthWords[t.text]:
		return true
	case strings.ContainsAny(t.text, "0123456789€£¥$"):
		return true
	case currencyPrefixes[t.text]:
		return true
	}
	return numberWords[strings.ToLower(t.text)]
}

// numberWords are the spelled-out numbers that may open a quantity or
// duration.
var numberWords = wordsOf(`one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
	sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand early mid
	late`)

// currencyPrefixes open money amounts when a currency sign follows
// ("US$ 300").
var currencyPrefixes = wordsOf(`US A C NZ HK R`)

// patternSpans finds dates, years, durations and quantities, trying the
// pattern only where a token may open one. A decade or century takes the
// "the" before it ("the 1950s", "the 18th century").
func patternSpans(text string, toks []tok, sentOf []int) []entity {
	var out []entity
	lastEnd := -1
	for i, t := range toks {
		if t.start < lastEnd || !isNumberStart(t) {
			continue
		}
		// A word-internal position ("Studio92") is no start.
		if t.start > 0 {
			if r, _ := utf8.DecodeLastRuneInString(text[:t.start]); unicode.IsLetter(r) || unicode.IsDigit(r) {
				continue
			}
		}
		end := min(len(text), t.start+120)
		// A no-break space (two bytes) reads as two spaces: "53.4\u00a0km".
		m := numberRE.FindStringSubmatchIndex(strings.ReplaceAll(text[t.start:end], "\u00a0", "  "))
		if m == nil {
			// A count: a bare number before a plural noun ("500
			// employees"), not after a locator ("page 12").
			if isDigits(t.text) && i+1 < len(toks) && (toks[i+1].tag == "NNS" || toks[i+1].tag == "JJ" && i+2 < len(toks) && toks[i+2].tag == "NNS") &&
				!(i > 0 && (locatorWords[toks[i-1].text] || locatorWords[titleCase(toks[i-1].text)])) {
				out = append(out, entity{start: t.start, end: t.end, cat: catNumber, typed: true, strong: true, sent: sentOf[i],
					tokFirst: -1, tokLast: -1, prio: prioPattern})
				lastEnd = t.end
			}
			continue
		}
		s, e := t.start, t.start+m[1]
		var c category
		switch {
		case m[2] >= 0, m[8] >= 0:
			c = catDate
		case m[4] >= 0:
			c = catDate
		default:
			c = catNumber
		}
		// Trim trailing white space and a non-word byte taken by the
		// measure pattern's boundary.
		for e > s && !isWordByte(text[e-1]) && text[e-1] != '%' && text[e-1] != '²' {
			e--
		}
		if e <= s {
			continue
		}
		lower := strings.ToLower(text[s:e])
		if c == catNumber && lower == "one" {
			continue
		}
		// A capitalised number word inside a sentence belongs to a name
		// or heading ("Stave Two", "Three Spirits").
		if isCap(text[s:e]) && numberWords[strings.ToLower(firstWord(text[s:e]))] && !opensSentence(text, s) {
			continue
		}
		// Spelled-out numbers must end at a word boundary.
		if e < len(text) && isWordByte(text[e]) && isWordByte(text[e-1]) {
			continue
		}
		if c == catDate && (strings.HasSuffix(lower, "0s") || strings.Contains(lower, "century")) {
			if strings.HasSuffix(strings.ToLower(text[max(0, s-4):s]), "the ") {
				s -= 4
			}
		}
		out = append(out, entity{start: s, end: e, cat: c, typed: true, strong: true, sent: sentOf[i], tokFirst: -1, tokLast: -1,
			prio: prioPattern})
		lastEnd = e
	}
	return out
}

// isWordByte reports an ASCII letter or digit, or any byte of a
// multi-byte rune.
func isWordByte(c byte) bool {
	return c >= 0x80 || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// isUnitWord reports a word that makes the number before it a quantity
// rather than part of a name.
func isUnitWord(w string) bool {
	return measureUnitSet[strings.ToLower(w)] || w == "%"
}

var measureUnitSet = wordsOf(`% percent km kilometers kilometres metres meters m cm mm miles mi feet ft kg kilograms g
	grams tons tonnes lb lbs mw gw kw mph hectares ha acres litres liters people inhabitants residents votes points goals
	copies units episodes seats members students employees species years year months month weeks week days day hours
	hour minutes minute seconds decades million billion thousand times`)
