package query

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// period is a span of time a question names, [from, to].
type period struct{ from, to time.Time }

// contains reports whether t falls within p.
func (p period) contains(t time.Time) bool { return !t.Before(p.from) && !t.After(p.to) }

// dayLen is one day.
const dayLen = 24 * time.Hour

var (
	// "two weeks ago", "a month ago", "10 days ago".
	agoRe = regexp.MustCompile(`\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple of)\s+(day|week|month|year)s?\s+ago\b`)
	// "in the past two weeks", "over the last few months", "past month".
	pastRe = regexp.MustCompile(`\b(?:past|last)\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple of)?\s*(day|week|month|year)s?\b`)
	// "last week", "last weekend", "last Friday", "yesterday".
	lastRe = regexp.MustCompile(`\b(?:last\s+(weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(yesterday))\b`)
	// "this week", "this month", "this year".
	thisRe = regexp.MustCompile(`\bthis\s+(week|month|year)\b`)
	// "in May", "in early March", "during December 2023".
	monthRe = regexp.MustCompile(`\b(?:in|during)\s+(?:early\s+|mid\s+|late\s+)?(january|february|march|april|may|june|july|august|september|october|november|december)(?:\s+(\d{4}))?\b`)
)

var smallNumbers = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "few": 3, "a few": 3, "couple of": 2, "a couple of": 2}

// count reads a small number written in digits or words; empty is one.
func count(s string) int {
	s = strings.TrimSpace(s)
	if s == "" {
		return 1
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return smallNumbers[s]
}

// unitLen is the approximate length of a calendar unit.
func unitLen(unit string) time.Duration {
	switch unit {
	case "week":
		return 7 * dayLen
	case "month":
		return 30 * dayLen
	case "year":
		return 365 * dayLen
	}
	return dayLen
}

// periodOf reads the span of time a question points to relative to now:
// "two weeks ago" (a span around that day, wider the further back),
// "in the past month", "last weekend", "this year", "in March" (the
// latest March not after now). The spans are generous: a conversation
// tells of an event on the day or some days after it. ok is false when
// the question names no such span or now is zero.
func periodOf(question string, now time.Time) (period, bool) {
	if now.IsZero() {
		return period{}, false
	}
	q := strings.ToLower(question)
	end := now.Add(dayLen)
	if m := agoRe.FindStringSubmatch(q); m != nil {
		if n := count(m[1]); n > 0 {
			back := time.Duration(n) * unitLen(m[2])
			slack := max(back/4, 4*dayLen)
			at := now.Add(-back)
			to := at.Add(slack)
			if to.After(end) {
				to = end
			}
			return period{at.Add(-slack), to}, true
		}
	}
	if m := monthRe.FindStringSubmatch(q); m != nil {
		month := monthNumber(m[1])
		year := now.Year()
		if m[2] != "" {
			year, _ = strconv.Atoi(m[2])
		} else if month > now.Month() {
			year--
		}
		from := time.Date(year, month, 1, 0, 0, 0, 0, now.Location())
		return period{from.Add(-2 * dayLen), from.AddDate(0, 1, 0).Add(7 * dayLen)}, true
	}
	if m := lastRe.FindStringSubmatch(q); m != nil {
		back := 10 * dayLen // the last weekend or weekday
		if m[2] != "" {
			back = 3 * dayLen
		}
		return period{now.Add(-back), end}, true
	}
	if m := thisRe.FindStringSubmatch(q); m != nil {
		var from time.Time
		switch m[1] {
		case "week":
			from = now.Add(-7 * dayLen)
		case "month":
			from = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())
		default:
			from = time.Date(now.Year(), 1, 1, 0, 0, 0, 0, now.Location())
		}
		return period{from.Add(-dayLen), end}, true
	}
	if m := pastRe.FindStringSubmatch(q); m != nil {
		if n := count(m[1]); n > 0 {
			back := time.Duration(n) * unitLen(m[2])
			// "last week" or "last month" is the one before this one.
			if m[1] == "" && strings.HasPrefix(m[0], "last") {
				back *= 2
			}
			return period{now.Add(-back - 2*dayLen), end}, true
		}
	}
	return period{}, false
}

func monthNumber(name string) time.Month {
	for m := time.January; m <= time.December; m++ {
		if strings.EqualFold(m.String(), name) {
			return m
		}
	}
	return 0
}
