package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// Cypher writes g as a Cypher script for cypher-shell: a uniqueness
// constraint on (:Entity {key}), one MERGE per node (label BaseLabel plus
// its type), one MATCH ... MERGE per edge (relationship type = the edge
// label sanitised as in the CSV export, see SanitizeRelType). Labels and
// types are backquoted; node labels are kept as written; values are
// single-quoted string literals with backslash escapes. Node and edge
// properties are set too: strings, booleans and numbers as literals
// (integers, and floats with integral values, as integers), lists of
// scalars of one kind as Cypher lists, maps and other lists as JSON
// strings; null values are skipped. A property named like a field is set
// as ReservedPrefix + name. Running the script twice leaves the same
// graph.
func Cypher(w io.Writer, g extract.Graph) error {
	g = prepare(g)
	np, ep := nodeProps(g), edgeProps(g)
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
		setProps(bw, "n", n.Properties, np)
		if n.Type != "" && n.Type != BaseLabel {
			bw.WriteString(" SET n:")
			bw.WriteString(CypherName(n.Type))
		}
		bw.WriteString(";\n")
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		rel := SanitizeRelType(e.Label)
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
		setProps(bw, "r", e.Properties, ep)
		bw.WriteString(";\n")
	}
	return flush(bw, "export cypher")
}

// setProps writes ", v.`name` = literal" for each property of cols the
// item has, in the order of cols (sorted, so the output is stable).
func setProps(bw *bufio.Writer, v string, props map[string]any, cols []propCol) {
	if len(props) == 0 {
		return
	}
	for _, c := range cols {
		val, ok := props[c.Name]
		if !ok {
			continue
		}
		lit, ok := cypherValue(val)
		if !ok {
			continue
		}
		bw.WriteString(", ")
		bw.WriteString(v)
		bw.WriteByte('.')
		bw.WriteString(CypherName(c.Out))
		bw.WriteString(" = ")
		bw.WriteString(lit)
	}
}

// cypherValue is the literal of a property value; ok is false for values
// written as absent (null, non-finite numbers).
func cypherValue(v any) (string, bool) {
	switch x := normalize(v).(type) {
	case nil:
		return "", false
	case string:
		return CypherString(x), true
	case bool, int64:
		return formatProp(x, kindLong)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		if isIntegral(x) {
			return strconv.FormatInt(int64(x), 10), true
		}
		return cypherFloat(x), true
	case []any:
		if lit, ok := cypherList(x); ok {
			return lit, true
		}
	}
	text, ok := jsonText(v)
	if !ok {
		return "", false
	}
	return CypherString(text), true
}

// cypherList writes a list whose elements are all strings, all booleans
// or all numbers (neo4j stores only such lists) as a Cypher list; numbers
// are all integers or, when one is not integral, all floats.
func cypherList(xs []any) (string, bool) {
	vals := make([]any, len(xs))
	class, floats := "", false
	for i, x := range xs {
		v := normalize(x)
		c := ""
		switch y := v.(type) {
		case string:
			c = "string"
		case bool:
			c = "bool"
		case int64:
			c = "number"
		case float64:
			if math.IsNaN(y) || math.IsInf(y, 0) {
				return "", false
			}
			c, floats = "number", floats || !isIntegral(y)
		default:
			return "", false // null, list or map
		}
		if class != "" && c != class {
			return "", false
		}
		class, vals[i] = c, v
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		switch y := v.(type) {
		case string:
			b.WriteString(CypherString(y))
		case bool:
			b.WriteString(strconv.FormatBool(y))
		case int64:
			if floats {
				b.WriteString(cypherFloat(float64(y)))
			} else {
				b.WriteString(strconv.FormatInt(y, 10))
			}
		case float64:
			if floats {
				b.WriteString(cypherFloat(y))
			} else {
				b.WriteString(strconv.FormatInt(int64(y), 10))
			}
		}
	}
	b.WriteByte(']')
	return b.String(), true
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
// per line, and backslashes underscores (see below); invalid UTF-8
// becomes U+FFFD.
func CypherName(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r) || r == 0x2028 || r == 0x2029:
			return ' '
		case r == '\\':
			// Neo4j reads a \uXXXX escape in a quoted name before it parses
			// the query (\u0060 would end the name), and a backslash cannot
			// be escaped there: it becomes an underscore.
			return '_'
		}
		return r
	}, s)
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
