package schema

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// MaxKAGSize is the largest KAG schema source, in bytes, that ParseKAG reads.
const MaxKAGSize = 8 << 20

// kindKeywords maps the DSL's type classes to kinds.
var kindKeywords = map[string]Kind{
	"EntityType":   KindEntity,
	"ConceptType":  KindConcept,
	"EventType":    KindEvent,
	"StandardType": KindStandard,
	"BasicType":    KindBasic,
	"IndexType":    KindIndex,
}

// kindKeyword returns the DSL class of a kind; unknown kinds print as
// EntityType (Validate reports them).
func kindKeyword(kind Kind) string {
	switch kind {
	case KindEntity:
		return "EntityType"
	case KindConcept:
		return "ConceptType"
	case KindEvent:
		return "EventType"
	case KindStandard:
		return "StandardType"
	case KindBasic:
		return "BasicType"
	case KindIndex:
		return "IndexType"
	}
	return "EntityType"
}

// ParseKAG reads a schema written in KAG's (OpenSPG's) `.schema` DSL:
//
//	namespace Medicine
//
//	Disease(疾病): EntityType
//	    desc: an illness
//	    properties:
//	        complication(并发症): Disease
//	            constraint: MultiValue
//	    relations:
//	        abnormal(异常指征): Indicator
//	            properties:
//	                range(指标范围): Text
//	ListedCompany(上市公司) -> Company:
//
// Nesting follows indentation (spaces, or tabs to the next multiple of four
// columns, mixed freely); lines whose first non-blank character is '#' are
// comments and are dropped; a byte-order mark and CRLF line ends are
// accepted. Logic rules (`rule: [[ ... ]]`) are kept verbatim, line by line.
// Errors are *extract.Error of kind invalid whose message starts with
// "line N: ". Semantic checks (unknown types, duplicates) are left to
// Validate.
func ParseKAG(r io.Reader) (*Schema, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxKAGSize+1))
	if err != nil {
		return nil, extract.Wrap(extract.KindInternal, err, "read KAG schema")
	}
	if len(b) > MaxKAGSize {
		return nil, extract.Errorf(extract.KindInvalid, "KAG schema is larger than %d bytes", MaxKAGSize)
	}
	return ParseKAGString(string(b))
}

// ParseKAGString is ParseKAG over a string.
func ParseKAGString(src string) (*Schema, error) {
	src = strings.TrimPrefix(src, "\uFEFF")
	if !utf8.ValidString(src) {
		line := 1 + strings.Count(src[:firstInvalidUTF8(src)], "\n")
		return nil, errAt(line, "text is not valid UTF-8")
	}
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")

	lines, err := scanLines(src)
	if err != nil {
		return nil, err
	}
	root := buildTree(lines)
	p := &kagParser{s: &Schema{}}
	for _, l := range root.children {
		if err := p.topLevel(l); err != nil {
			return nil, err
		}
	}
	resolveInheritedKinds(p.s)
	return p.s, nil
}

// kline is one logical line of DSL source: a trimmed text with its
// indentation, or a whole rule block, plus the lines nested under it.
type kline struct {
	no       int // 1-based line number
	indent   int
	text     string
	hasRule  bool // text is `rule: [[ ... ]]`; the body is in rule
	rule     string
	children []*kline
}

func errAt(line int, format string, args ...any) *extract.Error {
	return extract.Errorf(extract.KindInvalid, "line %d: %s", line, fmt.Sprintf(format, args...))
}

func firstInvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(s)
}

// indentWidth measures leading blanks: a tab advances to the next multiple
// of four columns, any other blank counts one.
func indentWidth(raw string) int {
	w := 0
	for _, r := range raw {
		switch {
		case r == '\t':
			w = (w/4 + 1) * 4
		case unicode.IsSpace(r):
			w++
		default:
			return w
		}
	}
	return w
}

// cutKey splits "key: value" where key is a bare word (no parentheses or
// blanks). ok is false for anything else, e.g. a declaration "desc(描述): Text".
func cutKey(text string) (key, value string, ok bool) {
	i := strings.IndexByte(text, ':')
	if i <= 0 {
		return "", "", false
	}
	key = text[:i]
	for _, r := range key {
		if !(r == '_' || r == '#' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return "", "", false
		}
	}
	return key, strings.TrimSpace(text[i+1:]), true
}

// scanLines turns source into logical lines, dropping blanks and comments
// and folding each `rule: [[ ... ]]` block into the line that opens it.
func scanLines(src string) ([]*kline, error) {
	raw := strings.Split(src, "\n")
	var out []*kline
	for i := 0; i < len(raw); i++ {
		text := strings.TrimSpace(raw[i])
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		l := &kline{no: i + 1, indent: indentWidth(raw[i]), text: text}
		out = append(out, l)
		key, val, ok := cutKey(text)
		if !ok || key != "rule" || !strings.HasPrefix(val, "[[") {
			continue
		}
		l.hasRule = true
		body := val[2:]
		if j := strings.Index(body, "]]"); j >= 0 {
			// The whole rule sits on one line.
			if rest := strings.TrimSpace(body[j+2:]); rest != "" {
				return nil, errAt(l.no, "unexpected text %q after ]]", clip(rest))
			}
			l.rule = strings.TrimSpace(body[:j])
			continue
		}
		var parts []string
		if strings.TrimSpace(body) != "" {
			parts = append(parts, body)
		}
		closed := false
		for k := i + 1; k < len(raw); k++ {
			j := strings.Index(raw[k], "]]")
			if j < 0 {
				parts = append(parts, raw[k])
				continue
			}
			if rest := strings.TrimSpace(raw[k][j+2:]); rest != "" {
				return nil, errAt(k+1, "unexpected text %q after ]]", clip(rest))
			}
			if before := raw[k][:j]; strings.TrimSpace(before) != "" {
				parts = append(parts, before)
			}
			i = k
			closed = true
			break
		}
		if !closed {
			return nil, errAt(l.no, "rule block opened with [[ is never closed with ]]")
		}
		l.rule = strings.Join(parts, "\n")
	}
	return out, nil
}

// clip shortens text quoted in error messages.
func clip(s string) string { return extract.Clip(s, 120) }

// buildTree nests each line under the closest preceding line with a smaller
// indentation.
func buildTree(lines []*kline) *kline {
	root := &kline{indent: -1}
	stack := []*kline{root}
	for _, l := range lines {
		for stack[len(stack)-1].indent >= l.indent {
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		parent.children = append(parent.children, l)
		stack = append(stack, l)
	}
	return root
}

// decl is a parsed declaration line: `name(alias): value` or
// `name(alias) -> parent:`.
type decl struct {
	name, alias, value, parent string
	arrow                      bool
}

func parseDecl(l *kline) (decl, error) {
	var d decl
	text := l.text
	colon := strings.IndexByte(text, ':')
	arrow := strings.Index(text, "->")
	paren := strings.IndexByte(text, '(')
	first := func(idx ...int) int {
		m := -1
		for _, i := range idx {
			if i >= 0 && (m < 0 || i < m) {
				m = i
			}
		}
		return m
	}
	var rest string
	if paren >= 0 && paren == first(paren, colon, arrow) {
		d.name = text[:paren]
		inner := text[paren+1:]
		closeAt := strings.IndexByte(inner, ')')
		if closeAt < 0 {
			return d, errAt(l.no, "missing ) after the alias in %q", clip(text))
		}
		d.alias = strings.TrimSpace(inner[:closeAt])
		if strings.ContainsRune(d.alias, '(') {
			return d, errAt(l.no, "alias %q contains (", clip(d.alias))
		}
		rest = strings.TrimSpace(inner[closeAt+1:])
	} else {
		sep := first(colon, arrow)
		if sep < 0 {
			return d, errAt(l.no, "expected a declaration like Name(Alias): Type, got %q", clip(text))
		}
		d.name = text[:sep]
		rest = text[sep:]
	}
	d.name = strings.TrimSpace(d.name)
	if d.name == "" {
		return d, errAt(l.no, "missing name in %q", clip(text))
	}
	if strings.IndexFunc(d.name, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("():[]", r) }) >= 0 || strings.Contains(d.name, "->") {
		return d, errAt(l.no, "invalid name %q", clip(d.name))
	}
	switch {
	case strings.HasPrefix(rest, ":"):
		d.value = strings.TrimSpace(rest[1:])
	case strings.HasPrefix(rest, "->"):
		d.arrow = true
		p := strings.TrimSpace(rest[2:])
		if !strings.HasSuffix(p, ":") {
			return d, errAt(l.no, "expected ':' after the parent type in %q", clip(text))
		}
		d.parent = strings.TrimSpace(strings.TrimSuffix(p, ":"))
		if d.parent == "" || strings.IndexFunc(d.parent, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("():[]", r) }) >= 0 {
			return d, errAt(l.no, "invalid parent type %q", clip(d.parent))
		}
	default:
		return d, errAt(l.no, "expected ':' after %q", clip(text[:len(text)-len(rest)]))
	}
	return d, nil
}

type kagParser struct {
	s *Schema
}

// topLevel handles an unindented line: the namespace or a type declaration.
func (p *kagParser) topLevel(l *kline) error {
	if rest, ok := strings.CutPrefix(l.text, "namespace"); ok && rest != "" && unicode.IsSpace([]rune(rest)[0]) {
		ns := strings.TrimSpace(rest)
		if strings.IndexFunc(ns, unicode.IsSpace) >= 0 {
			return errAt(l.no, "invalid namespace %q", clip(ns))
		}
		if p.s.Namespace != "" {
			return errAt(l.no, "namespace declared twice")
		}
		if len(l.children) > 0 {
			return errAt(l.children[0].no, "unexpected indented line under namespace")
		}
		p.s.Namespace = ns
		return nil
	}
	if l.text == "namespace" {
		return errAt(l.no, "namespace without a name")
	}
	if l.hasRule {
		// A rule of its own: a concept rule, its concept in its head.
		if strings.TrimSpace(l.rule) == "" {
			return errAt(l.no, "rule: [[ ]] is empty: a concept rule needs its Define (...) { ... } inside")
		}
		p.s.ConceptRules = append(p.s.ConceptRules, ConceptRule{Rule: l.rule})
		return nil
	}
	if concept, ok := conceptHead(l.text); ok {
		if len(l.children) == 0 {
			return errAt(l.no, "concept %s: no rule: [[ ... ]] under it", clip(concept))
		}
		for _, c := range l.children {
			if !c.hasRule || len(c.children) > 0 {
				return errAt(c.no, "concept %s: expected rule: [[ ... ]], got %q", clip(concept), clip(c.text))
			}
			if strings.TrimSpace(c.rule) == "" {
				return errAt(c.no, "concept %s: rule: [[ ]] is empty", clip(concept))
			}
			p.s.ConceptRules = append(p.s.ConceptRules, ConceptRule{Concept: concept, Rule: c.rule})
		}
		return nil
	}
	d, err := parseDecl(l)
	if err != nil {
		return err
	}
	t := EntityType{Name: d.name, Alias: d.alias, Parent: d.parent}
	if !d.arrow {
		kind, ok := kindKeywords[d.value]
		if !ok {
			return errAt(l.no, "type %s: %q is not a type class (expected EntityType, ConceptType, EventType, StandardType, BasicType or IndexType)", d.name, clip(d.value))
		}
		t.Kind = kind
	}
	seen := map[string]bool{}
	for _, c := range l.children {
		if c.hasRule {
			return errAt(c.no, "type %s: a rule must sit under a property or relation", t.Name)
		}
		key, val, ok := cutKey(c.text)
		if !ok {
			return errAt(c.no, "type %s: expected desc:, properties:, relations: or hypernymPredicate:, got %q", t.Name, clip(c.text))
		}
		switch key {
		case "properties", "relations":
			if val != "" {
				return errAt(c.no, "type %s: unexpected %q after %s:", t.Name, clip(val), key)
			}
		case "desc", "hypernymPredicate", "autoRelate", "spreadable", "regular":
			if seen[key] {
				return errAt(c.no, "type %s: %s given twice", t.Name, key)
			}
			seen[key] = true
			if len(c.children) > 0 {
				return errAt(c.children[0].no, "type %s: unexpected indented line under %s:", t.Name, key)
			}
		default:
			return errAt(c.no, "type %s: unknown key %q (expected desc, properties, relations, hypernymPredicate, autoRelate, spreadable or regular)", t.Name, clip(key))
		}
		switch key {
		case "desc":
			t.Description = val
		case "hypernymPredicate":
			t.HypernymPredicate = val
		case "autoRelate":
			t.AutoRelate = val
		case "spreadable":
			t.Spreadable = val
		case "regular":
			t.Regular = val
		case "properties":
			for _, pc := range c.children {
				prop, err := p.property(pc, t.Name)
				if err != nil {
					return err
				}
				t.Properties = append(t.Properties, prop)
			}
		case "relations":
			for _, rc := range c.children {
				rel, err := p.relation(rc, t.Name)
				if err != nil {
					return err
				}
				t.Relations = append(t.Relations, rel)
			}
		}
	}
	p.s.Types = append(p.s.Types, t)
	return nil
}

// conceptHead reads the head of a concept rule section, as a KAG
// `concept.rule` file writes it: "`TaxOfRiskApp`/`赌博应用`:" (the
// backticks may be left out when the names hold no special character).
func conceptHead(text string) (string, bool) {
	head, ok := strings.CutSuffix(text, ":")
	if !ok {
		return "", false
	}
	head = strings.TrimSpace(head)
	slash := strings.IndexByte(head, '/')
	if slash <= 0 || slash == len(head)-1 || strings.ContainsAny(head, "()") {
		return "", false
	}
	return head, true
}

// predicateMeta is what may sit under a property or relation declaration.
type predicateMeta struct {
	desc, constraint, index, rule string
	props                         []Property
}

func (p *kagParser) meta(l *kline, owner string, allowIndex bool) (predicateMeta, error) {
	var m predicateMeta
	seen := map[string]bool{}
	for _, c := range l.children {
		key, val, ok := cutKey(c.text)
		if c.hasRule {
			key, val, ok = "rule", c.rule, true
		}
		if !ok {
			return m, errAt(c.no, "%s: expected desc:, constraint:, index:, rule: or properties:, got %q", owner, clip(c.text))
		}
		if key != "properties" {
			if seen[key] {
				return m, errAt(c.no, "%s: %s given twice", owner, key)
			}
			seen[key] = true
			if len(c.children) > 0 {
				return m, errAt(c.children[0].no, "%s: unexpected indented line under %s:", owner, key)
			}
		}
		switch key {
		case "desc":
			m.desc = val
		case "constraint":
			m.constraint = val
		case "index":
			if !allowIndex {
				return m, errAt(c.no, "%s: index: is not allowed on a relation", owner)
			}
			m.index = val
		case "rule":
			if !c.hasRule {
				return m, errAt(c.no, "%s: a rule is written as rule: [[ ... ]]", owner)
			}
			m.rule = val
		case "properties":
			if val != "" {
				return m, errAt(c.no, "%s: unexpected %q after properties:", owner, clip(val))
			}
			for _, sc := range c.children {
				sub, err := p.property(sc, owner)
				if err != nil {
					return m, err
				}
				m.props = append(m.props, sub)
			}
		default:
			return m, errAt(c.no, "%s: unknown key %q (expected desc, constraint, index, rule or properties)", owner, clip(key))
		}
	}
	return m, nil
}

func (p *kagParser) predicate(l *kline, owner, what string) (decl, string, error) {
	if l.hasRule {
		return decl{}, "", errAt(l.no, "%s: a rule must sit under a %s", owner, what)
	}
	d, err := parseDecl(l)
	if err != nil {
		return d, "", err
	}
	if d.arrow {
		return d, "", errAt(l.no, "%s: -> declares a type's parent and cannot be used for a %s", owner, what)
	}
	if d.value == "" {
		return d, "", errAt(l.no, "%s: %s %s has no type", owner, what, d.name)
	}
	return d, owner + "." + d.name, nil
}

func (p *kagParser) property(l *kline, owner string) (Property, error) {
	d, path, err := p.predicate(l, owner, "property")
	if err != nil {
		return Property{}, err
	}
	m, err := p.meta(l, path, true)
	if err != nil {
		return Property{}, err
	}
	return Property{Name: d.name, Alias: d.alias, Type: d.value, Description: m.desc,
		Constraint: m.constraint, Index: m.index, Rule: m.rule, Properties: m.props}, nil
}

func (p *kagParser) relation(l *kline, owner string) (Relation, error) {
	d, path, err := p.predicate(l, owner, "relation")
	if err != nil {
		return Relation{}, err
	}
	m, err := p.meta(l, path, false)
	if err != nil {
		return Relation{}, err
	}
	return Relation{Name: d.name, Alias: d.alias, Target: d.value, Description: m.desc,
		Constraint: m.constraint, Rule: m.rule, Properties: m.props}, nil
}

// resolveInheritedKinds gives each `Child -> Parent:` type the kind of its
// nearest ancestor declared with a class. Unresolvable chains (a missing
// parent, a cycle) leave the kind empty; Validate reports them.
func resolveInheritedKinds(s *Schema) {
	byName := make(map[string]int, len(s.Types))
	for i, t := range s.Types {
		if _, dup := byName[t.Name]; !dup {
			byName[t.Name] = i
		}
	}
	for i := range s.Types {
		t := &s.Types[i]
		if t.Parent == "" {
			continue
		}
		cur := t.Parent
		for step := 0; step <= len(s.Types); step++ {
			j, ok := byName[strings.TrimPrefix(cur, s.Namespace+".")]
			if !ok {
				break
			}
			if s.Types[j].Parent == "" {
				t.Kind = s.Types[j].Kind
				break
			}
			cur = s.Types[j].Parent
		}
	}
}

// FormatKAG writes s in the KAG `.schema` DSL with four-space indentation.
// ParseKAG of the result gives back s, except for Name and Description,
// which the DSL cannot hold, and values Validate reports as unprintable
// (line breaks in single-line fields, "]]" inside a rule).
func FormatKAG(s *Schema) string {
	var b strings.Builder
	if s == nil {
		return ""
	}
	if s.Namespace != "" {
		b.WriteString("namespace " + oneLine(s.Namespace) + "\n")
	}
	for _, t := range s.Types {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(declHead(t.Name, t.Alias))
		if t.Parent != "" {
			b.WriteString(" -> " + oneLine(t.Parent) + ":\n")
		} else {
			b.WriteString(": " + kindKeyword(t.Kind) + "\n")
		}
		writeKey(&b, 1, "desc", t.Description)
		writeKey(&b, 1, "hypernymPredicate", t.HypernymPredicate)
		writeKey(&b, 1, "autoRelate", t.AutoRelate)
		writeKey(&b, 1, "spreadable", t.Spreadable)
		writeKey(&b, 1, "regular", t.Regular)
		if len(t.Properties) > 0 {
			b.WriteString(indent(1) + "properties:\n")
			writeProps(&b, 2, t.Properties)
		}
		if len(t.Relations) > 0 {
			b.WriteString(indent(1) + "relations:\n")
			for _, r := range t.Relations {
				b.WriteString(indent(2) + declHead(r.Name, r.Alias) + ": " + oneLine(r.Target) + "\n")
				writeKey(&b, 3, "desc", r.Description)
				writeKey(&b, 3, "constraint", r.Constraint)
				writeRule(&b, 3, r.Rule)
				if len(r.Properties) > 0 {
					b.WriteString(indent(3) + "properties:\n")
					writeProps(&b, 4, r.Properties)
				}
			}
		}
	}
	for _, c := range s.ConceptRules {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if _, ok := conceptHead(oneLine(c.Concept) + ":"); ok {
			b.WriteString(oneLine(c.Concept) + ":\n")
			writeRule(&b, 1, c.Rule)
		} else {
			writeRule(&b, 0, c.Rule)
		}
	}
	return b.String()
}

func writeProps(b *strings.Builder, level int, props []Property) {
	for _, p := range props {
		b.WriteString(indent(level) + declHead(p.Name, p.Alias) + ": " + oneLine(p.Type) + "\n")
		writeKey(b, level+1, "desc", p.Description)
		writeKey(b, level+1, "constraint", p.Constraint)
		writeKey(b, level+1, "index", p.Index)
		writeRule(b, level+1, p.Rule)
		if len(p.Properties) > 0 {
			b.WriteString(indent(level+1) + "properties:\n")
			writeProps(b, level+2, p.Properties)
		}
	}
}

func declHead(name, alias string) string {
	if alias == "" {
		return oneLine(name)
	}
	return oneLine(name) + "(" + oneLine(alias) + ")"
}

func writeKey(b *strings.Builder, level int, key, val string) {
	if val == "" {
		return
	}
	b.WriteString(indent(level) + key + ": " + oneLine(val) + "\n")
}

func writeRule(b *strings.Builder, level int, rule string) {
	if rule == "" {
		return
	}
	b.WriteString(indent(level) + "rule: [[\n")
	b.WriteString(rule)
	b.WriteString("\n" + indent(level) + "]]\n")
}

func indent(level int) string { return strings.Repeat("    ", level) }

// oneLine folds line breaks into spaces so a field cannot break the layout.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
