package store

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// propKeys is the top-level properties a graph read keeps (see
// GraphParts.Keys), each also quoted as it appears in stored JSON.
type propKeys struct {
	keys, quoted []string
}

func newPropKeys(keys []string) *propKeys {
	if keys == nil {
		return nil
	}
	pk := &propKeys{keys: keys}
	for _, k := range keys {
		q, _ := json.Marshal(k)
		pk.quoted = append(pk.quoted, string(q))
	}
	return pk
}

// decode is decodeProps keeping only the keys (all of them for a nil
// set): a row that names none of them (and has no escape that could
// spell one) is not parsed at all.
func (pk *propKeys) decode(s string) map[string]any {
	if pk == nil {
		return decodeProps(s)
	}
	if !strings.Contains(s, `\`) && !slices.ContainsFunc(pk.quoted, func(q string) bool { return strings.Contains(s, q) }) {
		return nil
	}
	m := decodeProps(s)
	for k := range m {
		if !slices.Contains(pk.keys, k) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// decodeProps decodes a node's or edge's stored properties (a JSON
// object; nil for none or for a value that is not one). Loading a graph
// decodes one per row, most of them small flat objects
// ({"category":"PER","type_counts":{"Person":2}}), so those are read by
// a direct parser; anything it does not take (escapes, non-ASCII text,
// arrays, deep nesting, malformed input) goes to encoding/json, whose
// result the parser's equals wherever it answers.
func decodeProps(s string) map[string]any {
	if s == "" {
		return nil
	}
	p := propParser{s: s}
	if m, ok := p.object(0); ok && p.rest() == "" {
		return m
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

// propParser reads the plain subset of JSON decodeProps takes.
type propParser struct {
	s string
	i int
}

// maxPropDepth is the deepest object nesting the parser reads.
const maxPropDepth = 4

func (p *propParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *propParser) rest() string {
	p.space()
	return p.s[p.i:]
}

func (p *propParser) object(depth int) (map[string]any, bool) {
	p.space()
	if depth > maxPropDepth || p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, false
	}
	p.i++
	m := map[string]any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		p.space()
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, true
		default:
			return nil, false
		}
	}
}

// str reads a string of printable ASCII without escapes.
func (p *propParser) str() (string, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	for j := start; j < len(p.s); j++ {
		switch c := p.s[j]; {
		case c == '"':
			p.i = j + 1
			return p.s[start:j], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return "", false
		}
	}
	return "", false
}

func (p *propParser) value(depth int) (any, bool) {
	p.space()
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '"':
		return p.str()
	case c == '{':
		return p.object(depth + 1)
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []struct {
		text  string
		value any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.s)-p.i >= len(lit.text) && p.s[p.i:p.i+len(lit.text)] == lit.text {
			p.i += len(lit.text)
			return lit.value, true
		}
	}
	return nil, false
}

// number reads a JSON number (RFC 8259's grammar, as encoding/json
// checks it) as a float64.
func (p *propParser) number() (any, bool) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, false
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		return nil, false // out of range: encoding/json refuses it too
	}
	return f, true
}
