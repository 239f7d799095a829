package relation

import (
	"strings"
	"sync"
)

// Kind is what an entity is, as far as choosing a relation goes.
type Kind int

// The kinds of entity a phrase's relation depends on.
const (
	Any Kind = iota
	Person
	Org
	Place
	Date
	Work
)

// alias is one phrase's reading: the relation, whether it runs from the
// object to the subject ("X founded Y": Y founded by X), and the kind of
// object it needs (Any for none).
type alias struct {
	id      string
	reverse bool
	object  Kind
}

// aliases map lemmatised phrases (auxiliaries dropped, the verb in its
// base form, particles kept) to their readings, most specific first.
var aliases = map[string][]alias{
	"bear in":         {{"P569", false, Date}, {"P19", false, Place}},
	"bear on":         {{"P569", false, Date}},
	"bear at":         {{"P19", false, Place}},
	"die in":          {{"P570", false, Date}, {"P20", false, Place}},
	"die on":          {{"P570", false, Date}},
	"die at":          {{"P20", false, Place}},
	"marry":           {{"P26", false, Person}},
	"wed":             {{"P26", false, Person}},
	"wife of":         {{"P26", false, Person}},
	"husband of":      {{"P26", false, Person}},
	"son of":          {{"P40", true, Person}},
	"daughter of":     {{"P40", true, Person}},
	"child of":        {{"P40", true, Person}},
	"father of":       {{"P40", false, Person}},
	"mother of":       {{"P40", false, Person}},
	"parent of":       {{"P40", false, Person}},
	"brother of":      {{"P3373", false, Person}},
	"sister of":       {{"P3373", false, Person}},
	"sibling of":      {{"P3373", false, Person}},
	"found":           {{"P571", false, Date}, {"P112", true, Any}},
	"co-found":        {{"P112", true, Any}},
	"cofound":         {{"P112", true, Any}},
	"found in":        {{"P571", false, Date}, {"P740", false, Place}},
	"found by":        {{"P112", false, Any}},
	"establish":       {{"P571", false, Date}, {"P112", true, Any}},
	"establish in":    {{"P571", false, Date}, {"P740", false, Place}},
	"establish by":    {{"P112", false, Any}},
	"form in":         {{"P571", false, Date}, {"P740", false, Place}},
	"join":            {{"P463", false, Org}},
	"member of":       {{"P463", false, Org}},
	"play for":        {{"P54", false, Org}},
	"sign with":       {{"P264", false, Org}},
	"sign to":         {{"P264", false, Org}},
	"study at":        {{"P69", false, Org}},
	"study in":        {{"P69", false, Org}},
	"graduate from":   {{"P69", false, Org}},
	"attend":          {{"P69", false, Org}},
	"educate at":      {{"P69", false, Org}},
	"work for":        {{"P108", false, Org}},
	"work at":         {{"P108", false, Org}},
	"employ by":       {{"P108", false, Org}},
	"direct":          {{"P57", true, Any}},
	"direct by":       {{"P57", false, Person}},
	"write":           {{"P800", false, Any}},
	"write by":        {{"P50", false, Person}},
	"author of":       {{"P800", false, Any}},
	"compose":         {{"P86", true, Any}},
	"compose by":      {{"P86", false, Person}},
	"produce":         {{"P162", true, Any}},
	"produce by":      {{"P162", false, Any}},
	"create":          {{"P170", true, Any}},
	"create by":       {{"P170", false, Any}},
	"star in":         {{"P161", true, Any}},
	"appear in":       {{"P161", true, Any}},
	"perform":         {{"P175", true, Any}},
	"perform by":      {{"P175", false, Any}},
	"sing":            {{"P175", true, Any}},
	"record":          {{"P175", true, Any}},
	"record by":       {{"P175", false, Any}},
	"sing by":         {{"P175", false, Person}},
	"release in":      {{"P577", false, Date}},
	"release on":      {{"P577", false, Date}, {"P264", false, Org}},
	"release through": {{"P264", false, Org}},
	"release by":      {{"P264", false, Org}},
	"publish in":      {{"P577", false, Date}},
	"publish on":      {{"P577", false, Date}},
	"publish by":      {{"P123", false, Any}},
	"capital of":      {{"P1376", false, Place}},
	"locate in":       {{"P131", false, Place}},
	"situate in":      {{"P131", false, Place}},
	"lie in":          {{"P131", false, Place}},
	"base in":         {{"P159", false, Place}},
	"headquarter in":  {{"P159", false, Place}},
	"flow into":       {{"P403", false, Any}},
	"empty into":      {{"P403", false, Any}},
	"part of":         {{"P361", false, Any}},
	"win":             {{"P166", false, Any}},
	"receive":         {{"P166", false, Any}},
	"award":           {{"P166", false, Any}},
	"succeed":         {{"P1365", false, Any}},
	"replace":         {{"P1365", false, Any}},
	"own":             {{"P127", true, Any}},
	"own by":          {{"P127", false, Any}},
	"develop":         {{"P178", true, Any}},
	"develop by":      {{"P178", false, Any}},
	"manufacture":     {{"P176", true, Any}},
	"manufacture by":  {{"P176", false, Any}},
	"operate by":      {{"P137", false, Any}},
	"live in":         {{"P551", false, Place}},
	"reside in":       {{"P551", false, Place}},
	"settle in":       {{"P551", false, Place}},
	"move to":         {{"P551", false, Place}},
	"citizen of":      {{"P27", false, Place}},
	"influence by":    {{"P737", false, Any}},
	"participate in":  {{"P1344", false, Any}},
	"take part in":    {{"P1344", false, Any}},
	"fight in":        {{"P607", false, Any}},
	"serve in":        {{"P241", false, Org}},
}

// auxiliaries are dropped from a phrase when another word is left.
var auxiliaries = map[string]bool{"is": true, "was": true, "were": true, "are": true, "be": true, "been": true, "being": true,
	"am": true, "has": true, "have": true, "had": true, "will": true, "would": true, "shall": true, "should": true,
	"did": true, "does": true, "do": true, "also": true, "later": true, "then": true, "first": true, "the": true, "a": true, "an": true}

// verbs are the first words of the aliases.
var verbs = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for k := range aliases {
		first, _, _ := strings.Cut(k, " ")
		m[first] = true
	}
	return m
})

// irregular verbs' past forms and their base.
var irregular = map[string]string{"born": "bear", "wrote": "write", "written": "write", "won": "win", "sang": "sing", "sung": "sing",
	"led": "lead", "made": "make", "took": "take", "taken": "take", "gave": "give", "given": "give", "began": "begin",
	"held": "hold", "taught": "teach", "built": "build", "bought": "buy", "sold": "sell", "left": "leave", "met": "meet",
	"ran": "run", "drew": "draw", "fought": "fight", "spoke": "speak", "chose": "choose", "flew": "fly", "lay": "lie",
	"lies": "lie", "died": "die", "dies": "die", "wed": "wed"}

// Lemma puts a phrase between two mentions in the form the aliases use:
// lower case, auxiliaries and adverbs of time dropped, the verb in its
// base form ("was born in" -> "bear in", "co-founded" -> "co-found").
func Lemma(phrase string) string {
	words := strings.Fields(strings.ToLower(phrase))
	kept := words[:0:0]
	for _, w := range words {
		if !auxiliaries[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	kept[0] = verbBase(kept[0])
	return strings.Join(kept, " ")
}

// verbBase is a verb's base form: irregular pasts from the table, then
// -ied -> -y, -ed and -es/-s dropped, keeping a final e the alias table
// knows ("moved" -> "move", "founded" -> "found").
func verbBase(w string) string {
	if b, ok := irregular[w]; ok {
		return b
	}
	known := func(s string) bool { return verbs()[s] }
	var cands []string
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		cands = append(cands, w[:len(w)-3]+"y")
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		stem := w[:len(w)-2]
		cands = append(cands, stem, stem+"e")
		if n := len(stem); n > 2 && stem[n-1] == stem[n-2] {
			cands = append(cands, stem[:n-1]) // "starred" -> "star"
		}
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		cands = append(cands, w[:len(w)-3]+"y")
	case strings.HasSuffix(w, "es") && len(w) > 3:
		cands = append(cands, w[:len(w)-2], w[:len(w)-1])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		cands = append(cands, w[:len(w)-1])
	}
	for _, c := range cands {
		if known(c) {
			return c
		}
	}
	if len(cands) > 0 {
		return cands[0]
	}
	return w
}

// Phrase reads the phrase between a subject and an object as a standard
// relation, given the object's kind: the relation and whether the edge
// runs from the object to the subject. ok is false when no alias fits.
func Phrase(phrase string, object Kind) (r Relation, reverse, ok bool) {
	for _, a := range aliases[Lemma(phrase)] {
		if a.object == Any || a.object == object {
			r, ok = ByID(a.id)
			return r, a.reverse, ok
		}
	}
	return Relation{}, false, false
}
