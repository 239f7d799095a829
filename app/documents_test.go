package app

import (
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestReadDocument_JSON(t *testing.T) {
	t.Parallel()
	good := `{"title":"t","sessions":[{"id":"s1","turns":[{"speaker":"Ann","text":"I moved to Oslo."},{"speaker":"Bot","text":"Nice."}]}]}`
	d, err := ReadDocument("chat.json", []byte(good), 0)
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
		_, err := ReadDocument(tc.name, []byte(tc.data), 0)
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
		_, err := ReadDocument(name, []byte(data), 0)
		msg := extract.MessageOf(err)
		if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(msg, "kgstudio import") || !strings.Contains(msg, "the Extractions page") || !strings.Contains(msg, name) {
			t.Errorf("%s: %v, want a refusal naming the file, kgstudio import and the Extractions page's form", name, err)
		}
	}
	// Text that merely holds braces is still text.
	if d, err := ReadDocument("notes.txt", []byte("{draft} of a letter"), 0); err != nil || d.Kind != extract.DocText {
		t.Fatalf("braces in text: %v %q", err, d.Kind)
	}
}
