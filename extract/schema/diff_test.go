package schema

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	base := func() *Schema {
		return &Schema{Namespace: "Med", Types: []EntityType{
			{Name: "Disease", Alias: "疾病", Kind: KindEntity,
				Properties: []Property{
					{Name: "symptom", Type: "Symptom", Constraint: "MultiValue"},
					{Name: "desc", Type: "Text", Properties: []Property{{Name: "conf", Type: "Float"}}},
				},
				Relations: []Relation{{Name: "treatedBy", Target: "Drug"}, {Name: "near", Target: "Disease"}, {Name: "near", Target: "Symptom"}}},
			{Name: "Symptom", Kind: KindEntity},
			{Name: "Drug", Kind: KindEntity},
		}}
	}
	tests := []struct {
		name string
		edit func(s *Schema)
		want []Change
	}{
		{"Equal", func(s *Schema) {}, nil},
		{"TypeAdded", func(s *Schema) { s.Types = append(s.Types, EntityType{Name: "Gene", Kind: KindEntity}) },
			[]Change{{Op: OpAdded, Element: ElemType, Type: "Gene"}}},
		{"TypeRemoved", func(s *Schema) { s.Types = s.Types[:2] },
			[]Change{{Op: OpRemoved, Element: ElemType, Type: "Drug"}}},
		{"TypeChanged", func(s *Schema) { s.Types[1].Alias = "症状"; s.Types[1].Kind = KindConcept },
			[]Change{{Op: OpChanged, Element: ElemType, Type: "Symptom", Fields: []FieldChange{
				{Field: "alias", Old: "", New: "症状"}, {Field: "kind", Old: "entity", New: "concept"}}}}},
		{"PropertyChanged", func(s *Schema) { s.Types[0].Properties[0].Constraint = ""; s.Types[0].Properties[0].Index = "Text" },
			[]Change{{Op: OpChanged, Element: ElemProperty, Type: "Disease", Name: "symptom", Fields: []FieldChange{
				{Field: "constraint", Old: "MultiValue", New: ""}, {Field: "index", Old: "", New: "Text"}}}}},
		{"PropertyAddedAndRemoved", func(s *Schema) { s.Types[0].Properties[0].Name = "symptoms" },
			[]Change{
				{Op: OpRemoved, Element: ElemProperty, Type: "Disease", Name: "symptom"},
				{Op: OpAdded, Element: ElemProperty, Type: "Disease", Name: "symptoms"},
			}},
		{"SubPropertyChanged", func(s *Schema) { s.Types[0].Properties[1].Properties[0].Type = "Integer" },
			[]Change{{Op: OpChanged, Element: ElemProperty, Type: "Disease", Name: "desc.conf", Fields: []FieldChange{
				{Field: "type", Old: "Float", New: "Integer"}}}}},
		{"RelationTargetChanged", func(s *Schema) { s.Types[0].Relations[0].Target = "Symptom" },
			[]Change{{Op: OpChanged, Element: ElemRelation, Type: "Disease", Name: "treatedBy", Fields: []FieldChange{
				{Field: "target", Old: "Drug", New: "Symptom"}}}}},
		{"RepeatedRelationRemoved", func(s *Schema) { s.Types[0].Relations = s.Types[0].Relations[:2] },
			[]Change{{Op: OpRemoved, Element: ElemRelation, Type: "Disease", Name: "near"}}},
		{"RelationPropertyAdded", func(s *Schema) {
			s.Types[0].Relations[0].Properties = []Property{{Name: "dose", Type: "Text"}}
		}, []Change{{Op: OpAdded, Element: ElemProperty, Type: "Disease", Name: "treatedBy->Drug.dose"}}},
		{"NamespaceChanged", func(s *Schema) { s.Namespace = "Medical" },
			[]Change{{Op: OpChanged, Element: ElemSchema, Fields: []FieldChange{{Field: "namespace", Old: "Med", New: "Medical"}}}}},
		{"RuleChanged", func(s *Schema) { s.Types[0].Relations[1].Rule = "Define x" },
			[]Change{{Op: OpChanged, Element: ElemRelation, Type: "Disease", Name: "near", Fields: []FieldChange{
				{Field: "rule", Old: "", New: "Define x"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base()
			tt.edit(b)
			got := Diff(base(), b)
			if !reflect.DeepEqual(got.Items, tt.want) {
				t.Errorf("Diff =\n%v\nwant\n%v", got.Items, tt.want)
			}
			if got.Empty() != (len(tt.want) == 0) {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}

func TestDiff_Files(t *testing.T) {
	dir := kagDir(t)
	hotpot := mustParseFile(t, filepath.Join(dir, "HotpotQA.schema"))
	t.Run("SameFile", func(t *testing.T) {
		if d := Diff(hotpot, mustParseFile(t, filepath.Join(dir, "HotpotQA.schema"))); !d.Empty() {
			t.Errorf("diff of a file with itself: %v", d.Items)
		}
	})
	t.Run("AgainstNil", func(t *testing.T) {
		d := Diff(nil, hotpot)
		if d.Count(ElemType, OpAdded) != len(hotpot.Types) || d.Count(ElemSchema, OpChanged) != 1 {
			t.Errorf("diff from nothing: %v", d.Items)
		}
		if Diff(hotpot, nil).Count(ElemType, OpRemoved) != len(hotpot.Types) {
			t.Error("diff to nothing should remove every type")
		}
	})
	t.Run("String", func(t *testing.T) {
		c := Change{Op: OpChanged, Element: ElemProperty, Type: "Disease", Name: "symptom", Fields: []FieldChange{{Field: "type", Old: "A", New: "B"}}}
		if got, want := c.String(), `changed property Disease.symptom: type "A" -> "B"`; got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	})
}
