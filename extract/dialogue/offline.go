package dialogue

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Offline is the dialogue extractor that needs no model. Per segment it
// proposes: the speakers' names (/User/Profile/Name, /Assistant/Profile/Name),
// one event per session (/Events/Session/Session<N>_<YYYYMMDD>) linked from
// /User/RelatedEvents and /Assistant/RelatedEvents, and the capitalised
// names, dates and numbers of each turn as knowledge nodes
// (/Knowledge/Entity/ProperName/..., /Knowledge/Time/Date/...,
// /Knowledge/Quantity/Number/...) whose description is the sentence that
// mentions them, linked from the session event with MENTIONS. A name met
// again in a later segment is updated, so its earlier sentences stay in the
// node's history. Names are found by capital letters only, so scripts
// without case (Chinese, Japanese) yield dates and numbers but no names.
type Offline struct{}

var _ SegmentExtractor = (*Offline)(nil)

// NewOffline returns the offline extractor.
func NewOffline() *Offline { return &Offline{} }

// Node ids used by the offline extractor.
const (
	UserNameID      = "/User/Profile/Name"
	AssistantNameID = "/Assistant/Profile/Name"
)

// ExtractSegment proposes operations for seg. It makes no calls and never
// fails except when ctx is done.
func (o *Offline) ExtractSegment(ctx context.Context, seg Segment, memory Known) (Proposal, error) {
	if err := ctx.Err(); err != nil {
		return Proposal{}, err
	}
	known := func(id string) bool { return memory != nil && memory.Has(id) }
	var ops Ops
	added := map[string]bool{}
	addOrUpdate := func(id string, d NodeDetails) {
		if added[id] {
			return
		}
		added[id] = true
		if known(id) {
			ops.UpdateNode = append(ops.UpdateNode, NodeOp{NodeID: id, Details: d})
		} else {
			ops.AddNode = append(ops.AddNode, NodeOp{NodeID: id, Details: d})
		}
	}
	// Speakers.
	if seg.UserSpeaker != "" && !known(UserNameID) {
		addOrUpdate(UserNameID, NodeDetails{Label: seg.UserSpeaker, Description: "The user's name."})
	}
	if seg.AssistantSpeaker != "" && !known(AssistantNameID) {
		addOrUpdate(AssistantNameID, NodeDetails{Label: seg.AssistantSpeaker, Description: "The assistant's name."})
	}
	// The session event.
	event := sessionEventID(seg)
	if !known(event) {
		label := "Session " + strconv.Itoa(seg.Session+1)
		if seg.Start != "" {
			label += " on " + seg.Start
		}
		desc := "Conversation"
		if seg.UserSpeaker != "" || seg.AssistantSpeaker != "" {
			desc += " between " + nameOr(seg.UserSpeaker, "the user") + " and " + nameOr(seg.AssistantSpeaker, "the assistant")
		}
		if seg.Start != "" {
			desc += " on " + seg.Start
		}
		addOrUpdate(event, NodeDetails{Label: label, Description: desc + ".", Timestamp: seg.Start})
		ops.AddRelation = append(ops.AddRelation,
			RelationOp{SourceID: "/User/RelatedEvents", TargetID: event, Label: "PARTICIPATED_IN"},
			RelationOp{SourceID: "/Assistant/RelatedEvents", TargetID: event, Label: "PARTICIPATED_IN"})
	}
	// Entities per side.
	skip := map[string]bool{}
	for _, s := range []string{seg.UserSpeaker, seg.AssistantSpeaker} {
		if s != "" {
			skip[strings.ToLower(s)] = true
		}
	}
	for _, side := range []struct{ speaker, text string }{
		{nameOr(seg.UserSpeaker, "User"), seg.User},
		{nameOr(seg.AssistantSpeaker, "Assistant"), seg.Assistant},
	} {
		for _, m := range findMentions(side.text, known) {
			if skip[strings.ToLower(m.name)] {
				continue
			}
			m = resolveRelative(m, seg.Start)
			id := m.id()
			if id == "" || added[id] {
				continue
			}
			addOrUpdate(id, NodeDetails{Label: m.name, Description: side.speaker + ": " + m.sentence})
			ops.AddRelation = append(ops.AddRelation, RelationOp{SourceID: event, TargetID: id, Label: "MENTIONS"})
		}
	}
	return Proposal{Ops: ops}, nil
}

// resolveRelative turns "yesterday", "today" and "tomorrow" into the date
// they mean relative to the session start, e.g. "yesterday (2023-05-07)".
func resolveRelative(m mention, start string) mention {
	if m.kind != "date" {
		return m
	}
	days := map[string]int{"yesterday": -1, "today": 0, "tomorrow": 1}
	off, ok := days[strings.ToLower(m.name)]
	if !ok {
		return m
	}
	t, err := time.Parse(time.RFC3339, start)
	if err != nil {
		if t, err = time.Parse("2006-01-02", start); err != nil {
			return m
		}
	}
	m.name += " (" + t.AddDate(0, 0, off).Format("2006-01-02") + ")"
	return m
}

// sessionEventID is /Events/Session/Session<N>_<YYYYMMDD>, the date part
// left out when the session has no start.
func sessionEventID(seg Segment) string {
	id := "/Events/Session/Session" + strconv.Itoa(seg.Session+1)
	if d := compactDate(seg.Start); d != "" {
		id += "_" + d
	}
	return id
}

// compactDate turns an RFC 3339 time or a date into YYYYMMDD.
func compactDate(s string) string {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.Format("20060102")
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Format("20060102")
	}
	return ""
}

// mention is a name, date or number found in a turn.
type mention struct {
	kind     string // "name", "date" or "number"
	name     string
	sentence string
}

func (m mention) id() string {
	if m.kind == "date" {
		seg := strings.Trim(nonAlnum.ReplaceAllString(m.name, "-"), "-")
		if seg == "" {
			return ""
		}
		r, n := utf8.DecodeRuneInString(seg)
		return "/Knowledge/Time/Date/" + string(unicode.ToUpper(r)) + seg[n:]
	}
	seg := idSegment(m.name)
	if seg == "" {
		return ""
	}
	switch m.kind {
	case "number":
		return "/Knowledge/Quantity/Number/" + seg
	case "topic":
		return "/Knowledge/Topic/Thing/" + seg
	}
	return "/Knowledge/Entity/ProperName/" + seg
}

// idSegment makes a path segment of a name: its words in CamelCase, only
// letters, digits, dots and hyphens kept.
func idSegment(name string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(name, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-')
	}) {
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	return strings.Trim(b.String(), ".-")
}

var (
	nonAlnum   = regexp.MustCompile(`[^\p{L}\p{N}]+`)
	sentenceRe = regexp.MustCompile(`[^.!?。！？\n]+[.!?。！？]*`)
	months     = `(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)`
	dateRe     = regexp.MustCompile(`\b(?:` +
		`\d{4}-\d{2}-\d{2}` +
		`|\d{1,2}/\d{1,2}/\d{2,4}` +
		`|` + months + `\.? \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?` +
		`|\d{1,2}(?:st|nd|rd|th)? (?:of )?` + months + `(?:,? \d{4})?` +
		`|` + months + ` \d{4}` +
		`|(?:last|next|this) (?:week|weekend|month|year|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)` +
		`|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)` +
		`|(?:yesterday|today|tomorrow)` +
		`|(?:19|20)\d{2}` +
		`)\b`)
	numberRe = regexp.MustCompile(`[$€£]?\b\d+(?:[.,]\d+)*(?:%|\b)`)
	capRe    = regexp.MustCompile(`\p{Lu}[\p{L}\p{N}&'’.-]*(?:\s+(?:of|the|de|van|von)?\s*\p{Lu}[\p{L}\p{N}&'’.-]*)*`)
)

// findMentions returns the names, dates and numbers of text, each with its
// sentence, in order of first appearance, without repeats; known says
// whether the memory holds a node of an id.
func findMentions(text string, known func(id string) bool) []mention {
	var out []mention
	seen := map[string]bool{}
	add := func(kind, name, sentence string) {
		name = strings.TrimSpace(strings.TrimRight(name, ".,'’-"))
		name = strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s")
		key := kind + "\x00" + strings.ToLower(name)
		if name == "" || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, mention{kind: kind, name: name, sentence: strings.TrimSpace(sentence)})
	}
	// Words written with a capital inside a sentence somewhere in the text
	// count as names even at the start of another sentence.
	midCaps := map[string]bool{}
	sentences := sentenceRe.FindAllString(text, -1)
	for _, s := range sentences {
		for _, loc := range capRe.FindAllStringIndex(s, -1) {
			if strings.TrimSpace(s[:loc[0]]) != "" {
				midCaps[firstWord(s[loc[0]:loc[1]])] = true
			}
		}
	}
	for _, s := range sentences {
		masked := []byte(s)
		for _, loc := range dateRe.FindAllStringIndex(s, -1) {
			add("date", s[loc[0]:loc[1]], s)
			for i := loc[0]; i < loc[1]; i++ {
				masked[i] = ' '
			}
		}
		ms := string(masked)
		for _, loc := range capRe.FindAllStringIndex(ms, -1) {
			name := ms[loc[0]:loc[1]]
			if strings.TrimSpace(ms[:loc[0]]) == "" {
				// Sentence start: drop a first word that is only capitalised
				// because it starts the sentence.
				fw := firstWord(name)
				seen := midCaps[fw] || known(mention{kind: "name", name: name}.id())
				if !seen || stopWords[strings.ToLower(fw)] {
					rest := strings.TrimSpace(name[len(fw):])
					if rest == "" || !unicode.IsUpper(firstRune(rest)) {
						continue
					}
					name = rest
				}
			}
			if fw := strings.ToLower(firstWord(name)); fw == "i" || (len(strings.Fields(name)) == 1 && stopWords[fw]) {
				continue
			}
			add("name", name, s)
		}
		for _, loc := range numberRe.FindAllStringIndex(ms, -1) {
			add("number", ms[loc[0]:loc[1]], s)
		}
		for _, t := range topics(ms) {
			add("topic", t, s)
		}
	}
	return out
}

// determiners open the noun phrases the offline extractor keeps as
// topics ("a charity race", "my kids", "that lake sunrise").
var determiners = map[string]bool{"a": true, "an": true, "the": true, "my": true, "your": true, "our": true,
	"his": true, "her": true, "their": true, "this": true, "that": true, "these": true, "those": true, "some": true}

// notTopic are words that end a topic phrase besides stop words: times,
// degree words and the like, which follow a noun ("the race yesterday").
var notTopic = map[string]bool{"yesterday": true, "today": true, "tomorrow": true, "tonight": true, "last": true,
	"next": true, "ago": true, "week": true, "weekend": true, "month": true, "year": true, "day": true, "time": true,
	"way": true, "bit": true, "kind": true, "sort": true, "lot": true, "great": true, "good": true, "amazing": true,
	"awesome": true, "nice": true, "cool": true, "best": true, "same": true, "whole": true, "other": true, "first": true}

// topics returns the noun phrases of a sentence that follow a determiner
// or possessive: up to three words, lower-cased, none of them a stop word
// ("I went to a LGBTQ support group yesterday" -> "lgbtq support group").
// It is how the offline extractor gives the things people talk about a
// node, so a question about the pottery class finds the turn about it.
func topics(sentence string) []string {
	words := strings.FieldsFunc(sentence, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '-')
	})
	// Punctuation ends a phrase: mark where each word is followed by it.
	var out []string
	for i := 0; i < len(words); i++ {
		if !determiners[strings.ToLower(words[i])] {
			continue
		}
		var phrase []string
		for j := i + 1; j < len(words) && len(phrase) < 3; j++ {
			w := strings.ToLower(strings.Trim(words[j], "'’-"))
			if w == "" || stopWords[w] || notTopic[w] || determiners[w] || utf8.RuneCountInString(w) < 3 || !unicode.IsLetter(firstRune(w)) {
				break
			}
			phrase = append(phrase, w)
			if k := strings.Index(sentence, words[j]); k >= 0 {
				after := sentence[k+len(words[j]):]
				if after != "" && strings.ContainsRune(",;:.!?()\"", firstRune(after)) {
					break
				}
			}
		}
		if len(phrase) > 0 {
			out = append(out, strings.Join(phrase, " "))
			i += len(phrase)
		}
	}
	return out
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i]
	}
	return s
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
