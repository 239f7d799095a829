package schema

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// kagDir returns the folder of the KAG schema examples (see
// internal/testkit).
func kagDir(tb testing.TB) string {
	tb.Helper()
	return testkit.Path(tb, "kag-schemas")
}

// kagFiles lists the shipped .schema files; there must be some.
func kagFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(kagDir(tb), "*.schema"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no .schema files in %s", kagDir(tb))
	}
	return files
}

// mustParseFile parses a KAG file or fails the test.
func mustParseFile(tb testing.TB, path string) *Schema {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	s, err := ParseKAG(f)
	if err != nil {
		tb.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return s
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n%s", name, got)
	}
}

func TestDefault(t *testing.T) {
	d := Default()
	want := []string{"Person", "Creature", "Organization", "Location", "Event", "Concept", "Method", "Content", "Data", "Artifact", "NaturalObject"}
	if got := d.TypeNames(); !reflect.DeepEqual(got, want) {
		t.Fatalf("TypeNames() = %v, want %v", got, want)
	}
	for _, ty := range d.Types {
		if ty.Description == "" || ty.Kind != KindEntity || len(ty.Properties)+len(ty.Relations) != 0 {
			t.Errorf("type %s: want a described flat entity type, got %+v", ty.Name, ty)
		}
	}
	if ps := Validate(d); len(ps) != 0 {
		t.Errorf("Validate(Default()) = %v", ps)
	}
	// Each call returns a fresh copy.
	d.Types[0].Name = "Changed"
	if Default().Types[0].Name != "Person" {
		t.Error("Default() shares state between calls")
	}
}

func TestSchema_Lookup(t *testing.T) {
	s := mustParseFile(t, filepath.Join(kagDir(t), "Medicine.schema"))
	tests := []struct {
		name, query, want string
		ok                bool
	}{
		{"ByName", "Disease", "Disease", true},
		{"ByAlias", "疾病", "Disease", true},
		{"Qualified", "Medicine.Symptom", "Symptom", true},
		{"CaseInsensitive", "disease", "Disease", true},
		{"Blank", "  ", "", false},
		{"Missing", "Spaceship", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := s.Lookup(tt.query)
			if ok != tt.ok {
				t.Fatalf("Lookup(%q) ok = %v, want %v", tt.query, ok, tt.ok)
			}
			if ok && got.Name != tt.want {
				t.Errorf("Lookup(%q) = %s, want %s", tt.query, got.Name, tt.want)
			}
		})
	}
	t.Run("PointsIntoSchema", func(t *testing.T) {
		got, _ := s.Lookup("Symptom")
		got.Description = "edited"
		again, _ := s.Lookup("症状")
		if again.Description != "edited" {
			t.Error("Lookup result is a copy, want a pointer into Types")
		}
	})
	t.Run("NilSchema", func(t *testing.T) {
		var n *Schema
		if _, ok := n.Lookup("X"); ok || n.TypeNames() != nil {
			t.Error("nil schema should find nothing")
		}
	})
}

func TestHash(t *testing.T) {
	a := mustParseFile(t, filepath.Join(kagDir(t), "RiskMining.schema"))
	b := mustParseFile(t, filepath.Join(kagDir(t), "RiskMining.schema"))
	t.Run("SameContent", func(t *testing.T) {
		if Hash(a) != Hash(b) {
			t.Error("equal schemas hash differently")
		}
		if len(Hash(a)) != 64 {
			t.Errorf("Hash = %q, want 64 hex digits", Hash(a))
		}
	})
	t.Run("NameIgnored", func(t *testing.T) {
		b.Name = "another"
		if Hash(a) != Hash(b) {
			t.Error("the name changed the content hash")
		}
	})
	t.Run("ThroughJSONAndKAG", func(t *testing.T) {
		j, err := ParseJSON(FormatJSON(a))
		if err != nil {
			t.Fatal(err)
		}
		k, err := ParseKAGString(FormatKAG(a))
		if err != nil {
			t.Fatal(err)
		}
		if Hash(j) != Hash(a) || Hash(k) != Hash(a) {
			t.Error("hash changed after a JSON or KAG round trip")
		}
	})
	t.Run("EmptySlicesEqualNil", func(t *testing.T) {
		x := &Schema{Types: []EntityType{{Name: "A", Kind: KindEntity, Properties: []Property{}}}}
		y := &Schema{Types: []EntityType{{Name: "A", Kind: KindEntity}}}
		if Hash(x) != Hash(y) {
			t.Error("empty and nil property lists hash differently")
		}
	})
	t.Run("ContentChanges", func(t *testing.T) {
		b.Types[0].Properties = append(b.Types[0].Properties, Property{Name: "x", Type: "Text"})
		if Hash(a) == Hash(b) {
			t.Error("added property did not change the hash")
		}
	})
}

func TestProperty_MultiValue(t *testing.T) {
	tests := []struct {
		constraint string
		want       bool
	}{
		{"MultiValue", true},
		{"NotNull, multivalue", true},
		{`Enum="MultiValue,B"`, false},
		{"NotNull", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.constraint, func(t *testing.T) {
			if got := (Property{Constraint: tt.constraint}).MultiValue(); got != tt.want {
				t.Errorf("MultiValue() = %v, want %v", got, tt.want)
			}
		})
	}
}
