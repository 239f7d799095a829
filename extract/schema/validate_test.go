package schema

import (
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestValidate(t *testing.T) {
	base := func() *Schema {
		return &Schema{Namespace: "Med", Types: []EntityType{
			{Name: "Disease", Alias: "疾病", Kind: KindEntity,
				Properties: []Property{{Name: "symptom", Type: "Symptom"}},
				Relations:  []Relation{{Name: "treatedBy", Target: "Drug"}}},
			{Name: "Symptom", Alias: "症状", Kind: KindEntity},
			{Name: "Drug", Kind: KindEntity},
			{Name: "Dept", Kind: KindConcept, HypernymPredicate: "isA"},
		}}
	}
	tests := []struct {
		name   string
		edit   func(s *Schema)
		field  string
		substr string
	}{
		{"UnknownPropertyType", func(s *Schema) { s.Types[0].Properties[0].Type = "Symptm" },
			"types[0].properties[0].type", `property Disease.symptom refers to unknown type "Symptm"`},
		{"RelationToMissingType", func(s *Schema) { s.Types[0].Relations[0].Target = "Pill" },
			"types[0].relations[0].target", `relation Disease.treatedBy points to missing type "Pill"`},
		{"RelationToBasicType", func(s *Schema) { s.Types[0].Relations[0].Target = "Text" },
			"types[0].relations[0].target", "target Text is a value type"},
		{"DuplicateType", func(s *Schema) { s.Types = append(s.Types, EntityType{Name: "Drug", Kind: KindEntity}) },
			"types[4].name", `duplicate type "Drug" (type 3 of the schema has that name already)`},
		{"DuplicateProperty", func(s *Schema) {
			s.Types[0].Properties = append(s.Types[0].Properties, Property{Name: "symptom", Type: "Text"})
		}, "types[0].properties[1].name", `Disease: duplicate property "symptom"`},
		{"DuplicateRelation", func(s *Schema) {
			s.Types[0].Relations = append(s.Types[0].Relations, Relation{Name: "treatedBy", Target: "Drug"})
		}, "types[0].relations[1].name", "duplicate relation treatedBy to Drug"},
		{"InvalidTypeName", func(s *Schema) { s.Types[1].Name = "Bad Name" },
			"types[1].name", `type name "Bad Name" is not a valid identifier`},
		{"MissingTypeName", func(s *Schema) { s.Types[1].Name = "" }, "types[1].name", "type name is required"},
		{"InvalidPropertyName", func(s *Schema) { s.Types[0].Properties[0].Name = "1st" },
			"types[0].properties[0].name", `property name "1st" is not a valid identifier`},
		{"UnknownPrefix", func(s *Schema) { s.Types[0].Properties[0].Name = "FOO#bar" },
			"types[0].properties[0].name", "unknown semantic prefix FOO#"},
		{"InvalidNamespace", func(s *Schema) { s.Namespace = "my ns" }, "namespace", `namespace "my ns" is not a valid identifier`},
		{"BadKind", func(s *Schema) { s.Types[2].Kind = "thing" }, "types[2].kind", `kind "thing" must be one of entity, concept, event, standard, basic, index`},
		{"HypernymOnEntity", func(s *Schema) { s.Types[2].HypernymPredicate = "isA" },
			"types[2].hypernym_predicate", "only for concept types"},
		{"BadHypernym", func(s *Schema) { s.Types[3].HypernymPredicate = "kindOf" },
			"types[3].hypernym_predicate", `hypernymPredicate "kindOf" must be one of isA, locateAt, mannerOf`},
		{"BadIndex", func(s *Schema) { s.Types[0].Properties[0].Index = "Fulltext" },
			"types[0].properties[0].index", `index "Fulltext" must be one of Text, Vector, TextAndVector`},
		{"BadConstraint", func(s *Schema) { s.Types[0].Properties[0].Constraint = "MultiValue, Unique" },
			"types[0].properties[0].constraint", `unknown constraint "Unique"`},
		{"MissingParent", func(s *Schema) { s.Types[2].Parent = "Product" },
			"types[2].parent", `parent type "Product" is not declared`},
		{"ConceptParent", func(s *Schema) { s.Types[2].Parent = "Dept" },
			"types[2].parent", "parent Dept is a concept type"},
		{"SelfParent", func(s *Schema) { s.Types[2].Parent = "Drug" }, "types[2].parent", "cannot inherit from itself"},
		{"ParentCycle", func(s *Schema) { s.Types[1].Parent = "Drug"; s.Types[2].Parent = "Symptom" },
			"types[1].parent", "inheritance cycle"},
		{"RuleWithClosingBrackets", func(s *Schema) { s.Types[0].Relations[0].Rule = "x = a[b[0]]" },
			"types[0].relations[0].rule", "a rule cannot contain ]]"},
		{"MultiLineDescription", func(s *Schema) { s.Types[1].Description = "a\nb" },
			"types[1].description", "description must be a single line"},
		{"SubPropertyUnknownType", func(s *Schema) {
			s.Types[0].Relations[0].Properties = []Property{{Name: "dose", Type: "Milligram"}}
		}, "types[0].relations[0].properties[0].type", `property Disease.treatedBy.dose refers to unknown type "Milligram"`},
		{"StandardTypeName", func(s *Schema) { s.Types = append(s.Types, EntityType{Name: "Phone", Kind: KindStandard}) },
			"types[4].name", "standard type \"Phone\" must be named STD.<Name>"},
		{"MissingPropertyType", func(s *Schema) { s.Types[0].Properties[0].Type = " " },
			"types[0].properties[0].type", "property Disease.symptom: type is required"},
	}
	if ps := Validate(base()); len(ps) != 0 {
		t.Fatalf("base schema has problems: %v", ps)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.edit(s)
			ps := Validate(s)
			for _, p := range ps {
				if p.Field == tt.field && strings.Contains(p.Message, tt.substr) {
					return
				}
			}
			t.Errorf("want problem %s: ...%s..., got %v", tt.field, tt.substr, ps)
		})
	}
}

func TestValidate_LegitimateReferences(t *testing.T) {
	s := &Schema{Namespace: "Ns", Types: []EntityType{
		{Name: "A", Kind: KindEntity, Properties: []Property{
			{Name: "phone", Type: "STD.ChinaMobile", Constraint: `NotNull, Enum="x,y", Regular="^a+$"`},
			{Name: "n", Type: "Integer"}, {Name: "f", Type: "Float"}, {Name: "b", Type: "Boolean"}, {Name: "d", Type: "Date"},
			{Name: "self", Type: "Ns.A"},
			{Name: "IND#belongTo", Type: "T"},
		}},
		{Name: "T", Kind: KindConcept, HypernymPredicate: "locateAt", AutoRelate: "T"},
		{Name: "E", Kind: KindEvent, Properties: []Property{{Name: "subject", Type: "A, B"}}},
		{Name: "B", Kind: KindEntity, Parent: "A"},
		{Name: "STD.Mail", Kind: KindStandard, Spreadable: "True", Regular: ".+@.+"},
	}}
	if ps := Validate(s); len(ps) != 0 {
		t.Errorf("Validate = %v, want none", ps)
	}
}

func TestProblemsError(t *testing.T) {
	if ProblemsError(nil) != nil {
		t.Error("no problems should give nil")
	}
	var ps []Problem
	for i := 0; i < 7; i++ {
		ps = append(ps, Problem{Field: "types[0].name", Message: "bad"})
	}
	err := ProblemsError(ps)
	if extract.KindOf(err) != extract.KindInvalid || !strings.HasSuffix(err.Error(), "and 2 more") {
		t.Errorf("ProblemsError = %v", err)
	}
}

func TestWarnings(t *testing.T) {
	s, err := ParseKAGString("namespace W\n\nField(领域): ConceptType\n\tproperties:\n\t\tsize: Integer\n\n" +
		"Phone: StandardType\n\trelations:\n\t\tcalls: Phone\n\n" +
		"Meeting: EventType\n\tproperties:\n\t\twhen: Text\n\n" +
		"Person: EntityType\n\tproperties:\n\t\tname: Text\n\n" +
		"Talk: EventType\n\tproperties:\n\t\tsubject: Person\n")
	if err != nil {
		t.Fatal(err)
	}
	got := Warnings(s)
	want := []string{"types[0].properties", "types[1].relations", "types[2].properties", "types[3].properties[0].name"}
	if len(got) != len(want) {
		t.Fatalf("warnings %v", got)
	}
	for i, w := range want {
		if got[i].Field != w {
			t.Errorf("warning %d at %s (%s), want %s", i, got[i].Field, got[i].Message, w)
		}
	}
}
