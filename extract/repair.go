package extract

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonrepair"
)

// Repair is a kind of repair RepairJSON made to a model's JSON.
type Repair string

// Kinds of repair RepairJSON reports.
const (
	RepairFence         Repair = "code fence"
	RepairTrailingComma Repair = "trailing comma"
	RepairSingleQuotes  Repair = "single quotes"
	RepairComment       Repair = "comment"
	RepairUnquotedKey   Repair = "unquoted key"
	RepairTruncated     Repair = "truncated"
	RepairOther         Repair = "other"
)

// RepairJSON finds the first JSON object or list in a model answer and
// returns it as strict JSON, with the repairs it needed. It drops thinking
// blocks, a byte-order mark, a markdown code fence and prose around the
// JSON; it fixes trailing commas, single-quoted strings, comments and
// unquoted keys (with github.com/kaptinlin/jsonrepair, a Go port of the
// jsonrepair library); and it cuts truncated output back to its last
// complete list item or top-level member before closing what is open, so
// every complete item is kept and no half item is invented. Each repair is
// named once, in the order of the constants above. An answer without any
// JSON, or one no repair makes valid, is an error.
func RepairJSON(out string) (string, []Repair, error) {
	s := strings.TrimPrefix(strings.TrimSpace(StripReasoning(out)), "\ufeff")
	var kinds []Repair
	if body, ok := fenced(s); ok {
		kinds = append(kinds, RepairFence)
		s = body
	}
	start := strings.IndexAny(s, "{[")
	if start < 0 {
		return "", nil, fmt.Errorf("no JSON in output")
	}
	s = s[start:]
	// Strict JSON first: prose after the value is ignored.
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err == nil {
		return string(raw), kinds, nil
	}
	sc := scanJSON(s)
	text := s[:sc.end]
	if sc.truncated {
		kinds = append(kinds, RepairTruncated)
		if sc.lastComplete > 0 {
			text = s[:sc.lastComplete]
		}
	}
	found := len(kinds)
	for _, k := range []struct {
		on   bool
		name Repair
	}{{sc.trailingComma, RepairTrailingComma}, {sc.singleQuotes, RepairSingleQuotes}, {sc.comment, RepairComment}, {sc.unquotedKey, RepairUnquotedKey}} {
		if k.on {
			kinds = append(kinds, k.name)
		}
	}
	fixed, err := jsonrepair.Repair(text)
	if err != nil || !json.Valid([]byte(fixed)) {
		if err == nil {
			err = fmt.Errorf("repair gave invalid JSON")
		}
		return "", nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if len(kinds) == found && !sc.truncated {
		kinds = append(kinds, RepairOther)
	}
	// Reorder so the names follow the constants' order.
	return fixed, orderRepairs(kinds), nil
}

// CountRepairs adds kinds to a per-kind count, creating the map if needed.
func CountRepairs(m map[string]int, kinds []Repair) map[string]int {
	if len(kinds) == 0 {
		return m
	}
	if m == nil {
		m = map[string]int{}
	}
	for _, k := range kinds {
		m[string(k)]++
	}
	return m
}

var repairOrder = []Repair{RepairFence, RepairTrailingComma, RepairSingleQuotes, RepairComment, RepairUnquotedKey, RepairTruncated, RepairOther}

func orderRepairs(kinds []Repair) []Repair {
	has := map[Repair]bool{}
	for _, k := range kinds {
		has[k] = true
	}
	out := make([]Repair, 0, len(kinds))
	for _, k := range repairOrder {
		if has[k] {
			out = append(out, k)
		}
	}
	return out
}

// fenced returns the body of the first markdown code fence in s.
func fenced(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return "", false
	}
	rest := s[i+3:]
	// Skip the info string ("json", "JSON5", ...) up to the line end.
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
		rest = rest[nl+1:]
	}
	if j := strings.Index(rest, "```"); j >= 0 {
		rest = rest[:j]
	}
	if !strings.ContainsAny(rest, "{[") {
		return "", false
	}
	return rest, true
}

// jsonScan is what a lenient scan of a JSON-like text found.
type jsonScan struct {
	end                                               int // just past the first complete top-level value, or len(s)
	lastComplete                                      int // just past the last complete list item or top-level member
	truncated                                         bool
	trailingComma, singleQuotes, comment, unquotedKey bool
}

// scanJSON walks s (which starts with '{' or '[') as lenient JSON: strings
// in double or single quotes, comments, bare words.
func scanJSON(s string) jsonScan {
	sc := jsonScan{end: len(s)}
	var stack []byte
	lastSig := byte(0) // last significant byte outside strings and comments
	expectKey := false
	complete := func(i int, scalar bool) {
		// A value just ended at i: remember it when it is a list item or
		// a member of the top-level object; a scalar in a list of lists
		// (a triple) is only part of an item.
		n := len(stack)
		if n == 0 || stack[n-1] != '[' && n != 1 {
			return
		}
		if scalar && n >= 2 && stack[n-1] == '[' && stack[n-2] == '[' {
			return
		}
		sc.lastComplete = i
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			if c == '\'' {
				sc.singleQuotes = true
			}
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				sc.truncated = true
				return sc
			}
			i = j
			if !expectKey {
				complete(i+1, true)
			}
			expectKey = false
			lastSig = '"'
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			sc.comment = true
			nl := strings.IndexByte(s[i:], '\n')
			if nl < 0 {
				i = len(s)
			} else {
				i += nl
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			sc.comment = true
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				i = len(s)
			} else {
				i += e + 3
			}
		case c == '{' || c == '[':
			if c == '[' && (len(stack) == 0 || len(stack) == 1 && stack[0] == '{') {
				// An empty list of the top level is complete as well.
				sc.lastComplete = i + 1
			}
			stack = append(stack, c)
			expectKey = c == '{'
			lastSig = c
		case c == '}' || c == ']':
			if lastSig == ',' {
				sc.trailingComma = true
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 0 {
				sc.end = i + 1
				return sc
			}
			complete(i+1, false)
			expectKey = false
			lastSig = c
		case c == ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			lastSig = c
		case c == ':':
			expectKey = false
			lastSig = c
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			if expectKey && (c == '_' || c == '$' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0x80) {
				sc.unquotedKey = true
			}
			// A bare word or number: skip to its end.
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n,:]}", rune(s[j])) {
				j++
			}
			if !expectKey && j < len(s) {
				complete(j, true)
			}
			expectKey = false
			i = j - 1
			lastSig = 'a'
		}
	}
	if len(stack) > 0 {
		sc.truncated = true
	}
	return sc
}
