package schema

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestParseKAG(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want *Schema
	}{
		{
			name: "SpacesAndCJKAliases",
			src:  "namespace Med\n\nDisease(疾病): EntityType\n    desc: an illness\n    properties:\n        complication(并发症): Disease\n            constraint: MultiValue\n            index: Text\n    relations:\n        abnormal(异常指征): Disease\n",
			want: &Schema{Namespace: "Med", Types: []EntityType{{
				Name: "Disease", Alias: "疾病", Kind: KindEntity, Description: "an illness",
				Properties: []Property{{Name: "complication", Alias: "并发症", Type: "Disease", Constraint: "MultiValue", Index: "Text"}},
				Relations:  []Relation{{Name: "abnormal", Alias: "异常指征", Target: "Disease"}},
			}}},
		},
		{
			name: "TabsAndMixedIndent",
			src:  "namespace T\nApp(应用): EntityType\n\tproperties:\n\t\tinstall(安装): App\n\t\t    constraint: MultiValue\n\t\tcert(证书): Text\n    \t\tindex: Vector\n",
			want: &Schema{Namespace: "T", Types: []EntityType{{
				Name: "App", Alias: "应用", Kind: KindEntity,
				Properties: []Property{
					{Name: "install", Alias: "安装", Type: "App", Constraint: "MultiValue"},
					{Name: "cert", Alias: "证书", Type: "Text", Index: "Vector"},
				},
			}}},
		},
		{
			name: "BOMCRLFAndComments",
			src:  "\uFEFFnamespace B\r\n# a comment\r\nTax(分类): ConceptType\r\n    # nested comment\r\n    hypernymPredicate: isA\r\n",
			want: &Schema{Namespace: "B", Types: []EntityType{{Name: "Tax", Alias: "分类", Kind: KindConcept, HypernymPredicate: "isA"}}},
		},
		{
			name: "NoAliasNoNamespace",
			src:  "Event: EventType\n  properties:\n    subject: Person,Company\nPerson: EntityType\nCompany: EntityType\n",
			want: &Schema{Types: []EntityType{
				{Name: "Event", Kind: KindEvent, Properties: []Property{{Name: "subject", Type: "Person,Company"}}},
				{Name: "Person", Kind: KindEntity},
				{Name: "Company", Kind: KindEntity},
			}},
		},
		{
			name: "ParentInheritsKind",
			src:  "Launch(发布): EventType\nBigLaunch(大型发布) -> Launch:\n    desc: large\nHuge -> BigLaunch:\n",
			want: &Schema{Types: []EntityType{
				{Name: "Launch", Alias: "发布", Kind: KindEvent},
				{Name: "BigLaunch", Alias: "大型发布", Kind: KindEvent, Parent: "Launch", Description: "large"},
				{Name: "Huge", Kind: KindEvent, Parent: "BigLaunch"},
			}},
		},
		{
			name: "SemanticPrefixesAndSubProperties",
			src:  "P(人): EntityType\n  properties:\n    IND#belongTo(属于): P\n  relations:\n    fundTrans(转账): P\n      properties:\n        transAmt(金额): Integer\n          desc: amount\n",
			want: &Schema{Types: []EntityType{{
				Name: "P", Alias: "人", Kind: KindEntity,
				Properties: []Property{{Name: "IND#belongTo", Alias: "属于", Type: "P"}},
				Relations: []Relation{{Name: "fundTrans", Alias: "转账", Target: "P",
					Properties: []Property{{Name: "transAmt", Alias: "金额", Type: "Integer", Description: "amount"}}}},
			}}},
		},
		{
			name: "RuleKeptVerbatim",
			src:  "C: EntityType\n  relations:\n    r: C\n      rule: [[\n\tDefine (s:C)-[p:r]->(o:C) {\n  # not a comment inside a rule\n\n\t}\n   ]]\n      desc: after the rule\n",
			want: &Schema{Types: []EntityType{{Name: "C", Kind: KindEntity, Relations: []Relation{{
				Name: "r", Target: "C", Description: "after the rule",
				Rule: "\tDefine (s:C)-[p:r]->(o:C) {\n  # not a comment inside a rule\n\n\t}",
			}}}}},
		},
		{
			name: "RuleOnOneLineAndTextBeforeClose",
			src:  "C: EntityType\n  properties:\n    a: Float\n      rule: [[ o = 1 ]]\n    b: Float\n      rule: [[ first\n  last ]]\n",
			want: &Schema{Types: []EntityType{{Name: "C", Kind: KindEntity, Properties: []Property{
				{Name: "a", Type: "Float", Rule: "o = 1"},
				{Name: "b", Type: "Float", Rule: " first\n  last "},
			}}}},
		},
		{
			name: "PropertyNamedLikeAKeyword",
			src:  "C: EntityType\n  properties:\n    desc(描述): Text\n      index: TextAndVector\n    properties: Text\n  desc: type description\n",
			want: &Schema{Types: []EntityType{{Name: "C", Kind: KindEntity, Description: "type description", Properties: []Property{
				{Name: "desc", Alias: "描述", Type: "Text", Index: "TextAndVector"},
				{Name: "properties", Type: "Text"},
			}}}},
		},
		{
			name: "EmptyBlocks",
			src:  "Q(问题):  EntityType\n     properties:\n     relations:\n        r: Q",
			want: &Schema{Types: []EntityType{{Name: "Q", Alias: "问题", Kind: KindEntity, Relations: []Relation{{Name: "r", Target: "Q"}}}}},
		},
		{
			name: "Empty",
			src:  "",
			want: &Schema{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseKAG(strings.NewReader(tt.src))
			if err != nil {
				t.Fatalf("ParseKAG: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseKAG =\n%#v\nwant\n%#v", got, tt.want)
			}
			again, err := ParseKAGString(FormatKAG(got))
			if err != nil {
				t.Fatalf("reparse of FormatKAG: %v\n%s", err, FormatKAG(got))
			}
			if !reflect.DeepEqual(again, got) {
				t.Errorf("round trip differs:\n%#v\nwant\n%#v", again, got)
			}
		})
	}
}

func TestParseKAG_Errors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"UnknownClass", "namespace X\n\nA(甲): EntityKind\n", "line 3: type A: \"EntityKind\" is not a type class"},
		{"MissingColon", "A(甲) EntityType\n", "line 1: expected ':' after"},
		{"MissingCloseParen", "A(甲: EntityType\n", "line 1: missing ) after the alias"},
		{"NoDeclaration", "namespace X\njust words\n", "line 2: expected a declaration like Name(Alias): Type"},
		{"UnknownTypeKey", "A: EntityType\n  color: red\n", "line 2: type A: unknown key \"color\""},
		{"DeclarationAtTypeLevel", "A: EntityType\n  name(名): Text\n", "line 2: type A: expected desc:, properties:"},
		{"PropertyWithoutType", "A: EntityType\n  properties:\n    p(属性):\n", "line 3: A: property p has no type"},
		{"UnknownPropertyKey", "A: EntityType\n  properties:\n    p: Text\n      colour: red\n", "line 4: A.p: unknown key \"colour\""},
		{"IndexOnRelation", "A: EntityType\n  relations:\n    r: A\n      index: Text\n", "line 4: A.r: index: is not allowed on a relation"},
		{"DuplicateDesc", "A: EntityType\n  desc: one\n  desc: two\n", "line 3: type A: desc given twice"},
		{"DuplicateNamespace", "namespace A\nnamespace B\n", "line 2: namespace declared twice"},
		{"NamespaceWithoutName", "namespace\n", "line 1: namespace without a name"},
		{"EmptyConceptRule", "rule: [[ ]]\n", "line 1: rule: [[ ]] is empty"},
		{"EmptyRuleUnderConcept", "`Risk`/`Gambling`:\n    rule: [[\n    ]]\n", "line 2: concept `Risk`/`Gambling`: rule: [[ ]] is empty"},
		{"UnclosedRule", "A: EntityType\n  properties:\n    p: Text\n      rule: [[\n  Define x\n", "line 4: rule block opened with [[ is never closed"},
		{"TextAfterRule", "A: EntityType\n  properties:\n    p: Text\n      rule: [[\n  x\n  ]] tail\n", "line 6: unexpected text \"tail\" after ]]"},
		{"RuleAtTypeLevel", "A: EntityType\n  rule: [[ x ]]\n", "line 2: type A: a rule must sit under"},
		{"IndentedUnderDesc", "A: EntityType\n  desc: one\n    continued\n", "line 3: type A: unexpected indented line under desc:"},
		{"ArrowOnProperty", "A: EntityType\n  properties:\n    p -> A:\n", "line 3: A: -> declares a type's parent"},
		{"ParentWithoutColon", "B -> A\n", "line 1: expected ':' after the parent type"},
		{"NameWithSpace", "My Type(类型): EntityType\n", "line 1: invalid name \"My Type\""},
		{"InvalidUTF8", "namespace X\nA(\xff): EntityType\n", "line 2: text is not valid UTF-8"},
		{"ValueAfterProperties", "A: EntityType\n  properties: p\n", "line 2: type A: unexpected \"p\" after properties:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseKAGString(tt.src)
			if err == nil {
				t.Fatalf("ParseKAG succeeded, want error %q", tt.want)
			}
			var e *extract.Error
			if !errors.As(err, &e) || e.Kind != extract.KindInvalid {
				t.Fatalf("error %v is not an *extract.Error of kind invalid", err)
			}
			if !strings.HasPrefix(e.Message, tt.want) {
				t.Errorf("error = %q, want prefix %q", e.Message, tt.want)
			}
		})
	}
	t.Run("TooLarge", func(t *testing.T) {
		_, err := ParseKAG(strings.NewReader(strings.Repeat("#\n", MaxKAGSize/2+1)))
		if extract.KindOf(err) != extract.KindInvalid {
			t.Fatalf("err = %v, want kind invalid", err)
		}
	})
}

// TestParseKAG_Folder parses every shipped KAG schema, checks that printing
// and parsing again (in both forms) gives an equal schema, and that each file
// validates clean.
func TestParseKAG_Folder(t *testing.T) {
	for _, path := range kagFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := mustParseFile(t, path)
			if s.Namespace == "" || len(s.Types) == 0 {
				t.Fatalf("parsed namespace %q with %d types", s.Namespace, len(s.Types))
			}
			printed := FormatKAG(s)
			again, err := ParseKAGString(printed)
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, printed)
			}
			if !reflect.DeepEqual(again, s) {
				t.Errorf("KAG round trip differs:\n%s", printed)
			}
			if FormatKAG(again) != printed {
				t.Error("printing is not stable")
			}
			fromJSON, err := ParseJSON(FormatJSON(s))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fromJSON, s) {
				t.Error("JSON round trip differs")
			}
			for _, p := range Validate(s) {
				t.Errorf("validation: %s", p)
			}
		})
	}
}

// TestParseKAG_FolderDetails spot-checks what the parser keeps from the
// shipped files.
func TestParseKAG_FolderDetails(t *testing.T) {
	dir := kagDir(t)
	t.Run("RiskMiningRule", func(t *testing.T) {
		s := mustParseFile(t, filepath.Join(dir, "RiskMining.schema"))
		p, ok := s.Lookup("自然人")
		if !ok {
			t.Fatal("Person not found by alias")
		}
		var rule string
		for _, r := range p.Relations {
			if r.Name == "developed" {
				rule = r.Rule
			}
		}
		if !strings.HasPrefix(rule, "\t\t\t        Define (s:Person)-[p:developed]->(o:App) {") || !strings.HasSuffix(rule, "\t\t\t\t\t}") {
			t.Errorf("developed rule not kept verbatim: %q", rule)
		}
		app, _ := s.Lookup("App")
		if got := app.Properties[2]; got.Name != "IND#belongTo" || got.Type != "TaxOfRiskApp" {
			t.Errorf("App.properties[2] = %+v", got)
		}
	})
	t.Run("SupplyChainKinds", func(t *testing.T) {
		s := mustParseFile(t, filepath.Join(dir, "SupplyChain.schema"))
		counts := map[Kind]int{}
		rules := 0
		for _, ty := range s.Types {
			counts[ty.Kind]++
			for _, p := range ty.Properties {
				if p.Rule != "" {
					rules++
				}
			}
			for _, r := range ty.Relations {
				if r.Rule != "" {
					rules++
				}
			}
		}
		if counts[KindConcept] != 6 || counts[KindEvent] != 2 || rules != 13 {
			t.Errorf("kinds %v, rules %d; want 6 concepts, 2 events, 13 rules", counts, rules)
		}
	})
	t.Run("AffairQADescription", func(t *testing.T) {
		s := mustParseFile(t, filepath.Join(dir, "AffairQA.schema"))
		chunk, _ := s.Lookup("Chunk")
		if chunk.Description != "A chunk refers to a segment of text." {
			t.Errorf("Chunk description = %q", chunk.Description)
		}
	})
}

func TestFormatKAG(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "features.schema"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseKAGString(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if ps := Validate(s); len(ps) != 0 {
		t.Errorf("features.schema has problems: %v", ps)
	}
	out := FormatKAG(s)
	golden(t, "features.golden.schema", []byte(out))
	golden(t, "features.golden.json", FormatJSON(s))
	again, err := ParseKAGString(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, s) {
		t.Error("features.schema round trip differs")
	}
	t.Run("LineBreaksFolded", func(t *testing.T) {
		s := &Schema{Types: []EntityType{{Name: "A", Kind: KindEntity, Description: "two\nlines"}}}
		got, err := ParseKAGString(FormatKAG(s))
		if err != nil {
			t.Fatal(err)
		}
		if got.Types[0].Description != "two lines" {
			t.Errorf("description = %q", got.Types[0].Description)
		}
	})
	t.Run("Nil", func(t *testing.T) {
		if FormatKAG(nil) != "" {
			t.Error("FormatKAG(nil) not empty")
		}
	})
}

func FuzzParseKAG(f *testing.F) {
	for _, path := range kagFiles(f) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "features.schema")); err == nil {
		f.Add(string(b))
	}
	f.Add("A(甲): EntityType\n\tproperties:\n\t\tp: Text\n\t\t\trule: [[ x ]]\n")
	f.Add("B -> A:\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseKAGString(src)
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid || !strings.HasPrefix(extract.MessageOf(err), "line ") {
				t.Fatalf("error %v: want kind invalid with a line number", err)
			}
			return
		}
		_ = Validate(s)
		printed := FormatKAG(s)
		again, err := ParseKAGString(printed)
		if err != nil {
			t.Fatalf("reparse failed: %v\ninput %q\nprinted %q", err, src, printed)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip differs\ninput %q\nprinted %q\n%#v\n%#v", src, printed, s, again)
		}
	})
}

func BenchmarkParseKAG(b *testing.B) {
	for _, name := range []string{"AffairQA.schema", "SupplyChain.schema"} {
		src, err := os.ReadFile(filepath.Join(kagDir(b), name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := ParseKAGString(string(src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFormatKAG(b *testing.B) {
	s := mustParseFile(b, filepath.Join(kagDir(b), "AffairQA.schema"))
	for b.Loop() {
		_ = FormatKAG(s)
	}
}

func BenchmarkValidate(b *testing.B) {
	s := mustParseFile(b, filepath.Join(kagDir(b), "AffairQA.schema"))
	for b.Loop() {
		_ = Validate(s)
	}
}

// The two real schemas once refused (an alias shared by types, `index:
// None`) and the type classes BasicType and IndexType import, validate,
// export and re-import to an equal schema.
func TestParseKAG_RealWorldForms(t *testing.T) {
	src := "namespace Real\n\n" +
		"Person(人物): EntityType\n\tproperties:\n\t\tage(年龄): Integer\n\t\t\tindex: None\n\t\tdesc(描述): Text\n\t\t\tindex: TextAndVector\n\n" +
		"Actor(人物): EntityType\n\tproperties:\n\t\tworksFor(工作于): Person\n\t\tphone(电话): Phone\n\n" +
		"Phone(电话号码): BasicType\n\n" +
		"Chunk(文本块): IndexType\n\tproperties:\n\t\tcontent(内容): Text\n\n" +
		"Meeting(会议): EventType\n\tproperties:\n\t\tsubject(主体): Person,Actor\n"
	s, err := ParseKAGString(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Validate(s) {
		t.Errorf("validation: %s", p)
	}
	if s.Types[0].Alias != s.Types[1].Alias || s.Types[0].Properties[0].Index != "None" ||
		s.Types[2].Kind != KindBasic || s.Types[3].Kind != KindIndex || s.Types[4].Properties[0].Type != "Person,Actor" {
		t.Errorf("parsed %+v", s.Types)
	}
	again, err := ParseKAGString(FormatKAG(s))
	if err != nil {
		t.Fatalf("reparse: %v\n%s", err, FormatKAG(s))
	}
	if !reflect.DeepEqual(again, s) {
		t.Errorf("round trip differs:\n%s", FormatKAG(s))
	}
}
