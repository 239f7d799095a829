package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

// docDatabases are the databases the doc add tests run on, as flags:
// SQLite in a data dir always, PostgreSQL when the test server is set.
func docDatabases(t *testing.T) map[string][]string {
	t.Helper()
	dbs := map[string][]string{"SQLite": {"--data", t.TempDir()}}
	if testkit.PostgresURL(t) != "" {
		dbs["PostgreSQL"] = []string{"--db", pgDatabase(t)}
	}
	return dbs
}

// docList returns the stored documents' names by kind, in id order.
func docList(t *testing.T, db []string) []string {
	t.Helper()
	out, err := cliOut(t, append([]string{"doc", "list", "--json"}, db...)...)
	if err != nil {
		t.Fatal(err)
	}
	var docs []docJSON
	if err := json.Unmarshal([]byte(out), &docs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := len(docs) - 1; i >= 0; i-- { // newest first
		names = append(names, string(docs[i].Kind)+":"+docs[i].Name)
	}
	return names
}

// doc add takes a JSON corpus as one document per passage (both shapes),
// keeps taking dialogue JSON as a dialogue, and refuses JSON that is
// neither, naming both shapes.
func TestDocAdd_Corpus(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	list := writeFile(t, "musique.json", `[{"title":"Oslo","text":"Oslo is the capital of Norway.","idx":0},{"title":"Bergen","text":"Bergen lies on the west coast."}]`)
	hotpot := writeFile(t, "hotpot.json", "\ufeff"+`{"Zebra":["Zebras are equines.", " They are striped."],"Oslo":["Oslo is the capital of Norway."]}`)
	chat := writeFile(t, "chat.json", `{"title":"t","sessions":[{"id":"s1","turns":[{"speaker":"Ann","text":"I moved to Oslo."},{"speaker":"Bot","text":"Nice."}]}]}`)
	other := writeFile(t, "other.json", `{"rows":[1,2,3]}`)
	for name, db := range docDatabases(t) {
		t.Run(name, func(t *testing.T) {
			out, err := cliOut(t, append([]string{"doc", "add", list, hotpot, chat, other}, db...)...)
			if err == nil || !strings.Contains(err.Error(), "other.json") || !strings.Contains(err.Error(), "must hold a dialogue") || !strings.Contains(err.Error(), "or a corpus of passages") {
				t.Fatalf("doc add with a JSON of neither shape: %v", err)
			}
			for _, want := range []string{
				list + "\t2 documents\t2 added\t0 already stored\n",
				hotpot + "\t2 documents\t1 added\t1 already stored\n",
				"\tdialogue\tchat.json\tadded\n",
				"added 4 documents (1 of 5 were already stored)\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			want := []string{"text:Oslo", "text:Bergen", "text:Zebra", "dialogue:chat.json"}
			if got := docList(t, db); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("stored %q, want %q", got, want)
			}
		})
	}
}

// doc add takes folders and zips: their text files are stored, hidden
// files and files of other kinds are named as skipped, a zip whose path
// leads out of it or that is cut off is refused as a whole, and what was
// added before it stays.
func TestDocAdd_FolderAndZip(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	dir := filepath.Join(t.TempDir(), "notes")
	for rel, content := range map[string]string{
		"a.txt":           "Ada Lovelace met Charles Babbage.",
		"sub/b.md":        "# Grace\n\nGrace Hopper joined the Navy.",
		"sub/corpus.json": `[{"title":"Oslo","text":"Oslo is the capital of Norway."}]`,
		".DS_Store":       "\x00\x01",
		".git/HEAD":       "ref: refs/heads/main",
		"photo.jpg":       "\xff\xd8",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zipFile := func(name string, files ...string) string {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		for i := 0; i < len(files); i += 2 {
			f, _ := w.Create(files[i])
			f.Write([]byte(files[i+1]))
		}
		w.Close()
		return writeFile(t, name, buf.String())
	}
	good := zipFile("good.zip", "c.txt", "Marie Curie lived in Paris.", "__MACOSX/._c.txt", "\x00", "d.pdf", "%PDF")
	slip := zipFile("slip.zip", "e.txt", "Emmy Noether taught in Göttingen.", "../../evil.txt", "x")
	goodZip, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := writeFile(t, "cut.zip", string(goodZip[:40]))
	for name, db := range docDatabases(t) {
		t.Run(name, func(t *testing.T) {
			out, err := cliOut(t, append([]string{"doc", "add", dir, good, slip, cut}, db...)...)
			if err == nil || !strings.Contains(err.Error(), `slip.zip holds "../../evil.txt", a path that leads out of the zip; nothing of the zip was added`) ||
				!strings.Contains(err.Error(), "cut.zip is not a zip that can be read") {
				t.Fatalf("doc add with a bad zip: %v", err)
			}
			for _, want := range []string{
				dir + "\t3 documents\t3 added\t0 already stored\n",
				good + "\t1 documents\t1 added\t0 already stored\n",
				"skipped 3 hidden: " + filepath.Join(dir, ".DS_Store") + ", " + filepath.Join(dir, ".git") + string(filepath.Separator) + ", good.zip/__MACOSX/._c.txt\n",
				"skipped 2 of other kinds (kgstudio reads " + app.DocumentExts() + "): " + filepath.Join(dir, "photo.jpg") + ", good.zip/d.pdf\n",
				"added 4 documents (0 of 4 were already stored)\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			want := []string{"text:a.txt", "markdown:sub/b.md", "text:Oslo", "text:c.txt"}
			if got := docList(t, db); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("stored %q, want %q", got, want)
			}
		})
	}
}

// The shared MuSiQue corpus (1,890 passages) adds in one step, in well
// under the time a user waits for a command.
func TestDocAdd_MuSiQue(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	corpus := testkit.Path(t, "multihop/musique_train_corpus.json")
	for name, db := range docDatabases(t) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			out, err := cliOut(t, append([]string{"doc", "add", corpus}, db...)...)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("doc add of 1,890 passages: %v", time.Since(start))
			if !strings.Contains(out, "\t1890 documents\t1890 added\t0 already stored\n") {
				t.Fatalf("doc add says:\n%s", out)
			}
			if n := len(docList(t, db)); n != 1890 {
				t.Fatalf("%d documents stored", n)
			}
		})
	}
}
