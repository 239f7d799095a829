package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// Cypher writes g as a Cypher script for cypher-shell: a uniqueness
// constraint on (:Entity {key}), one MERGE per node (label BaseLabel plus
// its type), one MATCH ... MERGE per edge (relationship type = the edge
// label, or DefaultRelType when empty). Labels and types are backquoted and
// kept as written; values are single-quoted string literals with
// backslash escapes. Scalar properties (strings, numbers, booleans) are set
// too; other property values are skipped. Running the script twice leaves
// the same graph.
func Cypher(w io.Writer, g extract.Graph) error {
	g = prepare(g)
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "// kgstudio graph: %d nodes, %d edges\n", len(g.Nodes), len(g.Edges))
	fmt.Fprintf(bw, "CREATE CONSTRAINT kgstudio_entity_key IF NOT EXISTS FOR (n:%s) REQUIRE n.key IS UNIQUE;\n", BaseLabel)
	for i := range g.Nodes {
		n := &g.Nodes[i]
		bw.WriteString("MERGE (n:")
		bw.WriteString(BaseLabel)
		bw.WriteString(" {key: ")
		bw.WriteString(CypherString(n.Key))
		bw.WriteString("}) SET n.name = ")
		bw.WriteString(CypherString(n.Name))
		bw.WriteString(", n.type = ")
		bw.WriteString(CypherString(n.Type))
		bw.WriteString(", n.description = ")
		bw.WriteString(CypherString(n.Description))
		setProps(bw, "n", n.Properties, nodeFields)
		if n.Type != "" && n.Type != BaseLabel {
			bw.WriteString(" SET n:")
			bw.WriteString(CypherName(n.Type))
		}
		bw.WriteString(";\n")
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		rel := e.Label
		if strings.TrimSpace(rel) == "" {
			rel = DefaultRelType
		}
		bw.WriteString("MATCH (a:")
		bw.WriteString(BaseLabel)
		bw.WriteString(" {key: ")
		bw.WriteString(CypherString(e.Source))
		bw.WriteString("}), (b:")
		bw.WriteString(BaseLabel)
		bw.WriteString(" {key: ")
		bw.WriteString(CypherString(e.Target))
		bw.WriteString("}) MERGE (a)-[r:")
		bw.WriteString(CypherName(rel))
		bw.WriteString("]->(b) SET r.keywords = ")
		bw.WriteString(CypherString(e.Keywords))
		bw.WriteString(", r.description = ")
		bw.WriteString(CypherString(e.Description))
		bw.WriteString(", r.weight = ")
		bw.WriteString(cypherFloat(e.Weight))
		setProps(bw, "r", e.Properties, edgeFields)
		bw.WriteString(";\n")
	}
	return flush(bw, "export cypher")
}

// Property names written from the struct fields; properties with the same
// name are skipped so they cannot overwrite them.
var (
	nodeFields = map[string]bool{"key": true, "name": true, "type": true, "description": true}
	edgeFields = map[string]bool{"keywords": true, "description": true, "weight": true}
)

// setProps writes ", v.`name` = literal" for each scalar property, sorted
// by name so the output is stable.
func setProps(bw *bufio.Writer, v string, props map[string]any, reserved map[string]bool) {
	if len(props) == 0 {
		return
	}
	names := make([]string, 0, len(props))
	for k := range props {
		if !reserved[k] && k != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		lit, ok := cypherValue(props[k])
		if !ok {
			continue
		}
		bw.WriteString(", ")
		bw.WriteString(v)
		bw.WriteByte('.')
		bw.WriteString(CypherName(k))
		bw.WriteString(" = ")
		bw.WriteString(lit)
	}
}

func cypherValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return CypherString(x), true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return cypherFloat(x), true
	}
	return "", false
}

// cypherFloat writes a float literal that Cypher reads as a float (with a
// decimal point or exponent); non-finite values become 0.0.
func cypherFloat(f float64) string {
	s := strconv.FormatFloat(finite(f), 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// CypherString quotes s as a Cypher string literal: single quotes, with
// backslash escapes for the backslash, both quote characters, tab,
// newline, carriage return, backspace and form feed, and \uXXXX for the
// other control characters. Invalid UTF-8 bytes become U+FFFD.
func CypherString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '"':
			b.WriteString(`\"`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 {
				fmt.Fprintf(&b, `\u%04X`, r)
				continue
			}
			b.WriteRune(r) // utf8.RuneError for invalid bytes
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// CypherName backquotes a label, relationship type or property name, with
// backticks doubled. Backquoted names have no other escapes, so control
// characters (line breaks, tabs, NUL) become spaces, keeping one statement
// per line; invalid UTF-8 becomes U+FFFD.
func CypherName(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
