package dialogue

import "strings"

// Segment is one user+assistant exchange: the user's turns and the
// assistant's answer that follows, within one session.
type Segment struct {
	// Index is the position of the segment in the whole dialogue, counted
	// from 0. It is the turn number of the memory operations and the chunk
	// index of the segment's result.
	Index int `json:"index"`
	// Session is the position of the session in the dialogue.
	Session int `json:"session"`
	// SessionID is the session's id.
	SessionID string `json:"session_id"`
	// Start is the session start timestamp (RFC 3339, a date or empty).
	Start string `json:"start"`
	// Turn is the index, within the session, of the segment's first turn.
	Turn int `json:"turn"`
	// Turns is the number of dialogue turns the segment joins.
	Turns int `json:"turns"`
	// UserSpeaker and AssistantSpeaker name the two sides, when known.
	UserSpeaker      string `json:"user_speaker,omitempty"`
	AssistantSpeaker string `json:"assistant_speaker,omitempty"`
	// User and Assistant hold the text of each side; consecutive turns of
	// one side are joined with a newline.
	User      string `json:"user"`
	Assistant string `json:"assistant"`
}

// Text returns the segment as plain text, one "speaker: text" line per side.
func (s Segment) Text() string {
	var b strings.Builder
	if s.User != "" {
		b.WriteString(nameOr(s.UserSpeaker, "User"))
		b.WriteString(": ")
		b.WriteString(s.User)
	}
	if s.Assistant != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(nameOr(s.AssistantSpeaker, "Assistant"))
		b.WriteString(": ")
		b.WriteString(s.Assistant)
	}
	return b.String()
}

// SidesOf reads back the user's and the assistant's words from a
// segment's Text when the two sides are not named speakers but roles
// ("User: ...\nAssistant: ..."), as in a conversation with an assistant;
// ok is false for any other text, a dialogue between named people
// included.
func SidesOf(text string) (user, assistant string, ok bool) {
	const u, a = "User: ", "Assistant: "
	switch {
	case strings.HasPrefix(text, u):
		rest := text[len(u):]
		if i := strings.Index(rest, "\n"+a); i >= 0 {
			return rest[:i], rest[i+1+len(a):], true
		}
		return rest, "", true
	case strings.HasPrefix(text, a):
		return "", text[len(a):], true
	}
	return "", "", false
}

func nameOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// isUser decides the side of a turn: the role when set, otherwise the first
// named speaker of the dialogue is the user.
func isUser(t Turn, firstSpeaker string) bool {
	switch t.Role {
	case RoleUser:
		return true
	case RoleAssistant:
		return false
	}
	return t.Speaker == firstSpeaker
}

// Segments cuts a dialogue into user+assistant segments. A user turn (or a
// run of them) opens a segment and the assistant turns that follow close
// it; a session that opens with the assistant yields a segment with empty
// user text. Segments never span sessions.
func Segments(d *Dialogue) []Segment {
	if d == nil {
		return nil
	}
	first := ""
	for _, s := range d.Sessions {
		for _, t := range s.Turns {
			if t.Role == "" && t.Speaker != "" {
				first = t.Speaker
				break
			}
		}
		if first != "" {
			break
		}
	}
	var out []Segment
	for si, s := range d.Sessions {
		var cur *Segment
		answered := false // the current segment has an assistant turn
		flush := func() {
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			answered = false
		}
		for ti, t := range s.Turns {
			user := isUser(t, first)
			if cur == nil || (user && answered) {
				flush()
				cur = &Segment{Index: len(out), Session: si, SessionID: s.ID, Start: s.Start, Turn: ti}
			}
			cur.Turns++
			if user {
				cur.User = joinText(cur.User, t.Text)
				if cur.UserSpeaker == "" {
					cur.UserSpeaker = t.Speaker
				}
			} else {
				answered = true
				cur.Assistant = joinText(cur.Assistant, t.Text)
				if cur.AssistantSpeaker == "" {
					cur.AssistantSpeaker = t.Speaker
				}
			}
		}
		flush()
	}
	return out
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n" + b
}
