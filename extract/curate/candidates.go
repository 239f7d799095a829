// Package curate finds and resolves duplicate entities in a graph: ranked
// duplicate candidates with the reasons that suggest them, and merges that
// fold nodes into one (their names kept as aliases).
package curate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// PropAliases is the node property holding the other names of a node (a
// list of strings): filled by the schema strategy's standardisation (the
// surface names an official name replaced) and by Merge, read by
// Candidates.
const PropAliases = extract.PropAliases

// ReasonKind is what kind of evidence a Reason is.
type ReasonKind string

// Reason kinds, strongest first.
const (
	ReasonAlias     ReasonKind = "alias"
	ReasonTitle     ReasonKind = "title"
	ReasonInitials  ReasonKind = "initials"
	ReasonPlural    ReasonKind = "plural"
	ReasonContained ReasonKind = "contained"
	ReasonVector    ReasonKind = "vector"
	ReasonNeighbors ReasonKind = "neighbours"
	ReasonType      ReasonKind = "type"
)

// Reason is one piece of evidence that two nodes are the same entity.
type Reason struct {
	Kind   ReasonKind `json:"kind"`
	Detail string     `json:"detail"`
}

// NodeRef names a node of a candidate pair.
type NodeRef struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// Candidate is a pair of nodes that may be the same entity. Keep is the
// node suggested to stay (the fuller name, then the better connected) and
// Drop the one suggested to be merged into it. Score is in (0, 1]; higher
// is more likely.
type Candidate struct {
	Keep    NodeRef  `json:"keep"`
	Drop    NodeRef  `json:"drop"`
	Score   float64  `json:"score"`
	Reasons []Reason `json:"reasons"`
}

// Options tune Candidates.
type Options struct {
	// Vectors holds a name-and-description vector per node key, where the
	// version has them; nil skips the vector signal.
	Vectors map[string][]float32
	// MinVector is the cosine similarity from which two vectors count as
	// evidence (0 means 0.9).
	MinVector float64
	// Skip reports pairs already judged "not the same"; it may be nil.
	Skip func(a, b string) bool
}

// titles are honorifics that may precede a name.
var titles = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "doctor": true, "sir": true, "madam": true,
	"lady": true, "lord": true, "prof": true, "professor": true, "rev": true, "reverend": true, "mister": true,
	"master": true, "dame": true, "st": true, "saint": true, "old": true, "young": true, "uncle": true, "aunt": true,
}

// stopwords never link two names on their own.
var stopwords = map[string]bool{"the": true, "of": true, "and": true, "a": true, "an": true, "in": true, "on": true,
	"at": true, "to": true, "for": true, "de": true, "la": true, "le": true, "von": true, "van": true}

// maxBucket bounds the nodes compared through one shared token, so a very
// common word does not make the search quadratic.
const maxBucket = 200

// info is a node prepared for matching.
type info struct {
	idx     int
	node    extract.Node
	bare    []string // name tokens without leading titles
	titled  bool
	names   map[string]bool // normalised name and aliases
	degree  int
	neighbr map[string]bool
}

// Candidates lists the likely duplicate pairs of g, best first. Pairs are
// found through a shared name token, a shared alias or (with vectors)
// similar vectors, and scored by their strongest reason, raised a little
// by every further reason and by shared neighbours. Nodes of different
// non-empty types are paired only through an alias or a vector.
func Candidates(g extract.Graph, opts Options) []Candidate {
	if opts.MinVector == 0 {
		opts.MinVector = 0.9
	}
	infos := make([]*info, len(g.Nodes))
	byKey := make(map[string]*info, len(g.Nodes))
	for i, n := range g.Nodes {
		in := prepare(i, n)
		infos[i] = in
		byKey[n.Key] = in
	}
	for _, e := range g.Edges {
		s, t := byKey[e.Source], byKey[e.Target]
		if s == nil || t == nil || s == t {
			continue
		}
		s.degree++
		t.degree++
		s.neighbr[e.Target] = true
		t.neighbr[e.Source] = true
	}
	// containers counts, per short bare name, the nodes whose bare name
	// holds it, so an ambiguous short name ("John" in many full names)
	// scores lower.
	buckets := map[string][]*info{}
	for _, in := range infos {
		seen := map[string]bool{}
		for _, tok := range in.bare {
			if !seen[tok] && !stopwords[tok] && len([]rune(tok)) > 1 {
				seen[tok] = true
				buckets[tok] = append(buckets[tok], in)
			}
		}
		for name := range in.names {
			if !seen["="+name] {
				seen["="+name] = true
				buckets["="+name] = append(buckets["="+name], in)
			}
		}
	}
	type pair struct{ a, b int }
	pairs := map[pair]bool{}
	add := func(a, b *info) {
		if a.idx == b.idx {
			return
		}
		if a.idx > b.idx {
			a, b = b, a
		}
		pairs[pair{a.idx, b.idx}] = true
	}
	for _, list := range buckets {
		if len(list) > maxBucket {
			continue
		}
		for i := range list {
			for j := i + 1; j < len(list); j++ {
				add(list[i], list[j])
			}
		}
	}
	if len(opts.Vectors) > 0 && len(infos) <= 3000 {
		for i := range infos {
			for j := i + 1; j < len(infos); j++ {
				if cosine(opts.Vectors[infos[i].node.Key], opts.Vectors[infos[j].node.Key]) >= opts.MinVector {
					add(infos[i], infos[j])
				}
			}
		}
	}
	containers := map[string]int{}
	for _, in := range infos {
		if len(in.bare) > 1 {
			for _, tok := range uniq(in.bare) {
				containers[tok]++
			}
		}
	}
	var out []Candidate
	for p := range pairs {
		a, b := infos[p.a], infos[p.b]
		if opts.Skip != nil && opts.Skip(a.node.Key, b.node.Key) {
			continue
		}
		if c, ok := score(a, b, containers, opts); ok {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if out[i].Keep.Key != out[j].Keep.Key {
			return out[i].Keep.Key < out[j].Keep.Key
		}
		return out[i].Drop.Key < out[j].Drop.Key
	})
	return out
}

// aliasDetail says how two nodes share the name n: one's name is an alias
// of the other (a surface name the schema strategy's standardisation or a
// merge recorded), or both have it as an alias.
func aliasDetail(a, b extract.Node, n string) string {
	switch {
	case extract.NormalizeName(a.Name) == n:
		return "\"" + a.Name + "\" is an alias of \"" + b.Name + "\""
	case extract.NormalizeName(b.Name) == n:
		return "\"" + b.Name + "\" is an alias of \"" + a.Name + "\""
	}
	return "both are called \"" + n + "\""
}

// prepare splits a node's name into tokens and collects its aliases.
func prepare(i int, n extract.Node) *info {
	toks := tokens(n.Name)
	bare := toks
	for len(bare) > 1 && titles[bare[0]] {
		bare = bare[1:]
	}
	in := &info{idx: i, node: n, bare: bare, titled: len(bare) < len(toks),
		names: map[string]bool{}, neighbr: map[string]bool{}}
	if k := extract.NormalizeName(n.Name); k != "" {
		in.names[k] = true
	}
	for _, a := range Aliases(n) {
		if k := extract.NormalizeName(a); k != "" {
			in.names[k] = true
		}
	}
	return in
}

// tokens splits a name into normalised words, dropping punctuation and a
// possessive "'s".
func tokens(name string) []string {
	s := extract.NormalizeName(name)
	s = strings.NewReplacer("'s ", " ", "’s ", " ").Replace(s + " ")
	f := strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	return f
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// score weighs the evidence that a and b are the same entity.
func score(a, b *info, containers map[string]int, opts Options) (Candidate, bool) {
	if memoryPath(a.node.Key) || memoryPath(b.node.Key) {
		return Candidate{}, false // dialogue memory's tree: a path is not a duplicate of its parent
	}
	if numberedSeries(a.bare, b.bare) {
		return Candidate{}, false // "Apollo 10" and "Apollo 1", "World War I" and "World War II"
	}
	var reasons []Reason
	var base float64
	hit := func(kind ReasonKind, detail string, s float64) {
		reasons = append(reasons, Reason{Kind: kind, Detail: detail})
		if s > base {
			base = s
		}
	}
	sameType := a.node.Type == "" || b.node.Type == "" || strings.EqualFold(a.node.Type, b.node.Type)
	if n := extract.NormalizeName(a.node.Name); n != "" && n == extract.NormalizeName(b.node.Name) {
		// Exactly the same name (but for case), whatever the types.
		hit(ReasonAlias, "both are named \""+a.node.Name+"\"", 0.95)
	} else {
		for n := range a.names {
			if b.names[n] {
				hit(ReasonAlias, aliasDetail(a.node, b.node, n), 0.95)
				break
			}
		}
	}
	if sameType {
		switch {
		case (a.titled || b.titled) && equalTokens(a.bare, b.bare):
			hit(ReasonTitle, "the same name with a title", 0.9)
		case (a.titled || b.titled) && titledSurname(a, b):
			// "Mrs. Cratchit" beside five Cratchits may be any of them
			// (or none: a wife beside husband and children), so the
			// evidence weakens with the full names sharing the surname.
			amb := max(1, containers[surname(a, b)])
			detail := "a title before the surname of the full name"
			if amb > 1 {
				detail += fmt.Sprintf(" (one of %d full names with it)", amb)
			}
			hit(ReasonTitle, detail, 0.85/math.Sqrt(float64(amb)))
		case initialsMatch(a.bare, b.bare) || initialsMatch(b.bare, a.bare):
			hit(ReasonInitials, "initials stand for the names", 0.8)
		case plural(a.bare, b.bare) || plural(b.bare, a.bare):
			hit(ReasonPlural, "the same name in the plural", 0.75)
		}
		short, long := a, b
		if len(short.bare) > len(long.bare) {
			short, long = long, short
		}
		if len(short.bare) < len(long.bare) && !short.titled && properName(short.node.Name) && containsRun(long.bare, short.bare) {
			amb := 1
			for _, t := range short.bare {
				amb = max(amb, containers[t])
			}
			s := 0.7 / math.Sqrt(float64(amb))
			if isLast(long.bare, short.bare) || isFirst(long.bare, short.bare) {
				s += 0.05
			}
			hit(ReasonContained, "\""+short.node.Name+"\" is part of \""+long.node.Name+"\"", s)
		}
	}
	if sim := cosine(opts.Vectors[a.node.Key], opts.Vectors[b.node.Key]); sim >= opts.MinVector && (sameType || base > 0) {
		// Close vectors alone suggest a pair only for nodes of one type,
		// and weakly: they mostly support the name evidence.
		hit(ReasonVector, "name and description vectors are close", 0.4+0.3*(sim-opts.MinVector)/(1-opts.MinVector+1e-9))
	}
	if base == 0 {
		return Candidate{}, false
	}
	shared := 0
	for k := range a.neighbr {
		if b.neighbr[k] {
			shared++
		}
	}
	total := float64(len(reasons) - 1)
	if shared > 0 {
		reasons = append(reasons, Reason{Kind: ReasonNeighbors, Detail: extract.Count(shared, "shared neighbour")})
		total += math.Min(float64(shared), 3) / 2
	}
	if !sameType {
		reasons = append(reasons, Reason{Kind: ReasonType, Detail: "types differ: " + a.node.Type + ", " + b.node.Type})
		base *= 0.7
	}
	s := base + (1-base)*(1-math.Pow(0.7, total))
	keep, drop := a, b
	if prefer(b, a) {
		keep, drop = b, a
	}
	return Candidate{Keep: ref(keep.node), Drop: ref(drop.node), Score: math.Round(s*1000) / 1000, Reasons: reasons}, true
}

// prefer reports whether x should be kept over y: the one with a type
// over an untyped one, then the one that already lists the other's name
// as an alias, then the longer untitled name, then the better connected,
// then the earlier node.
func prefer(x, y *info) bool {
	if xt, yt := x.node.Type != "", y.node.Type != ""; xt != yt {
		return xt
	}
	xa, ya := x.names[extract.NormalizeName(y.node.Name)], y.names[extract.NormalizeName(x.node.Name)]
	if xa != ya {
		return xa
	}
	if len(x.bare) != len(y.bare) {
		return len(x.bare) > len(y.bare)
	}
	if x.titled != y.titled {
		return !x.titled
	}
	xi, yi := hasInitial(x.bare), hasInitial(y.bare)
	if xi != yi {
		return !xi
	}
	if x.degree != y.degree {
		return x.degree > y.degree
	}
	return x.idx < y.idx
}

func ref(n extract.Node) NodeRef { return NodeRef{Key: n.Key, Name: n.Name, Type: n.Type} }

func equalTokens(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// plural reports whether b is a with its last word in the plural
// ("Christmas Eve", "Christmas Eves").
func plural(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	n := len(a) - 1
	return equalTokens(a[:n], b[:n]) && len(a[n]) > 2 && (b[n] == a[n]+"s" || b[n] == a[n]+"es")
}

// properName reports whether a name starts with a capital letter, as
// names of people, places and organisations do (a lower-case "seven" is
// not a short form of "seven years").
func properName(name string) bool {
	for _, r := range name {
		return unicode.IsUpper(r)
	}
	return false
}

// titledSurname: one name is a title and a single word, which is the last
// word of the other's longer name ("Mr. Scrooge", "Ebenezer Scrooge").
// surname is the one bare word of the titled node of a titledSurname
// pair.
func surname(a, b *info) string {
	if a.titled && len(a.bare) == 1 {
		return a.bare[0]
	}
	return b.bare[0]
}

func titledSurname(a, b *info) bool {
	short, long := a, b
	if !short.titled || len(short.bare) != 1 {
		short, long = b, a
	}
	return short.titled && len(short.bare) == 1 && len(long.bare) > 1 && long.bare[len(long.bare)-1] == short.bare[0]
}

// initialsMatch: a and b have as many words, at least one word of a is a
// single letter standing for b's word, and the others are equal
// ("E. Scrooge", "Ebenezer Scrooge").
func initialsMatch(a, b []string) bool {
	if len(a) != len(b) || len(a) < 2 {
		return false
	}
	initials := 0
	for i := range a {
		switch {
		case a[i] == b[i]:
		case len([]rune(a[i])) == 1 && len([]rune(b[i])) > 1 && strings.HasPrefix(b[i], a[i]):
			initials++
		default:
			return false
		}
	}
	return initials > 0
}

func hasInitial(ts []string) bool {
	for _, t := range ts {
		if len([]rune(t)) == 1 {
			return true
		}
	}
	return false
}

// containsRun reports whether short appears as consecutive words of long.
func containsRun(long, short []string) bool {
	for i := 0; i+len(short) <= len(long); i++ {
		if equalTokens(long[i:i+len(short)], short) {
			return true
		}
	}
	return false
}

func isLast(long, short []string) bool  { return equalTokens(long[len(long)-len(short):], short) }
func isFirst(long, short []string) bool { return equalTokens(long[:len(short)], short) }

// cosine is the cosine similarity of two vectors of the same length, 0
// when either is missing.
func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Aliases returns a node's other names from Properties["aliases"] (a
// string list, in its Go or its JSON decoded form, or one string).
func Aliases(n extract.Node) []string {
	switch v := n.Properties[PropAliases].(type) {
	case []string:
		return append([]string(nil), v...)
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case string:
		if v != "" {
			return []string{v}
		}
	}
	return nil
}

// memoryPath reports whether a key is a node of a dialogue memory tree:
// a path ("/User/Profile"), bare or scoped by its dialogue ("Emily:/User").
func memoryPath(key string) bool {
	return strings.HasPrefix(key, "/") || strings.Contains(key, ":/")
}

// numberedSeries reports two names of one series: the same words but for
// numbers (digits or Roman numerals) that differ ("Apollo 10", "Apollo
// 1"; "Henry VIII", "Henry VII").
func numberedSeries(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	differ := false
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		if !seriesNumber(a[i]) || !seriesNumber(b[i]) {
			return false
		}
		differ = true
	}
	return differ
}

// seriesNumber reports a token that numbers a member of a series: digits
// (with an ordinal ending: "2nd") or a Roman numeral.
func seriesNumber(t string) bool {
	t = strings.ToLower(t)
	digits := strings.TrimRight(t, "stndrh")
	if digits != "" && strings.Trim(digits, "0123456789") == "" {
		return true
	}
	return t != "" && romanNumeral.MatchString(t)
}

var romanNumeral = regexp.MustCompile(`^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$`)
