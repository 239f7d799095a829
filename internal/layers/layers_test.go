package layers

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/kgstudio/kgstudio"

// rules say which of our packages a package may not import (its own
// files, not its tests): handlers and commands reach the product through
// app, never the store or the generated client; the domain (extract and
// its subpackages) imports only the domain; the store knows nothing of
// what is built on it.
var rules = []struct {
	pkg       string // a package, or a prefix ending in "/"
	forbidden []string
	onlyOwn   string // when set, our imports must start with it
}{
	{pkg: "handlers", forbidden: []string{"store", "ent"}},
	{pkg: "cmd/", forbidden: []string{"store", "ent"}},
	{pkg: "web", forbidden: []string{"store", "ent", "app", "handlers"}},
	{pkg: "app", forbidden: []string{"handlers", "web", "cmd/", "ent"}},
	{pkg: "store", forbidden: []string{"app", "handlers", "web", "cmd/"}},
	{pkg: "extract", onlyOwn: "extract"},
}

// TestImportsPointOneWay lists every package of the module with the
// packages it imports (go list) and fails on an import the rules forbid.
func TestImportsPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := ours(fields[0])
		if !ok {
			continue
		}
		for _, r := range rules {
			if !matches(pkg, r.pkg) {
				continue
			}
			checked++
			for _, imp := range fields[1:] {
				dep, ok := ours(imp)
				if !ok {
					continue
				}
				if r.onlyOwn != "" && dep != r.onlyOwn && !strings.HasPrefix(dep, r.onlyOwn+"/") {
					t.Errorf("%s imports %s: the domain imports only %s and its subpackages", pkg, dep, r.onlyOwn)
				}
				for _, f := range r.forbidden {
					if matches(dep, f) {
						t.Errorf("%s imports %s, which it may not (%s)", pkg, dep, r.pkg)
					}
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages were checked: go list answered\n%s", checked, out)
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
