package app

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

func TestReadDocument_JSON(t *testing.T) {
	t.Parallel()
	good := `{"title":"t","sessions":[{"id":"s1","turns":[{"speaker":"Ann","text":"I moved to Oslo."},{"speaker":"Bot","text":"Nice."}]}]}`
	d, err := ReadDocument(t.Context(), "chat.json", []byte(good), 0)
	if err != nil || d.Kind != extract.DocDialogue {
		t.Fatalf("a dialogue: %v %q", err, d.Kind)
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"truncated.json", good[:len(good)/2], "not valid JSON: it ends early"},
		{"garbage.json", "{not json", "not valid JSON"},
		{"shape.json", `{"title":"t","sessions":[{"id":"s1","turns":[{"speaker":"Ann"}]}]}`, "sessions[0].turns[0]"},
		{"other.json", `{"nodes":[1,2,3],"id":7}`, "must hold a dialogue"},
	} {
		_, err := ReadDocument(t.Context(), tc.name, []byte(tc.data), 0)
		if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(extract.MessageOf(err), tc.want) || !strings.Contains(extract.MessageOf(err), tc.name) {
			t.Errorf("%s: %v, want an invalid error naming the file and %q", tc.name, err, tc.want)
		}
	}
	// A graph file is not a document: the message names the import.
	for name, data := range map[string]string{
		"graph.json":    `{"nodes":[{"key":"ann","name":"Ann","type":"Person"}],"edges":[]}`,
		"graph.graphml": `<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed"></graph></graphml>`,
		"graph.xml":     `<?xml version="1.0"?><graphml><graph/></graphml>`,
		"networkx.json": `{"directed":true,"nodes":[{"id":"ann"}],"links":[]}`,
		"neo4j.zip":     "PK\x03\x04\x14\x00\x00\x00nodes.csv",
	} {
		_, err := ReadDocument(t.Context(), name, []byte(data), 0)
		msg := extract.MessageOf(err)
		if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(msg, "kgstudio import") || !strings.Contains(msg, "the Extractions page") || !strings.Contains(msg, name) {
			t.Errorf("%s: %v, want a refusal naming the file, kgstudio import and the Extractions page's form", name, err)
		}
	}
	// Text that merely holds braces is still text.
	if d, err := ReadDocument(t.Context(), "notes.txt", []byte("{draft} of a letter"), 0); err != nil || d.Kind != extract.DocText {
		t.Fatalf("braces in text: %v %q", err, d.Kind)
	}
}

// A .json file is a dialogue when it parses as one, a graph when it
// imports as one (unless it is a list of passages), else a corpus of
// passages, one text document each.
func TestReadDocuments_JSON(t *testing.T) {
	t.Parallel()
	dlg := `{"title":"t","sessions":[{"id":"s1","turns":[{"speaker":"Ann","text":"I moved to Oslo."},{"speaker":"Bot","text":"Nice."}]}]}`
	fd, err := ReadDocuments(t.Context(), "chat.json", []byte(dlg), 0)
	if err != nil || fd.Many || len(fd.Docs) != 1 || fd.Docs[0].Kind != extract.DocDialogue {
		t.Fatalf("a dialogue: %v %+v", err, fd)
	}
	long := strings.Repeat("é", extract.MaxNameLen+5)
	for _, tc := range []struct {
		name, data string
		want       []string // name|content of each document
	}{
		{"list.json", `[{"title":"Oslo","text":"Oslo is the capital of Norway."},{"title":"Bergen","paragraph_text":"Bergen is on the west coast."}]`,
			[]string{"Oslo|Oslo\n\nOslo is the capital of Norway.", "Bergen|Bergen\n\nBergen is on the west coast."}},
		{"hotpot.json", "\ufeff" + `{"Zebra":["Zebras are equines.", " They are striped."],"Okapi":"An okapi is a giraffid."}`,
			[]string{"Zebra|Zebra\n\nZebras are equines. They are striped.", "Okapi|Okapi\n\nAn okapi is a giraffid."}},
		// String ids would read as KAG's nodes file; passages win.
		{"ids.json", `[{"id":"p1","title":"Oslo","text":"Oslo is a city."},{"id":"p2","title":"","text":"No title here."}]`,
			[]string{"Oslo|Oslo\n\nOslo is a city.", "ids.json passage 2|No title here."}},
		{"titles.json", `[{"title":"  Only\n a title "},{"title":"Rome","text":"Rome is old."},{"title":"` + long + `","text":"Long."}]`,
			[]string{"Only a title|  Only\n a title ", "Rome|Rome\n\nRome is old.", strings.Repeat("é", extract.MaxNameLen-1) + "…|" + long + "\n\nLong."}},
	} {
		fd, err := ReadDocuments(t.Context(), tc.name, []byte(tc.data), 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, d := range fd.Docs {
			if d.Kind != extract.DocText || d.SHA256 == "" {
				t.Errorf("%s: %q is %q", tc.name, d.Name, d.Kind)
			}
			got = append(got, d.Name+"|"+d.Content)
		}
		if !fd.Many || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// A passage that is no text is refused by itself, naming it.
	fd, err = ReadDocuments(t.Context(), "nul.json", []byte(`[{"title":"a","text":"ok"},{"title":"b","text":"bad\u0000"}]`), 0)
	if err != nil || len(fd.Docs) != 1 || len(fd.Refused) != 1 || !strings.Contains(fd.Refused[0].Name, "nul.json passage 2 (b)") || !strings.Contains(fd.Refused[0].Error, "binary") {
		t.Fatalf("a passage with a NUL: %v %+v", err, fd)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"kag.json", `[{"id":"a","name":"Ann","label":"Person"}]`, "is a graph"},
		{"graph.json", `{"nodes":[{"key":"ann","name":"Ann","type":"Person"}],"edges":[]}`, "is a graph"},
		{"other.json", `{"rows":[1,2,3]}`, `passage 1 ("rows"): the value must be a text`},
		{"articles.json", `[{"title":"A","body":"lost"},{"title":"B","body":"lost"}]`, "none of its 2 passages has a text"},
		{"cut.json", `[{"title":"A","text":"b"`, "not valid JSON"},
		{"turns.json", `[{"speaker":"A","text":1}]`, "must hold a dialogue"},
		{"empty.json", `[]`, "must hold a dialogue"},
	} {
		_, err := ReadDocuments(t.Context(), tc.name, []byte(tc.data), 0)
		if msg := extract.MessageOf(err); extract.KindOf(err) != extract.KindInvalid || !strings.Contains(msg, tc.want) || !strings.Contains(msg, tc.name) {
			t.Errorf("%s: %v, want an invalid error naming the file and %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadDocuments(t.Context(), "big.json", []byte(`[{"title":"a","text":"`+strings.Repeat("x", 100)+`"}]`), 50); !strings.Contains(extract.MessageOf(err), "over the size limit") {
		t.Fatalf("over the limit: %v", err)
	}
}

// zipOf builds a zip of the given files, in order; a name ending in "/" is
// a folder.
func zipOf(t *testing.T, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A zip adds its text files and corpora, skips hidden files, zips and
// files of other kinds, refuses bad files one by one, and is refused as a
// whole when a path leads out of it or it cannot be unpacked.
func TestReadDocuments_Zip(t *testing.T) {
	t.Parallel()
	data := zipOf(t,
		"docs/", "",
		"docs/a.txt", "Ada Lovelace met Charles Babbage.",
		"docs/b.md", "# Notes\n\nGrace Hopper joined the Navy.",
		"docs/corpus.json", `[{"title":"Oslo","text":"Oslo is the capital of Norway."}]`,
		"docs/.DS_Store", "\x00\x01",
		"__MACOSX/docs/._a.txt", "\x00",
		".git/config", "[core]",
		"docs/picture.png", "\x89PNG",
		"docs/inner.zip", "PK\x03\x04",
		"docs/empty.txt", "  ",
		"docs/chat.json", `{"sessions":[{"turns":[{"speaker":"A","text":"hi"},{"speaker":"B","text":"hello"}]}]}`,
	)
	fd, err := ReadDocuments(t.Context(), "upload.zip", data, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names, skipped, refused []string
	for _, d := range fd.Docs {
		names = append(names, d.Name+"|"+string(d.Kind))
	}
	for _, p := range fd.Skipped {
		skipped = append(skipped, p.Name+"|"+p.Error)
	}
	for _, p := range fd.Refused {
		refused = append(refused, p.Name)
	}
	want := []string{"docs/a.txt|text", "docs/b.md|markdown", "Oslo|text", "docs/chat.json|dialogue"}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("documents %q, want %q", names, want)
	}
	wantSkipped := []string{"upload.zip/docs/.DS_Store|hidden", "upload.zip/__MACOSX/docs/._a.txt|hidden", "upload.zip/.git/config|hidden",
		"upload.zip/docs/picture.png|" + string(SkipOtherKind), "upload.zip/docs/inner.zip|a zip inside a zip is not read"}
	if fmt.Sprint(skipped) != fmt.Sprint(wantSkipped) {
		t.Errorf("skipped %q, want %q", skipped, wantSkipped)
	}
	if fmt.Sprint(refused) != "[upload.zip/docs/empty.txt]" || !fd.Many {
		t.Errorf("refused %q", refused)
	}

	// A damaged entry: a stored file whose bytes no longer match its
	// checksum.
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.CreateHeader(&zip.FileHeader{Name: "a.txt", Method: zip.Store})
	f.Write([]byte("Ada Lovelace met Charles Babbage."))
	w.Close()
	damaged := bytes.Replace(buf.Bytes(), []byte("Babbage"), []byte("Cabbage"), 1)
	if crc32.ChecksumIEEE([]byte("Ada Lovelace met Charles Cabbage.")) == crc32.ChecksumIEEE([]byte("Ada Lovelace met Charles Babbage.")) {
		t.Fatal("same checksum")
	}
	var bomb []string
	for i := range 11 {
		bomb = append(bomb, fmt.Sprintf("%d.txt", i), strings.Repeat("a", 60_000))
	}
	for _, tc := range []struct {
		name string
		data []byte
		max  int
		want string
	}{
		{"slip.zip", zipOf(t, "a.txt", "fine", "../../etc/evil.txt", "x"), 0, `holds "../../etc/evil.txt", a path that leads out of the zip; nothing of the zip was added`},
		{"abs.zip", zipOf(t, "/etc/evil.txt", "x"), 0, "leads out of the zip"},
		{"drive.zip", zipOf(t, `C:\evil.txt`, "x"), 0, "leads out of the zip"},
		{"back.zip", zipOf(t, `docs\..\..\evil.txt`, "x"), 0, "leads out of the zip"},
		{"cut.zip", data[:len(data)/2], 0, "is not a zip that can be read"},
		{"damaged.zip", damaged, 0, "damaged.zip is damaged: a.txt cannot be unpacked; nothing of the zip was added"},
		{"bomb.zip", zipOf(t, bomb...), 65_000, "unpacks to more than 650000 bytes"},
		{"neo4j.zip", zipOf(t, "nodes.csv", "id:ID,name,:LABEL\n1,Ann,Person\n"), 0, "a zip of neo4j CSV files, a graph"},
	} {
		if tc.max == 0 {
			tc.max = 1 << 20
		}
		_, err := ReadDocuments(t.Context(), tc.name, tc.data, tc.max)
		if msg := extract.MessageOf(err); extract.KindOf(err) != extract.KindInvalid || !strings.Contains(msg, tc.want) || !strings.Contains(msg, tc.name) {
			t.Errorf("%s: %v, want an invalid error naming the zip and %q", tc.name, err, tc.want)
		}
	}
	// A file over the limit is refused by itself.
	// A table may be extract.TableScale times the limit.
	table := "a,b\n" + strings.Repeat("x,y\n", 1000)
	fd, err = ReadDocuments(t.Context(), "two.zip", zipOf(t, "small.txt", "Ada.", "large.txt", strings.Repeat("x", 1500), "t.csv", table, "huge.csv", strings.Repeat(table, 3)), 1000)
	if err != nil || len(fd.Docs) != 2 || fd.Docs[1].Name != "t.csv" || len(fd.Refused) != 2 || fd.Refused[0].Name != "two.zip/large.txt" || fd.Refused[1].Name != "two.zip/huge.csv" {
		t.Fatalf("a file over the limit: %v %+v", err, fd)
	}
}

// A folder is read in name order below it, skipping hidden files and
// folders and files of other kinds.
func TestReadFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "notes")
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.txt", "Grace Hopper joined the Navy.")
	write("a.md", "# Ada\n\nAda Lovelace met Charles Babbage.")
	write("sub/c.txt", "Marie Curie lived in Paris.")
	write("sub/corpus.json", `{"Oslo":["Oslo is the capital."," Of Norway."]}`)
	write(".hidden.txt", "secret")
	write(".git/HEAD", "ref: refs/heads/main")
	write("photo.jpg", "\xff\xd8")
	write("empty.txt", "")
	write("big.txt", strings.Repeat("x", 2000))
	write("table.csv", "a,b\n"+strings.Repeat("x,y\n", 1000))
	write("huge.csv", "a,b\n"+strings.Repeat("x,y\n", 3000))
	write("pack/in.zip", string(zipOf(t, "z.txt", "Zora Neale Hurston wrote novels.")))
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	var docs, skipped, refused []string
	err := ReadFolder(t.Context(), dir, 1000, func(fd FileDocuments) error {
		for _, d := range fd.Docs {
			docs = append(docs, d.Name)
		}
		for _, p := range fd.Skipped {
			skipped = append(skipped, strings.TrimPrefix(filepath.ToSlash(p.Name), filepath.ToSlash(dir)+"/")+"|"+p.Error)
		}
		for _, p := range fd.Refused {
			refused = append(refused, strings.TrimPrefix(filepath.ToSlash(p.Name), filepath.ToSlash(dir)+"/"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[a.md b.txt z.txt sub/c.txt Oslo table.csv]"; fmt.Sprint(docs) != want {
		t.Errorf("documents %v, want %s", docs, want)
	}
	if want := "[.git/|hidden .hidden.txt|hidden link|a link to a folder, not followed photo.jpg|" + string(SkipOtherKind) + "]"; fmt.Sprint(skipped) != want {
		t.Errorf("skipped %v, want %s", skipped, want)
	}
	if want := "[big.txt empty.txt huge.csv]"; fmt.Sprint(refused) != want {
		t.Errorf("refused %v, want %s", refused, want)
	}
}

// Thousands of passages are stored in one step, in order, each once, on
// SQLite and PostgreSQL; adding them again stores nothing.
func TestAddDocuments_Corpus(t *testing.T) {
	ctx := context.Background()
	var corpus bytes.Buffer
	corpus.WriteString("[")
	const n = 6000
	for i := range n {
		if i > 0 {
			corpus.WriteString(",")
		}
		p, _ := json.Marshal(extract.Passage{Title: fmt.Sprintf("Passage %d", i), Text: fmt.Sprintf("Person%d met Person%d in City%d. %s", i, i+1, i%97, strings.Repeat("Some words of the passage. ", 20))})
		corpus.Write(p)
	}
	// Passage 6000 repeats passage 0.
	fmt.Fprintf(&corpus, `,{"title":"Passage 0","text":"Person0 met Person1 in City0. %s"}]`, strings.Repeat("Some words of the passage. ", 20))
	for name, a := range importApps(t) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			fd, err := ReadDocuments(t.Context(), "corpus.json", corpus.Bytes(), 20<<20)
			if err != nil {
				t.Fatal(err)
			}
			docs, created, err := a.store.AddDocuments(ctx, fd.Docs)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			t.Logf("%d passages (%.1f MB) read and stored in %v", len(fd.Docs), float64(corpus.Len())/1e6, took)
			if len(docs) != n+1 || docs[0].Name != "Passage 0" || docs[n-1].Name != "Passage 5999" || docs[n].ID != docs[0].ID || docs[n].Name != "Passage 0" {
				t.Fatalf("%d documents, first %+v", len(docs), docs[0].Name)
			}
			news := 0
			for i, c := range created {
				if c {
					news++
				}
				if i > 0 && i < n && docs[i].ID <= docs[i-1].ID {
					t.Fatalf("document %d has id %d after %d", i, docs[i].ID, docs[i-1].ID)
				}
			}
			if news != n || created[n] {
				t.Fatalf("%d created, want %d", news, n)
			}
			got, err := a.store.Document(ctx, docs[4321].ID)
			if err != nil || got.Name != "Passage 4321" || !strings.HasPrefix(got.Content, "Passage 4321\n\nPerson4321 met") || got.Kind != extract.DocText {
				t.Fatalf("document 4321: %v %+v", err, got.Name)
			}
			again, created, err := a.store.AddDocuments(ctx, fd.Docs[:10])
			if err != nil || again[9].ID != docs[9].ID || created[9] {
				t.Fatalf("added again: %v", err)
			}
		})
	}
}

// The shared MuSiQue corpus adds as 1,890 documents.
func TestAddDocuments_MuSiQue(t *testing.T) {
	data := testkit.Read(t, "multihop/musique_train_corpus.json")
	ctx := context.Background()
	for name, a := range importApps(t) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			fd, err := ReadDocuments(t.Context(), "musique_train_corpus.json", data, 20<<20)
			if err != nil {
				t.Fatal(err)
			}
			docs, _, err := a.store.AddDocuments(ctx, fd.Docs)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("MuSiQue: %d passages stored in %v", len(docs), time.Since(start))
			if len(docs) != 1890 {
				t.Fatalf("%d documents", len(docs))
			}
		})
	}
}

// Saving an upload stores each content once: a content stored before is
// found (Known), the same content twice in one upload is stored once and
// the repeat named, and an upload of many documents says so.
func TestDocuments_Save(t *testing.T) {
	a, _, first := testApp(t, "first.txt", "Ada Lovelace wrote the first program.")
	ctx := t.Context()
	one, err := ReadDocuments(ctx, "again.txt", []byte("Ada Lovelace wrote the first program."), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	two, err := ReadDocuments(ctx, "new.txt", []byte("Grace Hopper wrote a compiler."), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	twice, err := ReadDocuments(ctx, "copy.txt", []byte("Grace Hopper wrote a compiler."), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.Documents.Save(ctx, []FileDocuments{one, two, twice})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Added) != 2 || s.Added[0].ID != first.ID || !s.Known[first.ID] || s.Known[s.Added[1].ID] {
		t.Fatalf("added %+v, known %v", s.Added, s.Known)
	}
	if len(s.Skipped) != 1 || s.Skipped[0].Name != "copy.txt" || s.Skipped[0].Error != "the same content as new.txt" {
		t.Fatalf("skipped %+v", s.Skipped)
	}
	if s.Many {
		t.Fatal("three single files read as a collection")
	}
}
