package kag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// decodeList repairs the JSON in out (fences, chatter, trailing commas,
// truncation: see extract.RepairJSON), counts the repairs on res and
// returns the list under key, or the top-level list.
func decodeList(res *extract.ChunkResult, out, key string) ([]any, error) {
	s, kinds, err := extract.RepairJSON(out)
	if err != nil {
		return nil, err
	}
	res.Repairs = extract.CountRepairs(res.Repairs, kinds)
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	switch t := v.(type) {
	case []any:
		return t, nil
	case map[string]any:
		if l, ok := t[key].([]any); ok {
			return l, nil
		}
		if t[key] == nil {
			if _, has := t[key]; has {
				return nil, nil
			}
		}
		// A single object instead of a list.
		if _, ok := t["name"]; ok {
			return []any{t}, nil
		}
		if _, ok := t["subject"]; ok {
			return []any{t}, nil
		}
		return nil, fmt.Errorf("JSON has no %q list", key)
	}
	return nil, fmt.Errorf("JSON is neither an object nor a list")
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	return ""
}

// values flattens a property value into strings; nulls give none.
func values(v any) []string {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, values(e)...)
		}
		return out
	case map[string]any:
		if n := str(t["name"]); n != "" {
			return []string{n}
		}
		return nil
	}
	if s := str(v); s != "" && !strings.EqualFold(s, "null") && s != "None" {
		return []string{s}
	}
	return nil
}

// snippet is the text a parse failure quotes: a model's answer as it was
// written, an item of it as JSON (not HTML-escaped: the page escapes it),
// at most 300 bytes.
func snippet(v any) string {
	s, ok := v.(string)
	if !ok {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		s = strings.TrimSuffix(b.String(), "\n")
	}
	return extract.Clip(s, 300)
}

func fail(res *extract.ChunkResult, line, reason string) {
	res.Failures = append(res.Failures, extract.ParseFailure{Round: len(res.Calls) - 1, Line: line, Reason: reason})
}

// readItems reads NER or event output.
func (x *Extractor) readItems(res *extract.ChunkResult, out, key string, event bool) []item {
	list, err := decodeList(res, out, key)
	if err != nil {
		fail(res, snippet(out), err.Error())
		return nil
	}
	var items []item
	for _, raw := range list {
		m, ok := raw.(map[string]any)
		if !ok {
			if s := str(raw); s != "" {
				fail(res, snippet(raw), "item without a category")
			} else {
				fail(res, snippet(raw), "item is not an object")
			}
			continue
		}
		it := item{event: event, Name: str(m["name"]), Description: str(m["description"])}
		for _, k := range []string{"category", "type", "label"} {
			if it.Category = str(m[k]); it.Category != "" {
				break
			}
		}
		switch p := m["properties"].(type) {
		case []any:
			for _, e := range p {
				pm, ok := e.(map[string]any)
				if !ok {
					continue
				}
				vals := values(pm["values"])
				if vals == nil {
					vals = values(pm["value"])
				}
				if n := str(pm["name"]); n != "" && len(vals) > 0 {
					it.Props = append(it.Props, prop{n, vals})
				}
			}
		case map[string]any:
			// KAG's own layout: {category, properties: {name, description, ...}}.
			for _, k := range sortedKeys(p) {
				switch k {
				case "name":
					if it.Name == "" {
						it.Name = str(p[k])
					}
				case "description", "abstract": // abstract: KAG's event summary
					if it.Description == "" {
						it.Description = str(p[k])
					}
				default:
					if vals := values(p[k]); len(vals) > 0 {
						it.Props = append(it.Props, prop{k, vals})
					}
				}
			}
		}
		if it.Name == "" {
			fail(res, snippet(raw), "item without a name")
			continue
		}
		if it.Category == "" {
			fail(res, snippet(raw), "item without a category")
			continue
		}
		items = append(items, it)
	}
	return items
}

// readOfficial applies standardisation output to items.
func (x *Extractor) readOfficial(res *extract.ChunkResult, out string, items []item) {
	list, err := decodeList(res, out, "entities")
	if err != nil {
		fail(res, snippet(out), err.Error())
		return
	}
	official := map[string]string{}
	for _, raw := range list {
		m, ok := raw.(map[string]any)
		name, off := "", ""
		if ok {
			name, off = str(m["name"]), str(m["official_name"])
		}
		if name == "" || off == "" {
			fail(res, snippet(raw), "standardisation item needs name and official_name")
			continue
		}
		official[extract.NormalizeName(name)] = off
	}
	for i := range items {
		if off, ok := official[extract.NormalizeName(items[i].Name)]; ok {
			items[i].Official = off
		}
	}
}

// relation is one relation read from model output. SubjectType and
// ObjectType are the categories of KAG's five-element form, empty in the
// other forms.
type relation struct {
	Subject, SubjectType, Predicate, Object, ObjectType string
}

// readRelations reads relation output in any of three forms: objects
// {"subject", "predicate", "object"}, triples [subject, predicate, object],
// and KAG's five-element lists [subject, subject_category, predicate,
// object, object_category]. Every predicate goes through predicateName.
func (x *Extractor) readRelations(res *extract.ChunkResult, out string) []relation {
	list, err := decodeList(res, out, "relations")
	if err != nil {
		fail(res, snippet(out), err.Error())
		return nil
	}
	var rels []relation
	for _, raw := range list {
		var r relation
		switch t := raw.(type) {
		case map[string]any:
			r = relation{Subject: str(t["subject"]), Predicate: str(t["predicate"]), Object: str(t["object"])}
		case []any:
			switch len(t) {
			case 3:
				r = relation{Subject: str(t[0]), Predicate: str(t[1]), Object: str(t[2])}
			case 5:
				r = relation{Subject: str(t[0]), SubjectType: str(t[1]), Predicate: str(t[2]), Object: str(t[3]), ObjectType: str(t[4])}
			}
		}
		r.Predicate = predicateName(r.Predicate)
		if r.Subject == "" || r.Predicate == "" || r.Object == "" {
			fail(res, snippet(raw), "relation needs subject, predicate and object")
			continue
		}
		rels = append(rels, r)
	}
	return rels
}

// predicateName camel-cases a predicate the way KAG's builder does before it
// writes an edge (to_camel_case): every character that is not a letter or a
// digit separates words, the first word starts in lower case and each
// following word in upper case, and the words are joined, so "located in",
// "Located In", "LOCATED_IN" and "located-in" all give "locatedIn", and a
// predicate without letters or digits gives "" (refused, as KAG drops it).
// Two choices differ from KAG, which lower-cases the whole phrase first and
// keeps only ASCII letters, digits and the basic CJK block: a word already
// in mixed case keeps its inner capitals, so "worksFor" stays "worksFor" (the
// spelling schema relations use) rather than becoming "worksfor"; and
// letters of every script are kept ("née", "発行"). A word in capitals only
// is lower-cased like KAG does. Scripts without case ("发行") are unchanged.
func predicateName(p string) string {
	words := strings.FieldsFunc(p, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
	var b strings.Builder
	for i, w := range words {
		if !strings.ContainsFunc(w, unicode.IsLower) {
			w = strings.ToLower(w)
		}
		r, size := utf8.DecodeRuneInString(w)
		if i == 0 {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		b.WriteString(w[size:])
	}
	return b.String()
}
