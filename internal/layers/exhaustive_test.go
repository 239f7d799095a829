package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// enum is a named type of ours with typed constants: record.Status,
// extract.Strategy, extract.Provider, extract.Phase and the like.
type enum struct {
	pkg, name string          // import path relative to the module, type name
	values    map[string]bool // its constants' names
}

// TestSwitchesAreExhaustive fails on a switch that names a constant of one
// of our enum types in its cases but neither names every constant of that
// type nor has a default: a value added to the type later must not fall
// through such a switch unseen. Generated code (ent) is not checked.
func TestSwitchesAreExhaustive(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset, files := parseModule(t, root)

	enums := findEnums(files)
	if enums["extract/record.Status"] == nil || enums["extract.Strategy"] == nil || enums["extract.Provider"] == nil || enums["extract.Phase"] == nil {
		t.Fatalf("the enum types were not found: %v", slices.Sorted(maps.Keys(enums)))
	}

	checked := 0
	for dir, fs := range files {
		for _, f := range fs {
			checked += checkSwitches(t, fset, f, dir, enums)
		}
	}
	if checked == 0 {
		t.Fatal("no switch on an enum found: the check checks nothing")
	}
	t.Logf("%d enum types, %d switches on them", len(enums), checked)
}

// parseModule parses the module's non-test, non-generated Go files by package dir, failing the test on an error.
func parseModule(t *testing.T, root string) (*token.FileSet, map[string][]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // by package dir, relative to root
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "ent" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_templ.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		files[dir] = append(files[dir], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fset, files
}

// findEnums returns the typed constants of the files grouped by their type, keyed by "pkg.Type".
func findEnums(files map[string][]*ast.File) map[string]*enum {
	enums := map[string]*enum{} // "pkg.Type"
	for dir, fs := range files {
		for _, f := range fs {
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				var last *ast.Ident // the type an iota spec with no value repeats
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					id, _ := vs.Type.(*ast.Ident)
					switch {
					case vs.Type != nil:
						last = id
					case len(vs.Values) == 0:
						id = last
					default:
						last = nil
					}
					if id == nil || !declaresType(fs, id.Name) {
						continue
					}
					key := dir + "." + id.Name
					if enums[key] == nil {
						enums[key] = &enum{pkg: dir, name: id.Name, values: map[string]bool{}}
					}
					for _, n := range vs.Names {
						enums[key].values[n.Name] = true
					}
				}
			}
		}
	}
	return enums
}

// moduleImports maps a file's local names of the module's own packages to their dirs relative to the root.
func moduleImports(f *ast.File) map[string]string {
	imports := map[string]string{} // local name -> dir relative to root
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok {
			continue
		}
		name := rel[strings.LastIndex(rel, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = rel
	}
	return imports
}

// checkSwitches checks f's switches on an enum name all its constants or have a default, and counts them.
func checkSwitches(t *testing.T, fset *token.FileSet, f *ast.File, dir string, enums map[string]*enum) int {
	t.Helper()
	imports := moduleImports(f)
	// enumOf names the enum a case expression's constant belongs to.
	enumOf := func(e ast.Expr) (*enum, string) {
		switch x := e.(type) {
		case *ast.Ident:
			for _, en := range enums {
				if en.pkg == dir && en.values[x.Name] {
					return en, x.Name
				}
			}
		case *ast.SelectorExpr:
			if pk, ok := x.X.(*ast.Ident); ok {
				for _, en := range enums {
					if en.pkg == imports[pk.Name] && en.values[x.Sel.Name] {
						return en, x.Sel.Name
					}
				}
			}
		}
		return nil, ""
	}
	checked := 0
	ast.Inspect(f, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok || sw.Tag == nil {
			return true
		}
		named := map[*enum]map[string]bool{}
		hasDefault := false
		for _, s := range sw.Body.List {
			cc := s.(*ast.CaseClause)
			if cc.List == nil {
				hasDefault = true
			}
			for _, e := range cc.List {
				if en, v := enumOf(e); en != nil {
					if named[en] == nil {
						named[en] = map[string]bool{}
					}
					named[en][v] = true
				}
			}
		}
		for en, got := range named {
			checked++
			if hasDefault {
				continue
			}
			var missing []string
			for v := range en.values {
				if !got[v] {
					missing = append(missing, v)
				}
			}
			if len(missing) > 0 {
				sort.Strings(missing)
				t.Errorf("%s: a switch on %s.%s without a default misses %s", fset.Position(sw.Pos()), en.pkg, en.name, strings.Join(missing, ", "))
			}
		}
		return true
	})
	return checked
}

// declaresType reports whether one of a package's files declares the named
// type.
func declaresType(files []*ast.File, name string) bool {
	for _, f := range files {
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, s := range gd.Specs {
					if s.(*ast.TypeSpec).Name.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}
