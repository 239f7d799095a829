package dialogue

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
)

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestParseAll_SharedFiles(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		format    Format
		dialogues int
		sessions  []int // per dialogue
		turns     []int // per dialogue
		titles    []string
		firstTurn Turn
		start     string
	}{
		{
			name: "LoCoMoConv26", path: testkit.Path(t, "dialogues/locomo10_conv26.json"), format: FormatLoCoMo,
			dialogues: 1, sessions: []int{19}, turns: []int{419}, titles: []string{"Caroline and Melanie"},
			firstTurn: Turn{Speaker: "Caroline", Text: "Hey Mel! Good to see you! How have you been?"},
			start:     "2023-05-08T13:56:00Z",
		},
		{
			name: "LoCoMoConv30", path: testkit.Path(t, "dialogues/locomo10_conv30.json"), format: FormatLoCoMo,
			dialogues: 1, sessions: []int{19}, turns: []int{369}, titles: []string{"Jon and Gina"},
			start: "2023-01-20T16:04:00Z",
		},
		{
			name: "MemoryBank", path: testkit.Path(t, "dialogues/memorybank_en_users1-8.json"), format: FormatMemoryBank,
			dialogues: 8,
			sessions:  []int{10, 10, 10, 10, 10, 10, 10, 10},
			turns:     []int{98, 104, 66, 70, 86, 90, 34, 70},
			titles:    []string{"Emily", "Frank", "Lucy", "Sunny", "Jason", "Linda", "John Zhang", "Ivy"},
			firstTurn: Turn{Speaker: "Emily", Role: RoleUser, Text: "Hello, my name is Emily. Nice to meet you."},
			start:     "2023-04-27",
		},
		{
			name: "LongMemEval", path: "testdata/longmemeval_sample.json", format: FormatLongMemEval,
			dialogues: 2, sessions: []int{2, 1}, turns: []int{6, 4}, titles: []string{"lme_demo_001", "lme_demo_002"},
			firstTurn: Turn{Role: RoleUser, Text: "Can you suggest a weekly meal plan that is cheap and vegetarian?"},
			start:     "2023-05-20T02:21:00Z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := ParseAll(mustRead(t, tt.path))
			if err != nil {
				t.Fatalf("ParseAll: %v", err)
			}
			if len(ds) != tt.dialogues {
				t.Fatalf("got %d dialogues, want %d", len(ds), tt.dialogues)
			}
			for i, d := range ds {
				if d.Format != tt.format {
					t.Errorf("dialogue %d: format %q, want %q", i, d.Format, tt.format)
				}
				if d.Title != tt.titles[i] {
					t.Errorf("dialogue %d: title %q, want %q", i, d.Title, tt.titles[i])
				}
				if len(d.Sessions) != tt.sessions[i] {
					t.Errorf("dialogue %d: %d sessions, want %d", i, len(d.Sessions), tt.sessions[i])
				}
				if d.TurnCount() != tt.turns[i] {
					t.Errorf("dialogue %d: %d turns, want %d", i, d.TurnCount(), tt.turns[i])
				}
			}
			if ds[0].Sessions[0].Start != tt.start {
				t.Errorf("first session start %q, want %q", ds[0].Sessions[0].Start, tt.start)
			}
			if tt.firstTurn.Text != "" && ds[0].Sessions[0].Turns[0] != tt.firstTurn {
				t.Errorf("first turn %+v, want %+v", ds[0].Sessions[0].Turns[0], tt.firstTurn)
			}
		})
	}
}

func TestParse_Single(t *testing.T) {
	t.Run("LoCoMo", func(t *testing.T) {
		d, err := Parse(mustRead(t, testkit.Path(t, "dialogues/locomo10_conv26.json")))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Speakers(); len(got) != 2 || got[0] != "Caroline" || got[1] != "Melanie" {
			t.Errorf("speakers %v", got)
		}
		if got, want := d.Sessions[0].Turns[4].Text, "The transgender stories were so inspiring! I was so happy and thankful for all the support. [image: a photo of a dog walking past a wall with a painting of a woman]"; got != want {
			t.Errorf("image turn %q, want %q", got, want)
		}
	})
	t.Run("LoCoMoList", func(t *testing.T) {
		conv := mustRead(t, testkit.Path(t, "dialogues/locomo10_conv26.json"))
		conv30 := mustRead(t, testkit.Path(t, "dialogues/locomo10_conv30.json"))
		list := `[{"sample_id":"conv-26","conversation":` + string(conv) + `},{"sample_id":"conv-30","conversation":` + string(conv30) + `}]`
		ds, err := ParseAll([]byte(list))
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 2 || ds[0].Title != "conv-26: Caroline and Melanie" || ds[1].TurnCount() != 369 {
			t.Errorf("got %d dialogues, first %q", len(ds), ds[0].Title)
		}
	})
	t.Run("LongMemEvalObject", func(t *testing.T) {
		d, err := Parse([]byte(`{"question_id":"q1","haystack_sessions":[[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]]}`))
		if err != nil {
			t.Fatal(err)
		}
		if d.Title != "q1" || d.Sessions[0].ID != "session_1" || d.Sessions[0].Start != "" || len(Segments(d)) != 1 {
			t.Errorf("got %+v", d)
		}
	})
	t.Run("MemoryBankRefusedAsOne", func(t *testing.T) {
		_, err := Parse(mustRead(t, testkit.Path(t, "dialogues/memorybank_en_users1-8.json")))
		if extract.KindOf(err) != extract.KindInvalid || !strings.Contains(err.Error(), "8 dialogues") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("CanonicalRoundTrip", func(t *testing.T) {
		in := `{"title":"t","sessions":[{"id":"s1","start":"2023-05-08T13:56:00Z","turns":[{"speaker":"Ann","role":"user","text":"Hi"},{"speaker":"Bot","role":"assistant","text":"Hello"}]}]}`
		d, err := Parse([]byte("\ufeff" + in))
		if err != nil {
			t.Fatal(err)
		}
		if d.Format != FormatCanonical || d.Sessions[0].Turns[1].Text != "Hello" || d.Sessions[0].Start != "2023-05-08T13:56:00Z" {
			t.Errorf("got %+v", d)
		}
	})
	t.Run("CJK", func(t *testing.T) {
		in := `{"sessions":[{"start":"2023-05-08","turns":[{"speaker":"小明","text":"我今天去了北京。"},{"speaker":"助手","text":"北京怎么样？"}]}]}`
		d, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		segs := Segments(d)
		if len(segs) != 1 || segs[0].UserSpeaker != "小明" || segs[0].Assistant != "北京怎么样？" {
			t.Errorf("segments %+v", segs)
		}
	})
}

func TestParseAll_Malformed(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // error message prefix
	}{
		{"Empty", "", "dialogue file is empty"},
		{"BOMOnly", "\ufeff  ", "dialogue file is empty"},
		{"NotJSON", "{\"sessions\": [", "dialogue file is not valid JSON"},
		{"Trailing", `{"sessions":[]} x`, "dialogue file is not valid JSON"},
		{"InvalidUTF8", "{\"title\":\"\xff\"}", "dialogue file is not valid UTF-8"},
		{"UnknownShape", `{"foo":1}`, "(root): unknown dialogue shape"},
		{"Scalar", `42`, "(root): expected a dialogue object"},
		{"EmptyList", `[]`, "(root): empty list"},
		{"SessionsNotList", `{"sessions":{}}`, "sessions: expected a list"},
		{"TurnTextMissing", `{"sessions":[{"turns":[]},{"turns":[]},{"turns":[{"role":"user","text":"a"},{"role":"user"}]}]}`, "sessions[2].turns[1].text: missing"},
		{"TurnTextNumber", `{"sessions":[{"turns":[{"role":"user","text":5}]}]}`, "sessions[0].turns[0].text: expected a string, got a number"},
		{"BadRole", `{"sessions":[{"turns":[{"role":"system","text":"a"}]}]}`, `sessions[0].turns[0].role: "system" is not`},
		{"NoSpeakerNoRole", `{"sessions":[{"turns":[{"text":"a"}]}]}`, "sessions[0].turns[0]: a turn needs a speaker or a role"},
		{"BadStart", `{"sessions":[{"start":"yesterday","turns":[]}]}`, `sessions[0].start: "yesterday" is not`},
		{"ListItem", `[{"sessions":[]},{"sessions":[{"turns":[1]}]}]`, "[1].sessions[0].turns[0]: expected a turn object, got a number"},
		{"LoCoMoSpeaker", `{"speaker_a":"A","speaker_b":"B","session_1":[{"speaker":"A","text":"x"},{"text":"y"}]}`, "session_1[1].speaker: missing"},
		{"LoCoMoDate", `{"speaker_a":"A","speaker_b":"B","session_1":[],"session_1_date_time":"soon"}`, `session_1_date_time: unreadable date "soon"`},
		{"LoCoMoNoSessions", `{"speaker_a":"A","speaker_b":"B"}`, "(root): no session_N lists"},
		{"LoCoMoWrapped", `[{"sample_id":"x","conversation":{"speaker_a":"A","speaker_b":"B","session_2":{}}}]`, "[0].conversation.session_2: expected a list of turns"},
		{"MemoryBankResponse", `{" Jason ":{"name":"Jason","history":{"2023-04-27":[{"query":"hi"}]}}}`, `[" Jason "].history.2023-04-27[0].response: missing`},
		{"MemoryBankDate", `{"Amy":{"history":{"someday":[]}}}`, `Amy.history.someday: history key "someday" is not a date`},
		{"LongMemEvalRole", `{"haystack_sessions":[[{"role":"user","content":"a"}],[{"role":"bot","content":"b"}]]}`, `haystack_sessions[1][0].role: "bot" is not`},
		{"LongMemEvalContent", `{"haystack_sessions":[[{"role":"user"}]]}`, "haystack_sessions[0][0].content: missing"},
		{"LongMemEvalDates", `{"haystack_sessions":[[]],"haystack_dates":[]}`, "haystack_dates: 0 dates for 1 sessions"},
		{"LongMemEvalDate", `{"haystack_sessions":[[]],"haystack_dates":[7]}`, "haystack_dates[0]: expected a string, got a number"},
		{"Deep", strings.Repeat("[", 300) + strings.Repeat("]", 300), "dialogue file is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := ParseAll([]byte(tt.in))
			if err == nil {
				t.Fatalf("no error, got %d dialogues", len(ds))
			}
			var e *extract.Error
			if !errors.As(err, &e) || e.Kind != extract.KindInvalid {
				t.Fatalf("error %v is not an invalid *extract.Error", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %q, want prefix %q", err.Error(), tt.want)
			}
		})
	}
}

func TestSegments(t *testing.T) {
	t.Run("NamedSpeakersFirstIsUser", func(t *testing.T) {
		d := &Dialogue{Sessions: []Session{
			{ID: "s1", Start: "2023-01-01", Turns: []Turn{
				{Speaker: "Ann", Text: "a1"}, {Speaker: "Ann", Text: "a2"}, {Speaker: "Bob", Text: "b1"},
				{Speaker: "Ann", Text: "a3"}, {Speaker: "Bob", Text: "b2"}, {Speaker: "Bob", Text: "b3"},
			}},
			{ID: "s2", Start: "2023-01-02", Turns: []Turn{{Speaker: "Bob", Text: "b4"}, {Speaker: "Ann", Text: "a4"}}},
		}}
		got := Segments(d)
		want := []Segment{
			{Index: 0, Session: 0, SessionID: "s1", Start: "2023-01-01", Turn: 0, Turns: 3, UserSpeaker: "Ann", AssistantSpeaker: "Bob", User: "a1\na2", Assistant: "b1"},
			{Index: 1, Session: 0, SessionID: "s1", Start: "2023-01-01", Turn: 3, Turns: 3, UserSpeaker: "Ann", AssistantSpeaker: "Bob", User: "a3", Assistant: "b2\nb3"},
			{Index: 2, Session: 1, SessionID: "s2", Start: "2023-01-02", Turn: 0, Turns: 1, AssistantSpeaker: "Bob", Assistant: "b4"},
			{Index: 3, Session: 1, SessionID: "s2", Start: "2023-01-02", Turn: 1, Turns: 1, UserSpeaker: "Ann", User: "a4"},
		}
		if len(got) != len(want) {
			t.Fatalf("got %d segments %+v, want %d", len(got), got, len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("segment %d:\n got %+v\nwant %+v", i, got[i], want[i])
			}
		}
	})
	t.Run("RolesWin", func(t *testing.T) {
		d := &Dialogue{Sessions: []Session{{Turns: []Turn{
			{Speaker: "Bot", Role: RoleAssistant, Text: "hello"}, {Speaker: "Zoe", Role: RoleUser, Text: "hi"}, {Speaker: "Bot", Role: RoleAssistant, Text: "yes"},
		}}}}
		got := Segments(d)
		if len(got) != 2 || got[0].User != "" || got[0].Assistant != "hello" || got[1].User != "hi" || got[1].Assistant != "yes" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("SharedFiles", func(t *testing.T) {
		for _, tc := range []struct {
			path     string
			segments int
		}{
			{"dialogues/memorybank_en_users1-8.json", 49},
			{"dialogues/locomo10_conv26.json", -1},
		} {
			ds, err := ParseAll(mustRead(t, testkit.Path(t, tc.path)))
			if err != nil {
				t.Fatal(err)
			}
			segs := Segments(ds[0])
			if tc.segments >= 0 && len(segs) != tc.segments {
				t.Errorf("%s: %d segments, want %d", tc.path, len(segs), tc.segments)
			}
			turns := 0
			for i, s := range segs {
				if s.Index != i {
					t.Fatalf("%s: segment %d has index %d", tc.path, i, s.Index)
				}
				turns += s.Turns
			}
			if turns != ds[0].TurnCount() {
				t.Errorf("%s: segments cover %d turns, dialogue has %d", tc.path, turns, ds[0].TurnCount())
			}
		}
	})
	t.Run("Nil", func(t *testing.T) {
		if got := Segments(nil); got != nil {
			t.Errorf("got %v", got)
		}
	})
}

// TestSidesOf: the user's and the assistant's words come back from a
// segment's text when the sides are roles; a dialogue between named
// people has none.
func TestSidesOf(t *testing.T) {
	d := &Dialogue{Sessions: []Session{{Turns: []Turn{
		{Role: RoleAssistant, Text: "Welcome back."},
		{Role: RoleUser, Text: "I moved to Lisbon.\nUser: not a new side"}, {Role: RoleUser, Text: "And I got a cat."},
		{Role: RoleAssistant, Text: "Congratulations!\nAssistant: twice"},
		{Role: RoleUser, Text: "Thanks."},
	}}}}
	segs := Segments(d)
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3", len(segs))
	}
	for _, s := range segs {
		u, a, ok := SidesOf(s.Text())
		if !ok || u != s.User || a != s.Assistant {
			t.Errorf("SidesOf(%q) = %q, %q, %v; want %q, %q", s.Text(), u, a, ok, s.User, s.Assistant)
		}
	}
	named := Segments(&Dialogue{Sessions: []Session{{Turns: []Turn{{Speaker: "Ann", Text: "hi"}, {Speaker: "Bob", Text: "hello"}}}}})
	if u, a, ok := SidesOf(named[0].Text()); ok {
		t.Errorf("named speakers: sides %q, %q", u, a)
	}
	if _, _, ok := SidesOf("A plain paragraph."); ok {
		t.Error("a plain paragraph has sides")
	}
}
