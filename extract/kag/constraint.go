package kag

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// constraints is a property's constraint text read into its parts: KAG's
// NotNull, MultiValue, Enum="A,B,C" and Regular="pattern".
type constraints struct {
	notNull, multiValue bool
	enum                []string
	regular             *regexp.Regexp
}

var (
	enumRE    = regexp.MustCompile(`(?i)enum\s*=\s*"([^"]*)"`)
	regularRE = regexp.MustCompile(`(?i)regular\s*=\s*"([^"]*)"`)
)

// parseConstraints reads a constraint text; an invalid Regular pattern is
// ignored.
func parseConstraints(s string) constraints {
	var c constraints
	if m := enumRE.FindStringSubmatch(s); m != nil {
		for _, v := range strings.Split(m[1], ",") {
			if v = strings.TrimSpace(v); v != "" {
				c.enum = append(c.enum, v)
			}
		}
		s = strings.Replace(s, m[0], "", 1)
	}
	if m := regularRE.FindStringSubmatch(s); m != nil {
		c.regular, _ = regexp.Compile(m[1])
		s = strings.Replace(s, m[0], "", 1)
	}
	for _, part := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "notnull":
			c.notNull = true
		case "multivalue":
			c.multiValue = true
		}
	}
	return c
}

// check counts the values of one property that break its constraints. A
// property holds one value unless it is MultiValue, as in KAG.
func (b *builder) check(n *extract.Node, ps *PropSpec, values []string) {
	c := parseConstraints(ps.Constraint)
	if len(values) > 1 && !c.multiValue {
		b.violate(n, ps.Name, fmt.Sprintf("%d values, but the property is not MultiValue", len(values)))
	}
	for _, v := range values {
		if len(c.enum) > 0 && !containsFold(c.enum, v) {
			b.violate(n, ps.Name, fmt.Sprintf("%q is not one of Enum %s", v, strings.Join(c.enum, ", ")))
		}
		if c.regular != nil && !c.regular.MatchString(v) {
			b.violate(n, ps.Name, fmt.Sprintf("%q does not match Regular %q", v, c.regular.String()))
		}
	}
}

// checkNotNull counts the NotNull properties an item left out.
func (b *builder) checkNotNull(n *extract.Node, spec *TypeSpec, given []prop) {
	for _, ps := range spec.Properties {
		if ps.Constraint == "" || !parseConstraints(ps.Constraint).notNull {
			continue
		}
		found := false
		for _, p := range given {
			if strings.EqualFold(p.Name, ps.Name) && len(p.Values) > 0 {
				found = true
			}
		}
		if !found {
			b.violate(n, ps.Name, "missing, but the property is NotNull")
		}
	}
}

func (b *builder) violate(n *extract.Node, prop, what string) {
	b.violations = append(b.violations, fmt.Sprintf("%s %s: %s: %s", n.Type, n.Name, prop, what))
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
