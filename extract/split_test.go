package extract

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

func chunkTexts(cs []Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		content string
		size    int
		overlap int
		strict  bool
		want    []string
	}{
		{
			name:    "OneChunk",
			content: "One. Two. Three.",
			size:    100, overlap: 10,
			want: []string{"One. Two. Three."},
		},
		{
			name:    "SentenceBoundaries",
			content: "Aaaa bbb. Cccc ddd. Eeee fff.",
			size:    20, overlap: 0,
			want: []string{"Aaaa bbb. Cccc ddd.", "Eeee fff."},
		},
		{
			name:    "OverlapWindowWholeSentences",
			content: "Aaaa bbb. Cccc ddd. Eeee fff. Gggg hhh.",
			size:    20, overlap: 5,
			want: []string{"Aaaa bbb. Cccc ddd.", "Cccc ddd. Eeee fff.", "Eeee fff. Gggg hhh."},
		},
		{
			name:    "NonStrictMayPassSize",
			content: "Aa. Bbbbbbbbbbbb. Cccccccccccccc.",
			size:    20, overlap: 8,
			want: []string{"Aa. Bbbbbbbbbbbb.", "Bbbbbbbbbbbb. Cccccccccccccc."},
		},
		{
			name:    "StrictNeverPassesSize",
			content: "Aa. Bbbbbbbbbbbb. Cccccccccccccc.",
			size:    20, overlap: 8, strict: true,
			want: []string{"Aa. Bbbbbbbbbbbb.", "Cccccccccccccc."},
		},
		{
			name:    "NewlineIsBoundary",
			content: "title line\nbody text here\n\nlast",
			size:    15, overlap: 0,
			want: []string{"title line", "body text here", "last"},
		},
		{
			name:    "LongSentenceCut",
			content: "alpha beta gamma delta epsilon zeta eta theta",
			size:    12, overlap: 0,
			want: []string{"alpha beta", "gamma delta", "epsilon zeta", "eta theta"},
		},
		{
			name:    "Chinese",
			content: "北京是中国的首都。上海是最大的城市！你去过吗？我没有。",
			size:    10, overlap: 0,
			want: []string{"北京是中国的首都。", "上海是最大的城市！", "你去过吗？我没有。"},
		},
		{
			name:    "ChineseOverlap",
			content: "甲乙丙。丁戊己。庚辛壬。癸子丑。",
			size:    9, overlap: 4,
			want: []string{"甲乙丙。丁戊己。", "丁戊己。庚辛壬。", "庚辛壬。癸子丑。"},
		},
		{
			name:    "ChineseLongSentenceCut",
			content: "一二三四五六七八九十一二三",
			size:    5, overlap: 0,
			want: []string{"一二三四五", "六七八九十", "一二三"},
		},
		{
			name:    "Empty",
			content: "  \n ",
			size:    10,
			want:    []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := Document{ID: 7, Content: tt.content}
			got := Split(doc, tt.size, tt.overlap, tt.strict)
			if g := chunkTexts(got); strings.Join(g, "|") != strings.Join(tt.want, "|") || len(g) != len(tt.want) {
				t.Fatalf("chunks = %q, want %q", g, tt.want)
			}
			for i, c := range got {
				if c.Index != i || c.DocumentID != 7 {
					t.Errorf("chunk %d: index %d doc %d", i, c.Index, c.DocumentID)
				}
				if tt.content[c.Start:c.End] != c.Text {
					t.Errorf("chunk %d: offsets [%d,%d) do not match its text", i, c.Start, c.End)
				}
				if c.Tokens <= 0 {
					t.Errorf("chunk %d: tokens = %d", i, c.Tokens)
				}
			}
		})
	}
}

// TestSplit_Properties checks on random text that offsets always hold,
// every non-space character is covered, and strict chunks never pass size.
func TestSplit_Properties(t *testing.T) {
	pieces := []string{"word", "Name", "。", ".", "!", "？", "\n", " ", "  ", "北京", "中文字", "ä", "🙂", "x.y", "\n\n", "?", "longerwordhere"}
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 400; iter++ {
		var b strings.Builder
		for n := rng.Intn(200); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		content := b.String()
		size := 1 + rng.Intn(60)
		overlap := rng.Intn(size)
		for _, strict := range []bool{false, true} {
			chunks := Split(Document{Content: content}, size, overlap, strict)
			covered := make([]bool, len(content))
			prevStart := -1
			for i, c := range chunks {
				if c.Start < 0 || c.End > len(content) || c.Start >= c.End || content[c.Start:c.End] != c.Text {
					t.Fatalf("iter %d chunk %d: bad offsets [%d,%d) for %q", iter, i, c.Start, c.End, content)
				}
				if !utf8.ValidString(c.Text) {
					t.Fatalf("iter %d chunk %d: invalid UTF-8", iter, i)
				}
				if c.Start <= prevStart {
					t.Fatalf("iter %d chunk %d: no progress", iter, i)
				}
				prevStart = c.Start
				if strict && utf8.RuneCountInString(c.Text) > size {
					t.Fatalf("iter %d chunk %d: strict chunk of %d runes > %d", iter, i, utf8.RuneCountInString(c.Text), size)
				}
				for j := c.Start; j < c.End; j++ {
					covered[j] = true
				}
			}
			for j, r := range content {
				if !covered[j] && !strings.ContainsRune(" \n", r) {
					t.Fatalf("iter %d: byte %d (%q) not in any chunk of %q (size %d overlap %d strict %v)", iter, j, r, content, size, overlap, strict)
				}
			}
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"Empty", "", 0},
		{"English", "abcd efgh", 2},
		{"Chinese", "北京", 2},
		{"Mixed", "北京 abc", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateTokens(tt.text); got != tt.want {
				t.Errorf("EstimateTokens(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

func BenchmarkSplit(b *testing.B) {
	data := testkit.Read(b, "corpora/a_christmas_carol_gutenberg24022.txt")
	doc, err := ReadDocument("carol.txt", data, 0)
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	b.SetBytes(int64(len(doc.Content)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(Split(doc, cfg.ChunkSize, cfg.Overlap, false)) == 0 {
			b.Fatal("no chunks")
		}
	}
}
