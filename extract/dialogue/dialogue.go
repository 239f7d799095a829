package dialogue

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// Role is who says a turn: the user, the assistant, or "" (a speaker of
// a conversation between people).
type Role string

// Roles a turn may carry.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Format is the form a dialogue was imported from.
type Format string

// Formats a dialogue may have been imported from.
const (
	FormatCanonical   Format = "canonical"
	FormatLoCoMo      Format = "locomo"
	FormatMemoryBank  Format = "memorybank"
	FormatLongMemEval Format = "longmemeval"
)

// Dialogue is a conversation in sessions.
type Dialogue struct {
	Title    string    `json:"title"`
	Format   Format    `json:"format,omitempty"`
	Sessions []Session `json:"sessions"`
}

// Session is one sitting of a dialogue. Start is an RFC 3339 time, a date
// (YYYY-MM-DD) or empty.
type Session struct {
	ID    string `json:"id"`
	Start string `json:"start"`
	Turns []Turn `json:"turns"`
}

// Turn is one utterance. Role is RoleUser, RoleAssistant or empty.
type Turn struct {
	Speaker string `json:"speaker"`
	Role    Role   `json:"role"`
	Text    string `json:"text"`
}

// Transcript writes the dialogue as people read one: its title, then
// each session under a line naming it (and when it began), a turn per
// line as "Speaker: text".
func (d *Dialogue) Transcript() string {
	var b strings.Builder
	if d.Title != "" {
		b.WriteString(d.Title + "\n\n")
	}
	for i, s := range d.Sessions {
		if i > 0 {
			b.WriteString("\n")
		}
		head := cmp.Or(s.ID, fmt.Sprintf("session %d", i+1))
		if s.Start != "" && s.Start != s.ID {
			head += " · " + s.Start
		}
		b.WriteString("— " + head + " —\n")
		for _, t := range s.Turns {
			b.WriteString(cmp.Or(t.Speaker, string(t.Role), "?") + ": " + t.Text + "\n")
		}
	}
	return b.String()
}

// TurnCount returns the number of turns over all sessions.
func (d *Dialogue) TurnCount() int {
	n := 0
	for _, s := range d.Sessions {
		n += len(s.Turns)
	}
	return n
}

// Speakers returns the distinct named speakers in order of first appearance.
func (d *Dialogue) Speakers() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range d.Sessions {
		for _, t := range s.Turns {
			if t.Speaker != "" && !seen[t.Speaker] {
				seen[t.Speaker] = true
				out = append(out, t.Speaker)
			}
		}
	}
	return out
}

// Parse reads a file holding exactly one dialogue in any supported shape
// (see the package comment). A file with several dialogues is refused; use
// ParseAll. Errors are *extract.Error of kind invalid.
func Parse(data []byte) (*Dialogue, error) {
	all, err := ParseAll(data)
	if err != nil {
		return nil, err
	}
	if len(all) != 1 {
		return nil, extract.Errorf(extract.KindInvalid, "the file holds %d dialogues; import it as a collection", len(all))
	}
	return all[0], nil
}

// ParseAll reads a file holding one or more dialogues: a canonical dialogue
// or a list of them, a LoCoMo conversation or list, a MemoryBank file (one
// dialogue per user) or LongMemEval question objects. Errors are
// *extract.Error of kind invalid and start with the JSON path of the bad
// field.
func ParseAll(data []byte) ([]*Dialogue, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, extract.Errorf(extract.KindInvalid, "dialogue file is empty")
	}
	if !utf8.Valid(data) {
		return nil, extract.Errorf(extract.KindInvalid, "dialogue file is not valid UTF-8")
	}
	root, err := decodeOrdered(data)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, int(se.Offset))
			return nil, extract.Errorf(extract.KindInvalid, "dialogue file is not valid JSON: %s (line %d, column %d)", se.Error(), line, col)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, extract.Errorf(extract.KindInvalid, "dialogue file is not valid JSON: it ends early (cut off?)")
		}
		return nil, extract.Errorf(extract.KindInvalid, "dialogue file is not valid JSON: %s", err.Error())
	}
	var out []*Dialogue
	switch v := root.(type) {
	case []any:
		if len(v) == 0 {
			return nil, extract.Errorf(extract.KindInvalid, "(root): empty list, no dialogue")
		}
		for i, item := range v {
			ds, err := parseOne(item, jpath("").index(i))
			if err != nil {
				return nil, err
			}
			out = append(out, ds...)
		}
	default:
		ds, err := parseOne(v, "")
		if err != nil {
			return nil, err
		}
		out = ds
	}
	return out, nil
}

func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// bad builds the path-prefixed invalid-input error.
func bad(p jpath, format string, args ...any) error {
	return extract.Errorf(extract.KindInvalid, "%s: %s", p.String(), fmt.Sprintf(format, args...))
}

// parseOne detects the shape of one value and imports it.
func parseOne(v any, p jpath) ([]*Dialogue, error) {
	o, ok := v.(*object)
	if !ok {
		return nil, bad(p, "expected a dialogue object, got %s", typeName(v))
	}
	if _, ok := o.get("sessions"); ok {
		d, err := parseCanonical(o, p)
		return wrapOne(d, err)
	}
	if c, ok := o.get("conversation"); ok {
		co, ok := c.(*object)
		if !ok {
			return nil, bad(p.key("conversation"), "expected an object, got %s", typeName(c))
		}
		d, err := parseLoCoMo(co, p.key("conversation"))
		if err == nil {
			if id, ok := o.get("sample_id"); ok {
				if s, ok := id.(string); ok && s != "" {
					d.Title = s + ": " + d.Title
				}
			}
		}
		return wrapOne(d, err)
	}
	if _, ok := o.get("speaker_a"); ok {
		d, err := parseLoCoMo(o, p)
		return wrapOne(d, err)
	}
	if _, ok := o.get("haystack_sessions"); ok {
		d, err := parseLongMemEval(o, p)
		return wrapOne(d, err)
	}
	if _, ok := o.get("history"); ok {
		d, err := parseMemoryBankUser(o, "", p)
		return wrapOne(d, err)
	}
	// A MemoryBank file: every value is a user object with a history.
	if len(o.keys) > 0 {
		all := true
		for _, k := range o.keys {
			u, ok := o.vals[k].(*object)
			if !ok {
				all = false
				break
			}
			if _, ok := u.get("history"); !ok {
				all = false
				break
			}
		}
		if all {
			var out []*Dialogue
			for _, k := range o.keys {
				d, err := parseMemoryBankUser(o.vals[k].(*object), k, p.key(k))
				if err != nil {
					return nil, err
				}
				inDateOrder(d)
				out = append(out, d)
			}
			return out, nil
		}
	}
	return nil, bad(p, "unknown dialogue shape: expected \"sessions\" (canonical), \"speaker_a\" (LoCoMo), \"haystack_sessions\" (LongMemEval) or users with \"history\" (MemoryBank)")
}

func wrapOne(d *Dialogue, err error) ([]*Dialogue, error) {
	if err != nil {
		return nil, err
	}
	inDateOrder(d)
	return []*Dialogue{d}, nil
}

// inDateOrder puts the sessions in the order of their start times when
// every session has one (a file may list them otherwise: LongMemEval's
// haystacks are not in date order), so turn order follows time and a
// fact's later value is the one said later. Sessions of one time keep
// the file's order; a dialogue with an undated session is left as it is.
func inDateOrder(d *Dialogue) {
	at := make([]time.Time, len(d.Sessions))
	for i, s := range d.Sessions {
		t, ok := extract.ParseFactTime(s.Start, false)
		if !ok {
			return
		}
		at[i] = t
	}
	idx := make([]int, len(d.Sessions))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return at[idx[a]].Before(at[idx[b]]) })
	out := make([]Session, len(idx))
	for i, j := range idx {
		out[i] = d.Sessions[j]
	}
	d.Sessions = out
}

// field helpers

func reqString(o *object, k string, p jpath) (string, error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return "", bad(p.key(k), "missing")
	}
	s, ok := v.(string)
	if !ok {
		return "", bad(p.key(k), "expected a string, got %s", typeName(v))
	}
	return s, nil
}

func optString(o *object, k string, p jpath) (string, error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return "", nil
	}
	switch s := v.(type) {
	case string:
		return s, nil
	case json.Number:
		return s.String(), nil
	}
	return "", bad(p.key(k), "expected a string, got %s", typeName(v))
}

func reqList(o *object, k string, p jpath) ([]any, error) {
	v, ok := o.get(k)
	if !ok || v == nil {
		return nil, bad(p.key(k), "missing")
	}
	l, ok := v.([]any)
	if !ok {
		return nil, bad(p.key(k), "expected a list, got %s", typeName(v))
	}
	return l, nil
}

func parseCanonical(o *object, p jpath) (*Dialogue, error) {
	title, err := optString(o, "title", p)
	if err != nil {
		return nil, err
	}
	sessions, err := reqList(o, "sessions", p)
	if err != nil {
		return nil, err
	}
	d := &Dialogue{Title: title, Format: FormatCanonical}
	for i, sv := range sessions {
		sp := p.key("sessions").index(i)
		so, ok := sv.(*object)
		if !ok {
			return nil, bad(sp, "expected a session object, got %s", typeName(sv))
		}
		id, err := optString(so, "id", sp)
		if err != nil {
			return nil, err
		}
		if id == "" {
			id = "session_" + strconv.Itoa(i+1)
		}
		start, err := optString(so, "start", sp)
		if err != nil {
			return nil, err
		}
		if start != "" {
			norm, ok := normalizeStart(start)
			if !ok {
				return nil, bad(sp.key("start"), "%q is not an RFC 3339 time or a date (YYYY-MM-DD)", start)
			}
			start = norm
		}
		turns, err := reqList(so, "turns", sp)
		if err != nil {
			return nil, err
		}
		s := Session{ID: id, Start: start}
		for j, tv := range turns {
			tp := sp.key("turns").index(j)
			to, ok := tv.(*object)
			if !ok {
				return nil, bad(tp, "expected a turn object, got %s", typeName(tv))
			}
			text, err := reqString(to, "text", tp)
			if err != nil {
				return nil, err
			}
			speaker, err := optString(to, "speaker", tp)
			if err != nil {
				return nil, err
			}
			raw, err := optString(to, "role", tp)
			if err != nil {
				return nil, err
			}
			role := Role(strings.ToLower(strings.TrimSpace(raw)))
			if role != "" && role != RoleUser && role != RoleAssistant {
				return nil, bad(tp.key("role"), "%q is not \"user\", \"assistant\" or empty", role)
			}
			speaker = strings.TrimSpace(speaker)
			if speaker == "" && role == "" {
				return nil, bad(tp, "a turn needs a speaker or a role")
			}
			s.Turns = append(s.Turns, Turn{Speaker: speaker, Role: role, Text: text})
		}
		d.Sessions = append(d.Sessions, s)
	}
	return d, nil
}

// normalizeStart accepts RFC 3339 times, dates and the date formats of the
// imported corpora, and returns RFC 3339 (UTC kept as written) or a date.
func normalizeStart(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.Format(time.RFC3339), true
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.Format("2006-01-02"), true
	}
	for _, layout := range []string{
		"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006/01/02T15:04:05Z",
		"2006/01/02 (Mon) 15:04", "2006/01/02 15:04", "3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.RFC3339), true
		}
	}
	if t, err := time.Parse("2006/01/02", s); err == nil {
		return t.Format("2006-01-02"), true
	}
	return "", false
}

// parseLoCoMo imports one LoCoMo conversation object.
func parseLoCoMo(o *object, p jpath) (*Dialogue, error) {
	a, err := reqString(o, "speaker_a", p)
	if err != nil {
		return nil, err
	}
	b, err := reqString(o, "speaker_b", p)
	if err != nil {
		return nil, err
	}
	type numbered struct {
		n   int
		key string
	}
	var keys []numbered
	for _, k := range o.keys {
		rest, ok := strings.CutPrefix(k, "session_")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			continue
		}
		keys = append(keys, numbered{n, k})
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].n < keys[j].n })
	if len(keys) == 0 {
		return nil, bad(p, "no session_N lists in the LoCoMo conversation")
	}
	d := &Dialogue{Title: strings.TrimSpace(a) + " and " + strings.TrimSpace(b), Format: FormatLoCoMo}
	for _, nk := range keys {
		sp := p.key(nk.key)
		list, ok := o.vals[nk.key].([]any)
		if !ok {
			return nil, bad(sp, "expected a list of turns, got %s", typeName(o.vals[nk.key]))
		}
		start := ""
		dk := nk.key + "_date_time"
		if raw, ok := o.get(dk); ok && raw != nil {
			s, ok := raw.(string)
			if !ok {
				return nil, bad(p.key(dk), "expected a string, got %s", typeName(raw))
			}
			norm, ok := normalizeStart(s)
			if !ok {
				return nil, bad(p.key(dk), "unreadable date %q", s)
			}
			start = norm
		}
		s := Session{ID: nk.key, Start: start}
		for j, tv := range list {
			tp := sp.index(j)
			to, ok := tv.(*object)
			if !ok {
				return nil, bad(tp, "expected a turn object, got %s", typeName(tv))
			}
			speaker, err := reqString(to, "speaker", tp)
			if err != nil {
				return nil, err
			}
			text, err := reqString(to, "text", tp)
			if err != nil {
				return nil, err
			}
			caption, err := optString(to, "blip_caption", tp)
			if err != nil {
				return nil, err
			}
			if caption != "" {
				text = strings.TrimSpace(text + " [image: " + caption + "]")
			}
			s.Turns = append(s.Turns, Turn{Speaker: strings.TrimSpace(speaker), Text: text})
		}
		d.Sessions = append(d.Sessions, s)
	}
	return d, nil
}

// parseMemoryBankUser imports one MemoryBank user; key is the user's key in
// the file (may carry stray spaces).
func parseMemoryBankUser(o *object, key string, p jpath) (*Dialogue, error) {
	name, err := optString(o, "name", p)
	if err != nil {
		return nil, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = strings.TrimSpace(key)
	}
	if name == "" {
		return nil, bad(p.key("name"), "missing")
	}
	hv, _ := o.get("history")
	hp := p.key("history")
	h, ok := hv.(*object)
	if !ok {
		return nil, bad(hp, "expected an object keyed by date, got %s", typeName(hv))
	}
	dates := append([]string(nil), h.keys...)
	sort.Strings(dates)
	d := &Dialogue{Title: name, Format: FormatMemoryBank}
	for _, date := range dates {
		dp := hp.key(date)
		start, ok := normalizeStart(date)
		if !ok {
			return nil, bad(dp, "history key %q is not a date", date)
		}
		list, ok := h.vals[date].([]any)
		if !ok {
			return nil, bad(dp, "expected a list of exchanges, got %s", typeName(h.vals[date]))
		}
		s := Session{ID: date, Start: start}
		for j, ev := range list {
			ep := dp.index(j)
			eo, ok := ev.(*object)
			if !ok {
				return nil, bad(ep, "expected an exchange object, got %s", typeName(ev))
			}
			q, err := reqString(eo, "query", ep)
			if err != nil {
				return nil, err
			}
			r, err := reqString(eo, "response", ep)
			if err != nil {
				return nil, err
			}
			s.Turns = append(s.Turns,
				Turn{Speaker: name, Role: RoleUser, Text: q},
				Turn{Speaker: "AI companion", Role: RoleAssistant, Text: r})
		}
		d.Sessions = append(d.Sessions, s)
	}
	return d, nil
}

// parseLongMemEval imports one LongMemEval question object.
func parseLongMemEval(o *object, p jpath) (*Dialogue, error) {
	sessions, err := reqList(o, "haystack_sessions", p)
	if err != nil {
		return nil, err
	}
	var dates, ids []any
	if _, ok := o.get("haystack_dates"); ok {
		if dates, err = reqList(o, "haystack_dates", p); err != nil {
			return nil, err
		}
		if len(dates) != len(sessions) {
			return nil, bad(p.key("haystack_dates"), "%d dates for %d sessions", len(dates), len(sessions))
		}
	}
	if _, ok := o.get("haystack_session_ids"); ok {
		if ids, err = reqList(o, "haystack_session_ids", p); err != nil {
			return nil, err
		}
		if len(ids) != len(sessions) {
			return nil, bad(p.key("haystack_session_ids"), "%d ids for %d sessions", len(ids), len(sessions))
		}
	}
	title, err := optString(o, "question_id", p)
	if err != nil {
		return nil, err
	}
	if title == "" {
		title = "LongMemEval dialogue"
	}
	d := &Dialogue{Title: title, Format: FormatLongMemEval}
	for i, sv := range sessions {
		sp := p.key("haystack_sessions").index(i)
		list, ok := sv.([]any)
		if !ok {
			return nil, bad(sp, "expected a list of messages, got %s", typeName(sv))
		}
		s := Session{ID: "session_" + strconv.Itoa(i+1)}
		if ids != nil {
			id, ok := ids[i].(string)
			if !ok {
				return nil, bad(p.key("haystack_session_ids").index(i), "expected a string, got %s", typeName(ids[i]))
			}
			s.ID = id
		}
		if dates != nil {
			raw, ok := dates[i].(string)
			if !ok {
				return nil, bad(p.key("haystack_dates").index(i), "expected a string, got %s", typeName(dates[i]))
			}
			norm, ok := normalizeStart(raw)
			if !ok {
				return nil, bad(p.key("haystack_dates").index(i), "unreadable date %q", raw)
			}
			s.Start = norm
		}
		for j, mv := range list {
			mp := sp.index(j)
			mo, ok := mv.(*object)
			if !ok {
				return nil, bad(mp, "expected a message object, got %s", typeName(mv))
			}
			raw, err := reqString(mo, "role", mp)
			if err != nil {
				return nil, err
			}
			role := Role(strings.ToLower(strings.TrimSpace(raw)))
			if role != RoleUser && role != RoleAssistant {
				return nil, bad(mp.key("role"), "%q is not \"user\" or \"assistant\"", role)
			}
			text, err := reqString(mo, "content", mp)
			if err != nil {
				return nil, err
			}
			s.Turns = append(s.Turns, Turn{Role: role, Text: text})
		}
		d.Sessions = append(d.Sessions, s)
	}
	return d, nil
}
