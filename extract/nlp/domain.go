package nlp

import (
	"context"
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
)

// WithDomain returns the extractor with the names of a domain graph as a
// gazetteer, as KAG's extractor adds its external graph's NER to the
// model's: wherever a chunk names a domain entity (by name or alias) it
// is recognised under the domain's name and type, before any other pass's
// guess at that place. The receiver is unchanged and shared (its models
// and document tables are not copied). A nil domain gives e itself.
func (e *Extractor) WithDomain(d *extract.Domain) extract.Extractor {
	if d == nil {
		return e
	}
	return domainExtractor{e: e, domain: d}
}

var _ extract.DomainAware = (*Extractor)(nil)

// domainExtractor is an Extractor with a domain gazetteer.
type domainExtractor struct {
	e      *Extractor
	domain *extract.Domain
}

// Extract implements extract.Extractor.
func (x domainExtractor) Extract(ctx context.Context, doc extract.Document, chunk extract.Chunk) (extract.ChunkResult, error) {
	return x.e.extract(ctx, doc, chunk, x.domain)
}

// domainEntities puts the domain's matches in text among ents: an entity
// another pass found where a domain name stands gives way to it. The
// result is in text order.
func domainEntities(text string, ents []entity, sents []span, d *extract.Domain) []entity {
	ms := d.Find(text)
	if len(ms) == 0 {
		return ents
	}
	out := make([]entity, 0, len(ents)+len(ms))
	for _, en := range ents {
		i := sort.Search(len(ms), func(i int) bool { return ms[i].End > en.start })
		if i < len(ms) && ms[i].Start < en.end {
			continue // overlaps a domain name
		}
		out = append(out, en)
	}
	for _, m := range ms {
		out = append(out, entity{start: m.Start, end: m.End, name: m.Entity.Name, typ: m.Entity.Type,
			cat: domainCategory(m.Entity.Type), typed: true, strong: true, ev: evName, prio: prioQuoted,
			sent: sentAt(sents, m.Start), tokFirst: -1, tokLast: -1})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// domainCategory is the kind of name a domain type stands for, which the
// edge rules read (dates and numbers are linked sparingly): a person,
// organisation, place, date or event type by its name, anything else a
// concept.
func domainCategory(typ string) category {
	t := strings.ToLower(typ)
	switch {
	case strings.Contains(t, "person") || strings.Contains(t, "people") || t == "human":
		return catPerson
	case strings.Contains(t, "organization") || strings.Contains(t, "organisation") || strings.Contains(t, "company"):
		return catOrg
	case strings.Contains(t, "location") || strings.Contains(t, "place") || strings.Contains(t, "city") || strings.Contains(t, "country"):
		return catLocation
	case t == "date" || t == "time":
		return catDate
	case strings.Contains(t, "event"):
		return catEvent
	}
	return catMisc
}
