package app

import (
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// stdSchema gives Person two properties of KAG's standard types.
const stdSchema = `namespace Std

Person(自然人): EntityType
	properties:
		phone(手机号): STD.ChinaMobile
		email(邮箱): STD.Email
`

// A run pinned to a schema with standard-type properties makes their
// values nodes of the standard type linked from the owner by the
// property's name, as KAG does, in an offline text run and a CSV run
// alike: two people who share a number, however written, meet at its node.
func TestApp_StandardTypesInRuns(t *testing.T) {
	t.Parallel()
	a, st := rulesApp(t, nil, stdSchema)
	phone := extract.TypedNodeKey("STD.ChinaMobile", "13800138000")
	for _, tc := range []struct{ name, file, text string }{
		{"text", "contacts.txt", "Li Lei's phone is 138-0013-8000 and his e-mail li.lei@example.com.\n\nHan Meimei can be reached on 13800138000.\n"},
		{"table", "Person.csv", "id,name,phone,email\nLi Lei,Li Lei,138-0013-8000,li.lei@example.com\nHan Meimei,Han Meimei,13800138000,\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := addDoc(t, st, tc.file, tc.text)
			cfg := extract.DefaultConfig()
			cfg.Embedder = extract.EmbedderOffline
			_, g := mustRun(t, a, RunRequest{Extraction: tc.name, Config: cfg, SchemaRef: "risk", DocumentIDs: []int{doc.ID}})
			byKey := map[string]extract.Node{}
			for _, n := range g.Nodes {
				byKey[n.Key] = n
			}
			if n, ok := byKey[phone]; !ok || n.Type != "STD.ChinaMobile" || n.Properties["off_schema"] != nil {
				t.Fatalf("phone node %+v; nodes %v", n, keys(byKey))
			}
			owners := map[string]bool{}
			mail := false
			for _, e := range g.Edges {
				if e.Label == "phone" && e.Target == phone {
					owners[byKey[e.Source].Name] = true
				}
				if e.Label == "email" && byKey[e.Target].Type == "STD.Email" && byKey[e.Target].Name == "li.lei@example.com" && byKey[e.Source].Name == "Li Lei" {
					mail = true
				}
			}
			if !owners["Li Lei"] || !owners["Han Meimei"] || len(owners) != 2 || !mail {
				t.Errorf("phone owners %v, Li Lei's email edge %v; want Li Lei and Han Meimei, true: %+v", owners, mail, g.Edges)
			}
		})
	}
}

func keys(m map[string]extract.Node) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
