package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/ent/entitytype"
	"github.com/kgstudio/kgstudio/ent/relationtype"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/schema"
	"github.com/kgstudio/kgstudio/store"
)

func mustKAG(t *testing.T, src string) *schema.Schema {
	t.Helper()
	s, err := schema.ParseKAGString(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const medSchema = `namespace Med

Disease(疾病): EntityType
    properties:
        complication(并发症): Disease
            constraint: MultiValue
        symptom(症状): Symptom
    relations:
        treats(治疗): Drug
Symptom(症状): EntityType
Drug(药品): EntityType
    desc: a medicine
`

func TestStore_SaveSchema(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		sc := mustKAG(t, medSchema)
		v, created, err := s.SaveSchema(ctx, "med", 0, sc, "first")
		if err != nil || v != 1 || !created {
			t.Fatalf("first save: %d %v %v", v, created, err)
		}
		t.Run("SameContentNoNewVersion", func(t *testing.T) {
			v, created, err := s.SaveSchema(ctx, "med", 1, mustKAG(t, medSchema), "again")
			if err != nil || v != 1 || created {
				t.Fatalf("re-save: %d %v %v", v, created, err)
			}
		})
		t.Run("ChangeCreatesVersion", func(t *testing.T) {
			changed := mustKAG(t, medSchema)
			changed.Types = append(changed.Types, schema.EntityType{Name: "Gene", Kind: schema.KindEntity})
			v, created, err := s.SaveSchema(ctx, "med", 1, changed, "add Gene")
			if err != nil || v != 2 || !created {
				t.Fatalf("second save: %d %v %v", v, created, err)
			}
		})
		t.Run("LoadVersions", func(t *testing.T) {
			got, n, err := s.SchemaVersion(ctx, "med", 1)
			if err != nil || n != 1 {
				t.Fatalf("load v1: %d %v", n, err)
			}
			want := mustKAG(t, medSchema)
			want.Name = "med"
			if schema.Hash(got) != schema.Hash(want) || got.Name != "med" {
				t.Fatalf("v1 differs:\n%s", schema.FormatJSON(got))
			}
			if got.Types[0].Properties[0].Constraint != "MultiValue" || got.Types[0].Relations[0].Target != "Drug" {
				t.Fatalf("v1 lost detail: %+v", got.Types[0])
			}
			latest, n, err := s.SchemaVersion(ctx, "med", 0)
			if err != nil || n != 2 || len(latest.Types) != 4 {
				t.Fatalf("latest: %d %v %d", n, err, len(latest.Types))
			}
		})
		t.Run("History", func(t *testing.T) {
			h, err := s.SchemaVersions(ctx, "med")
			if err != nil || len(h) != 2 {
				t.Fatalf("history: %v %d", err, len(h))
			}
			if h[0].Number != 2 || h[0].Note != "add Gene" || h[0].Types != 4 || h[1].Number != 1 || h[1].Types != 3 || h[1].Note != "first" {
				t.Fatalf("history: %+v", h)
			}
			if h[0].Hash == h[1].Hash || h[0].Hash == "" {
				t.Fatalf("hashes: %q %q", h[0].Hash, h[1].Hash)
			}
		})
		t.Run("TypeRows", func(t *testing.T) {
			client := store.EntClient(s)
			n, err := client.EntityType.Query().Where(entitytype.Name("Disease")).Count(ctx)
			if err != nil || n != 2 {
				t.Fatalf("Disease rows over two versions: %d %v", n, err)
			}
			d, err := client.EntityType.Query().Where(entitytype.Name("Drug")).First(ctx)
			if err != nil || d.Alias != "药品" || d.Description != "a medicine" || d.Kind != entitytype.KindEntity {
				t.Fatalf("Drug row: %+v %v", d, err)
			}
			dis, _ := client.EntityType.Query().Where(entitytype.Name("Disease")).First(ctx)
			if len(dis.Properties) != 2 || dis.Properties[0]["type"] != "Disease" || dis.Properties[0]["constraint"] != "MultiValue" {
				t.Fatalf("Disease properties: %+v", dis.Properties)
			}
			r, err := client.RelationType.Query().Where(relationtype.Name("treats")).First(ctx)
			if err != nil || r.SourceType != "Disease" || r.TargetType != "Drug" || r.Alias != "治疗" {
				t.Fatalf("relation row: %+v %v", r, err)
			}
		})
		t.Run("List", func(t *testing.T) {
			if _, _, err := s.SaveSchema(ctx, "flat", 0, schema.Default(), ""); err != nil {
				t.Fatal(err)
			}
			list, err := s.ListSchemas(ctx)
			if err != nil || len(list) != 2 {
				t.Fatalf("list: %v %+v", err, list)
			}
			if list[0].Name != "flat" || list[0].Latest != 1 || list[0].Types != 11 || list[1].Name != "med" || list[1].Latest != 2 || list[1].Types != 4 || list[1].Versions != 2 {
				t.Fatalf("list: %+v", list)
			}
		})
		t.Run("Invalid", func(t *testing.T) {
			// (A schema's content is validated by app.Schemas.Save; the
			// store checks names and bases.)
			for _, name := range []string{"", " lead", "trail ", "x@1", "a/b", "new"} {
				if _, _, err := s.SaveSchema(ctx, name, 0, schema.Default(), ""); extract.KindOf(err) != extract.KindInvalid {
					t.Errorf("name %q: %v", name, err)
				}
			}
			h, _ := s.SchemaVersions(ctx, "med")
			if len(h) != 2 {
				t.Fatalf("a refused save created a version: %d", len(h))
			}
		})
		t.Run("NotFound", func(t *testing.T) {
			if _, _, err := s.SchemaVersion(ctx, "med", 9); extract.KindOf(err) != extract.KindNotFound {
				t.Fatalf("missing version: %v", err)
			}
			if _, _, err := s.SchemaVersion(ctx, "nope", 0); extract.KindOf(err) != extract.KindNotFound {
				t.Fatalf("missing schema: %v", err)
			}
			if _, err := s.SchemaVersions(ctx, "nope"); extract.KindOf(err) != extract.KindNotFound {
				t.Fatalf("missing history: %v", err)
			}
		})
	})
}

// describedDefault is the default schema with a description of its own, so
// that each writer saves different content.
func describedDefault(desc string) *schema.Schema {
	sc := schema.Default()
	sc.Description = desc
	return sc
}

func TestStore_SaveSchemaBase(t *testing.T) {
	t.Parallel()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			opts := b.db(t)
			s := MustOpen(t, opts)
			if _, _, err := s.SaveSchema(ctx, "flat", 0, describedDefault("start"), ""); err != nil {
				t.Fatal(err)
			}
			t.Run("Refused", func(t *testing.T) {
				if _, _, err := s.SaveSchema(ctx, "flat", 1, describedDefault("second"), ""); err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					name string
					base int
					want string
				}{
					{"Older", 1, "flat@2 was saved after @1"},
					{"NewNameExists", 0, "exists already"},
					{"Missing", 7, "flat@7 does not exist"},
				} {
					_, _, err := s.SaveSchema(ctx, "flat", c.base, describedDefault("third"), "")
					if extract.KindOf(err) != extract.KindConflict || !strings.Contains(extract.MessageOf(err), c.want) {
						t.Errorf("%s: %v", c.name, err)
					}
				}
				if _, _, err := s.SaveSchema(ctx, "flat", -2, describedDefault("third"), ""); extract.KindOf(err) != extract.KindInvalid {
					t.Errorf("negative base: %v", err)
				}
				if h, _ := s.SchemaVersions(ctx, "flat"); len(h) != 2 {
					t.Fatalf("a refused save created a version: %d", len(h))
				}
			})
			t.Run("UnchangedOnOlderBase", func(t *testing.T) {
				v, created, err := s.SaveSchema(ctx, "flat", 1, describedDefault("second"), "")
				if err != nil || created || v != 2 {
					t.Fatalf("same content as the latest: %d %v %v", v, created, err)
				}
			})
			t.Run("AnyBase", func(t *testing.T) {
				v, created, err := s.SaveSchema(ctx, "flat", store.AnyBase, describedDefault("imported"), "")
				if err != nil || !created || v != 3 {
					t.Fatalf("save without a base: %d %v %v", v, created, err)
				}
			})
			// Two writers save different content on the same base at once,
			// through one store and through two stores on one database (two
			// servers): exactly one is stored, the other is refused. The
			// first round creates the schema (base 0).
			other := MustOpen(t, opts)
			for _, pair := range []struct {
				name string
				a, b *store.Store
			}{{"OneStore", s, s}, {"TwoStores", s, other}} {
				t.Run("Concurrent"+pair.name, func(t *testing.T) {
					for round := 0; round < 5; round++ {
						base := round
						type result struct {
							version int
							created bool
							err     error
						}
						results := make([]result, 2)
						start := make(chan struct{})
						var wg sync.WaitGroup
						for i, st := range []*store.Store{pair.a, pair.b} {
							wg.Add(1)
							go func() {
								defer wg.Done()
								<-start
								desc := fmt.Sprintf("%s round %d writer %d", pair.name, round, i)
								v, created, err := st.SaveSchema(ctx, pair.name, base, describedDefault(desc), "")
								results[i] = result{v, created, err}
							}()
						}
						close(start)
						wg.Wait()
						stored, refused := 0, 0
						for _, r := range results {
							switch {
							case r.err == nil && r.created && r.version == base+1:
								stored++
							case extract.KindOf(r.err) == extract.KindConflict:
								refused++
							default:
								t.Fatalf("round %d: unexpected result %+v", round, r)
							}
						}
						if stored != 1 || refused != 1 {
							t.Fatalf("round %d: %d stored, %d refused: %+v", round, stored, refused, results)
						}
						if _, n, _ := s.SchemaVersion(ctx, pair.name, 0); n != base+1 {
							t.Fatalf("round %d: latest %d, want %d", round, n, base+1)
						}
					}
				})
			}
		})
	}
}

func TestStore_EnsureDefaultSchema(t *testing.T) {
	t.Parallel()
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for i := 0; i < 2; i++ {
			if err := s.EnsureDefaultSchema(ctx); err != nil {
				t.Fatal(err)
			}
		}
		got, n, err := s.SchemaVersion(ctx, "default", 0)
		if err != nil || n != 1 {
			t.Fatalf("default: %d %v", n, err)
		}
		if !reflect.DeepEqual(got.TypeNames(), schema.Default().TypeNames()) {
			t.Fatalf("default types: %v", got.TypeNames())
		}
		// An edited default is kept.
		edited := schema.Default()
		edited.Types = edited.Types[:3]
		if _, _, err := s.SaveSchema(ctx, "default", 1, edited, "trim"); err != nil {
			t.Fatal(err)
		}
		if err := s.EnsureDefaultSchema(ctx); err != nil {
			t.Fatal(err)
		}
		if _, n, _ := s.SchemaVersion(ctx, "default", 0); n != 2 {
			t.Fatalf("EnsureDefaultSchema changed an edited default: latest %d", n)
		}
	})
}

// TestStore_KAGFolder stores every shared KAG schema and reads it back equal.
func TestStore_KAGFolder(t *testing.T) {
	t.Parallel()
	files := testkit.Glob(t, "kag-schemas", "*.schema")
	forEachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := mustKAG(t, string(src))
			name := strings.TrimSuffix(filepath.Base(f), ".schema")
			if _, _, err := s.SaveSchema(ctx, name, 0, want, ""); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			got, _, err := s.SchemaVersion(ctx, name, 0)
			if err != nil {
				t.Fatal(err)
			}
			again, err := schema.ParseKAGString(schema.FormatKAG(got))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if !reflect.DeepEqual(again, want) {
				t.Errorf("%s: stored schema differs from the file", f)
			}
		}
	})
}
