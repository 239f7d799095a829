package layers

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/kgstudio/kgstudio"

// rules say which of our packages a package may not import (its own
// files, and its tests' where tests is set): handlers and commands reach
// the product through app, never the store or the generated client, and
// so do their tests, which set up and look at what the application holds
// through app's services too; the domain (extract and its subpackages)
// imports only the domain; the store knows nothing of what is built on
// it.
var rules = []struct {
	pkg       string // a package, or a prefix ending in "/"
	forbidden []string
	onlyOwn   string // when set, our imports must start with it
	tests     bool   // the rule holds for the package's _test.go files too
}{
	{pkg: "handlers", forbidden: []string{"store", "ent"}, tests: true},
	{pkg: "cmd/", forbidden: []string{"store", "ent"}, tests: true},
	{pkg: "web", forbidden: []string{"store", "ent", "app", "handlers"}},
	{pkg: "app", forbidden: []string{"handlers", "web", "cmd/", "ent"}},
	{pkg: "store", forbidden: []string{"app", "handlers", "web", "cmd/"}},
	{pkg: "extract", onlyOwn: "extract"},
}

// TestImportsPointOneWay lists every package of the module with the
// packages it imports, and those its tests import (go list), and fails on
// an import the rules forbid.
func TestImportsPointOneWay(t *testing.T) {
	// One line per package: its path, then its files' imports, then
	// after "|" its test files' (in the package and in package _test).
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{join .Imports " "}} | {{join .TestImports " "}} {{join .XTestImports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked, testsChecked := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		own, tests, _ := strings.Cut(line, "|")
		fields := strings.Fields(own)
		pkg, ok := ours(fields[0])
		if !ok {
			continue
		}
		for _, r := range rules {
			if !matches(pkg, r.pkg) {
				continue
			}
			checked++
			check := func(of string, imports []string) {
				for _, imp := range imports {
					dep, ok := ours(imp)
					if !ok || dep == pkg {
						continue // package _test imports the package it tests
					}
					if r.onlyOwn != "" && dep != r.onlyOwn && !strings.HasPrefix(dep, r.onlyOwn+"/") {
						t.Errorf("%s imports %s: the domain imports only %s and its subpackages", of, dep, r.onlyOwn)
					}
					for _, f := range r.forbidden {
						if matches(dep, f) {
							t.Errorf("%s imports %s, which it may not (%s)", of, dep, r.pkg)
						}
					}
				}
			}
			check(pkg, fields[1:])
			if r.tests {
				testsChecked++
				check(pkg+" (a _test.go file)", strings.Fields(tests))
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages were checked: go list answered\n%s", checked, out)
	}
	// handlers and cmd/kgstudio at least, with tests of their own.
	if testsChecked < 2 {
		t.Fatalf("only %d packages' tests were checked: go list answered\n%s", testsChecked, out)
	}
}

// ours trims the module path off an import path of the module.
func ours(path string) (string, bool) {
	if !strings.HasPrefix(path, module+"/") {
		return "", false
	}
	return strings.TrimPrefix(path, module+"/"), true
}

// matches says whether pkg is rule (a package) or under it (a prefix
// ending in "/").
func matches(pkg, rule string) bool {
	if strings.HasSuffix(rule, "/") {
		return strings.HasPrefix(pkg, rule)
	}
	return pkg == rule || strings.HasPrefix(pkg, rule+"/")
}
