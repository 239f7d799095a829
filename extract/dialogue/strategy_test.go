package dialogue

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
)

// collect runs RunDialogue and keeps every written result.
func collect(t *testing.T, d *Dialogue, ex SegmentExtractor, opt RunOptions) (*Memory, []extract.ChunkResult) {
	t.Helper()
	var got []extract.ChunkResult
	mem, err := RunDialogue(context.Background(), d, ex, opt, func(turn int, res extract.ChunkResult) error {
		if turn != res.Chunk.Index {
			t.Errorf("turn %d written with chunk index %d", turn, res.Chunk.Index)
		}
		got = append(got, res)
		return nil
	})
	if err != nil {
		t.Fatalf("RunDialogue: %v", err)
	}
	return mem, got
}

func TestLLM_ExtractSegment_FakeGemini(t *testing.T) {
	seed := fakellm.Load(t, seedOpsPath)
	srv := fakellm.New(t, fakellm.Options{Rules: []fakellm.Rule{
		{Contains: "paper planner", Text: seed},
		{Contains: "picked Todoist", Text: "```json\n" + `{"add_node": [], "update_node": [{"node_id": "/User/Status/CurrentMood", "node_details": {"label": "Calmer", "description": "User feels much calmer after picking Todoist."}}], "add_relation": [{"source_node_id": "/User/Status/CurrentMood", "target_node_id": "/Knowledge/SoftwareApplication/ProductivityTool/Todoist", "relation_details": {"label": "CHOSE"}}, {"source_node_id": "/User", "target_node_id": "/User/Status/CurrentMood", "relation_details": {"label": "FEELS"}}]}` + "\n```"},
	}})
	client, err := llm.NewGemini(context.Background(), llm.GeminiConfig{APIKey: "test-key", BaseURL: srv.GeminiURL(), Model: "gemini-test"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(mustRead(t, "testdata/task_apps_dialogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := extract.DefaultConfig()
	cfg.Strategy = extract.StrategyDialogue
	mem, res := collect(t, d, NewLLM(client, cfg), RunOptions{DocumentID: 7})

	t.Run("OneCallPerSegmentWithSchema", func(t *testing.T) {
		calls := srv.Calls()
		if len(calls) != 2 || len(res) != 2 {
			t.Fatalf("%d calls, %d results; want 2 and 2", len(calls), len(res))
		}
		for i, c := range calls {
			if !c.JSON {
				t.Errorf("call %d did not ask for JSON output", i)
			}
			if c.Messages[0].Role != "system" || !strings.Contains(c.Messages[0].Content, "/Knowledge/<EntityType>/<Category>/<Name>") {
				t.Errorf("call %d: system prompt missing", i)
			}
		}
		user := calls[0].Messages[len(calls[0].Messages)-1].Content
		for _, want := range []string{`"segment_start_timestamp": "2023-05-30T17:27:00Z"`, `"user_turn_text": "I keep a paper planner`, `"assistant_turn_text": "Good options: Todoist`} {
			if !strings.Contains(user, want) {
				t.Errorf("first user prompt lacks %s", want)
			}
		}
		second := calls[1].Messages[len(calls[1].Messages)-1].Content
		if !strings.Contains(second, "/Knowledge/SoftwareApplication/ProductivityTool/Todoist\n") {
			t.Errorf("second prompt does not list the nodes of the first segment")
		}
		for i, r := range res {
			if len(r.Calls) != 1 || r.Calls[0].Response == "" || r.Chunk.DocumentID != 7 {
				t.Errorf("result %d: calls %+v chunk %+v", i, r.Calls, r.Chunk)
			}
		}
	})
	t.Run("SeedSegmentAppliedExactly", func(t *testing.T) {
		ops := seedOps(t)
		want := NewMemory()
		want.DocumentID = 7
		got := res[0].Operations
		wantLog := want.ApplyAt(0, Segments(d)[0].Start, got[0].RecordedAt, ops)
		if got[0].RecordedAt == "" || !reflect.DeepEqual(got, wantLog) {
			t.Errorf("operations of segment 0 differ from applying the seed directly")
		}
		if len(res[0].Failures) != 0 {
			t.Errorf("failures %+v", res[0].Failures)
		}
		if g := Rebuild(mem.Log(), 0).Graph(); len(g.Nodes) != 43 {
			t.Errorf("graph after segment 0 has %d nodes, want 43", len(g.Nodes))
		}
	})
	t.Run("SecondSegment", func(t *testing.T) {
		ops := res[1].Operations
		if len(ops) != 3 || ops[0].Status != extract.OutcomeApplied || ops[1].Status != extract.OutcomeApplied || ops[2].Status != extract.OutcomeRejected {
			t.Fatalf("operations %+v", ops)
		}
		n, _ := mem.Node("/User/Status/CurrentMood")
		if n.Label != "Calmer" || n.Updated != 1 {
			t.Errorf("mood node %+v", n)
		}
		if cov := CoverageOf(Segments(d)[1], ops); cov <= 0 || cov >= 1 {
			t.Errorf("coverage %v, want strictly between 0 and 1", cov)
		}
	})
}

// stubClient answers every call with the same text, or an error.
type stubClient struct {
	text  string
	err   error
	calls int
}

func (s *stubClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.calls++
	if s.err != nil {
		return llm.Response{}, s.err
	}
	return llm.Response{Text: s.text, Record: extract.CallRecord{Provider: "stub", Response: s.text}}, nil
}

func TestRunDialogue(t *testing.T) {
	d, err := Parse(mustRead(t, "testdata/task_apps_dialogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("ResumeSkipsDoneAndReplaysPrior", func(t *testing.T) {
		full, all := collect(t, d, NewOffline(), RunOptions{})
		stub := &stubClient{text: `{"add_node":[],"update_node":[],"add_relation":[]}`}
		resumed, res := collect(t, d, NewLLM(stub, extract.Config{}), RunOptions{Done: map[int]bool{0: true}, Prior: all[0].Operations})
		if len(res) != 1 || res[0].Chunk.Index != 1 || stub.calls != 1 {
			t.Fatalf("resumed run wrote %d results, made %d calls", len(res), stub.calls)
		}
		if _, ok := resumed.Node(sessionEventID(Segments(d)[0])); !ok {
			t.Errorf("prior operations were not replayed")
		}
		if len(full.NodeIDs()) <= len(StructureNodes) {
			t.Errorf("offline run added no nodes")
		}
	})
	t.Run("ModelUnavailable", func(t *testing.T) {
		stub := &stubClient{err: extract.Errorf(extract.KindUnavailable, "provider down")}
		_, err := RunDialogue(context.Background(), d, NewLLM(stub, extract.Config{}), RunOptions{}, func(int, extract.ChunkResult) error { return nil })
		if extract.KindOf(err) != extract.KindUnavailable {
			t.Errorf("got %v", err)
		}
	})
	t.Run("GarbageOutputIsAFailureNotAnError", func(t *testing.T) {
		stub := &stubClient{text: "I cannot help with that."}
		_, res := collect(t, d, NewLLM(stub, extract.Config{}), RunOptions{})
		if len(res) != 2 || len(res[0].Failures) != 1 || len(res[0].Operations) != 0 {
			t.Errorf("results %+v", res)
		}
	})
	t.Run("WriteErrorStops", func(t *testing.T) {
		boom := errors.New("disk full")
		n := 0
		_, err := RunDialogue(context.Background(), d, NewOffline(), RunOptions{}, func(int, extract.ChunkResult) error { n++; return boom })
		if !errors.Is(err, boom) || n != 1 {
			t.Errorf("err %v after %d writes", err, n)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := RunDialogue(ctx, d, NewOffline(), RunOptions{}, func(int, extract.ChunkResult) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("PromptOverride", func(t *testing.T) {
		stub := &recordingClient{}
		l := NewLLM(stub, extract.Config{Prompts: map[string]string{PromptKey: "custom rules"}})
		if _, err := l.ExtractSegment(context.Background(), Segments(d)[0], nil); err != nil {
			t.Fatal(err)
		}
		if stub.req.Messages[0].Content != "custom rules" || stub.req.JSONSchema == nil || stub.req.Purpose != "extract" {
			t.Errorf("request %+v", stub.req)
		}
	})
}

type recordingClient struct{ req llm.Request }

func (r *recordingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.req = req
	return llm.Response{Text: "{}"}, nil
}

func TestOffline_ExtractSegment(t *testing.T) {
	seg := Segment{Index: 3, Session: 1, Start: "2023-05-08T13:56:00Z", UserSpeaker: "Caroline", AssistantSpeaker: "Melanie",
		User:      "Hey Mel! I went to a LGBTQ support group yesterday with Jolene. It cost $20 and lasted 3 hours.",
		Assistant: "Wow, Caroline! Did you meet anyone from Acme Corp? We could go to Paris on June 5, 2023."}
	prop, err := NewOffline().ExtractSegment(context.Background(), seg, IDList(StructureNodes))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range prop.Ops.AddNode {
		ids = append(ids, n.NodeID)
	}
	want := []string{
		UserNameID, AssistantNameID, "/Events/Session/Session2_20230508",
		"/Knowledge/Entity/ProperName/Mel", "/Knowledge/Time/Date/Yesterday-2023-05-07", "/Knowledge/Entity/ProperName/LGBTQ",
		"/Knowledge/Entity/ProperName/Jolene", "/Knowledge/Topic/Thing/LgbtqSupportGroup", "/Knowledge/Quantity/Number/20", "/Knowledge/Quantity/Number/3",
		"/Knowledge/Entity/ProperName/AcmeCorp", "/Knowledge/Time/Date/June-5-2023", "/Knowledge/Entity/ProperName/Paris",
	}
	t.Run("Nodes", func(t *testing.T) {
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("\n got %q\nwant %q", ids, want)
		}
	})
	t.Run("AppliesCleanly", func(t *testing.T) {
		m := NewMemory()
		for _, op := range m.Apply(seg.Index, prop.Ops) {
			if op.Status == extract.OutcomeRejected {
				t.Errorf("rejected %+v", op)
			}
		}
		n, _ := m.Node("/Knowledge/Entity/ProperName/Jolene")
		if want := "Caroline: I went to a LGBTQ support group yesterday with Jolene."; n.Description != want {
			t.Errorf("description %q, want %q", n.Description, want)
		}
	})
	t.Run("SecondMentionUpdates", func(t *testing.T) {
		m := NewMemory()
		m.Apply(0, prop.Ops)
		seg2 := seg
		seg2.Index, seg2.User, seg2.Assistant = 4, "Jolene called again.", "Nice."
		p2, _ := NewOffline().ExtractSegment(context.Background(), seg2, m)
		if len(p2.Ops.AddNode) != 0 || len(p2.Ops.UpdateNode) != 1 || p2.Ops.UpdateNode[0].NodeID != "/Knowledge/Entity/ProperName/Jolene" {
			t.Errorf("ops %+v", p2.Ops)
		}
	})
	t.Run("CJKAndEmpty", func(t *testing.T) {
		p, err := NewOffline().ExtractSegment(context.Background(), Segment{User: "我在北京工作了3年。", Assistant: ""}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range p.Ops.AddNode {
			got = append(got, n.NodeID)
		}
		if want := []string{"/Events/Session/Session1", "/Knowledge/Quantity/Number/3"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestOffline_SharedDialogues(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		events     int
	}{
		{"LoCoMoConv26", "dialogues/locomo10_conv26.json", 19},
		{"MemoryBankEmily", "dialogues/memorybank_en_users1-8.json", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := ParseAll(mustRead(t, testkit.Path(t, tc.path)))
			if err != nil {
				t.Fatal(err)
			}
			mem, res := collect(t, ds[0], NewOffline(), RunOptions{})
			if len(res) != len(Segments(ds[0])) {
				t.Errorf("%d results for %d segments", len(res), len(Segments(ds[0])))
			}
			if st := mem.Stats(); st.Rejected != 0 {
				t.Errorf("stats %+v", st)
			}
			events := 0
			for _, id := range mem.NodeIDs() {
				if strings.HasPrefix(id, "/Events/Session/") {
					events++
				}
			}
			if events != tc.events {
				t.Errorf("%d session events, want %d", events, tc.events)
			}
			if n, _ := mem.Node(UserNameID); n.Label != ds[0].Speakers()[0] {
				t.Errorf("user name %q", n.Label)
			}
			var log []extract.Operation
			for _, r := range res {
				log = append(log, r.Operations...)
			}
			steps := Timeline(ds[0], log)
			cov := MeanCoverage(steps)
			if cov <= 0.05 || cov >= 1 {
				t.Errorf("mean offline coverage %.3f out of range", cov)
			}
			t.Logf("%d segments, %d operations, %d nodes, %d relations, mean coverage %.3f",
				len(steps), len(log), len(mem.NodeIDs()), len(mem.Relations()), cov)
		})
	}
}
