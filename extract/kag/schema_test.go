package kag_test

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract/kag"
	"github.com/kgstudio/kgstudio/extract/schema"
)

func TestTypesFromSchema(t *testing.T) {
	sc, err := schema.ParseKAGString("namespace T\n\nPerson(人): EntityType\n\tproperties:\n\t\tworksFor(工作于): Company\n\trelations:\n\t\tknows(认识): Person\n\nCompany: EntityType\n\nSTD.Phone: StandardType\n")
	if err != nil {
		t.Fatal(err)
	}
	got := kag.TypesFromSchema(sc)
	if len(got) != 3 {
		t.Fatalf("%d types", len(got))
	}
	p := got[0]
	if p.Name != "Person" || p.Alias != "人" || p.Kind != kag.KindEntity || len(p.Properties) != 1 || p.Properties[0].Type != "Company" ||
		len(p.Relations) != 1 || p.Relations[0].Target != "Person" {
		t.Fatalf("person: %+v", p)
	}
	if got[2].Kind != kag.KindConcept {
		t.Fatalf("a standard type should be offered as a concept: %+v", got[2])
	}
	if n := len(kag.TypesFromSchema(schema.Default())); n != 11 {
		t.Fatalf("default schema: %d types", n)
	}
}
